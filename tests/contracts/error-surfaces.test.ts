// Every code a surface shows is in the closed set (ErrorCode, docs/errors.md): bad invocations of every CLI command
// (found from the command definitions, so new commands are walked too), bad lines to the co-process, bad requests to
// every HTTP route of the OpenAPI document, and bad calls to every tool and resource of the `mcp` server (driven by the
// MCP SDK's real client over stdio). A code outside the set fails the test, naming where it came from.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/contracts/error-codes.js';
import { buildProgram } from '../../src/cli/main.js';
import { buildOpenApi } from '../../src/service/openapi.js';
import { startServer, type TestServer } from '../service/helpers.js';
import { BIN, coProcess, runCli } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';

let dir: string;
/** A path under a regular file: nothing can be created there, so no command starts working on it. */
let blocked: string;
let notLedger: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'navkernel-error-surfaces-'));
  writeFileSync(path.join(dir, 'file'), 'not a folder');
  blocked = path.join(dir, 'file', 'ledger.sqlite');
  notLedger = path.join(dir, 'not-a-ledger.sqlite');
  writeFileSync(notLedger, 'hello, I am not SQLite');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The codes of the JSON error lines (`{"error":{"code",…}}`) in a command's output. */
function errorCodes(text: string): string[] {
  const codes: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const code = (JSON.parse(line) as { error?: { code?: unknown } }).error?.code;
      if (code !== undefined) codes.push(String(code));
    } catch {
      // not a JSON line
    }
  }
  return codes;
}

/** Every runnable command path (`['runs']`, `['ledger', 'verify']`, …) with its long option names. */
function commandPaths(program: Command, prefix: string[] = []): { path: string[]; options: string[] }[] {
  return program.commands.flatMap((c) => {
    const here = [...prefix, c.name()];
    return [{ path: here, options: c.options.map((o) => o.long ?? '') }, ...commandPaths(c, here)];
  });
}

describe('every code a surface shows is in the closed set', () => {
  it('the CLI: an unknown flag, and a ledger or flows path that cannot exist, for every command', async () => {
    const seen = new Map<string, string>();
    const outside: string[] = [];
    for (const { path: cmd, options } of commandPaths(await buildProgram())) {
      if (cmd.includes('help')) continue;
      const invocations = [[...cmd, '--json', '--no-such-flag']];
      if (options.includes('--ledger')) invocations.push([...cmd, '--json', '--ledger', blocked], [...cmd, '--json', '--ledger', notLedger]);
      if (options.includes('--flows')) invocations.push([...cmd, '--json', '--flows', blocked]);
      for (const args of invocations) {
        const r = runCli(args);
        expect(r.code, `${args.join(' ')} did not exit`).not.toBeNull();
        for (const code of errorCodes(r.stdout + '\n' + r.stderr)) {
          seen.set(code, args.join(' '));
          if (!isErrorCode(code)) outside.push(`${code} from navkernel ${args.join(' ')}`);
        }
      }
    }
    expect(outside).toEqual([]);
    // The walk saw what it should: usage errors, a missing ledger, a file that is not a ledger.
    expect([...seen.keys()]).toEqual(expect.arrayContaining(['USAGE', 'NOT_A_LEDGER']));
    expect(seen.size).toBeGreaterThanOrEqual(4);
  }, 600_000);

  it('the co-process: lines that are not JSON or not an object, too deep, of unknown flows and steps, with bad forensics, from the wrong step', async () => {
    const co = coProcess(['route', '--no-ledger', '--flows', 'charters']);
    const lines = [
      'not json',
      '[]',
      '{}',
      '{"run_id":"r","flow":"nope","step_completed":"x","status":"DONE"}',
      '{"run_id":"r","flow":"build","step_completed":"nope","status":"DONE"}',
      '{"run_id":"r","flow":"build","step_completed":"build-step-1","status":"VERIFIED","forensics":{"tests":{"failed":-1}}}',
      `{"run_id":"r","flow":"build","step_completed":"build-step-1","status":"VERIFIED","forensics":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      '{"run_id":"r2","flow":"build","step_completed":"build-step-1","status":"VERIFIED"}',
      '{"run_id":"r2","flow":"build","step_completed":"build-done","status":"DONE"}',
    ];
    const codes: string[] = [];
    try {
      for (const line of lines) codes.push(...errorCodes(await co.ask(line)));
    } finally {
      await co.close();
    }
    expect(codes.filter((c) => !isErrorCode(c))).toEqual([]);
    expect(codes).toEqual(expect.arrayContaining(['INVALID_JSON', 'INVALID_REQUEST', 'INVALID_FORENSICS', 'INPUT_TOO_LARGE', 'STEP_MISMATCH']));
  }, 120_000);

  describe('HTTP', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer({ token: 'secret-token' });
    });
    afterAll(async () => server?.close());

    it('every route of the OpenAPI document, without and with the token, with bad ids, bodies and media types', async () => {
      const outside: string[] = [];
      const seen = new Set<string>();
      const paths = Object.entries(buildOpenApi().paths as Record<string, Record<string, unknown>>);
      expect(paths.length).toBeGreaterThan(10);
      const auth = { authorization: 'Bearer secret-token' };
      for (const [template, ops] of paths) {
        for (const method of Object.keys(ops)) {
          const url = server.base + template.replace(/\{[^}]+\}/g, 'no-such-id') + (method === 'get' ? '?limit=-1&status=nope&cursor=%ff' : '');
          const attempts: RequestInit[] = [
            { method: method.toUpperCase() },
            { method: method.toUpperCase(), headers: { ...auth, 'content-type': 'application/json' }, ...(method === 'get' ? {} : { body: 'not json' }) },
            ...(method === 'get' ? [] : [{ method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"unexpected":1}' }, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'x' }]),
          ];
          for (const init of attempts) {
            const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
            if (res.status < 400) {
              await res.body?.cancel();
              continue;
            }
            const code = ((await res.json()) as { code?: unknown }).code;
            seen.add(String(code));
            if (!isErrorCode(code)) outside.push(`${String(code)} from ${init.method} ${template}`);
          }
        }
      }
      for (const bad of ['/v1/nope', '/%76%31/runs', '/v1/runs/' + 'x'.repeat(5000)]) {
        const res = await fetch(server.base + bad, { headers: auth });
        const code = ((await res.json()) as { code?: unknown }).code;
        seen.add(String(code));
        if (!isErrorCode(code)) outside.push(`${String(code)} from GET ${bad}`);
      }
      expect(outside).toEqual([]);
      expect([...seen]).toEqual(expect.arrayContaining(['UNAUTHORIZED', 'INVALID_JSON', 'INVALID_REQUEST', 'UNSUPPORTED_MEDIA_TYPE', 'NOT_FOUND', 'UNKNOWN_RUN']));
    }, 120_000);
  });

  it('MCP: every tool with no, unknown, mistyped and unknown-id arguments; an unknown tool; a bad resource and cursor', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--flows', 'charters', '--ledger', path.join(dir, 'mcp-ledger.sqlite'), '--repo', path.join(ROOT, 'tests', 'fixtures', 'repos', 'shop'), '--no-cache', '--allow-resolve'],
      cwd: ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'error-surfaces', version: '1.0.0' });
    await client.connect(transport);
    const outside: string[] = [];
    const seen = new Set<string>();
    const note = (code: unknown, where: string) => {
      seen.add(String(code));
      if (!isErrorCode(code)) outside.push(`${String(code)} from ${where}`);
    };
    /** A tool error's code (the co-process error line as text), or a JSON-RPC error's `data.code`. */
    const attempt = async (where: string, call: () => Promise<unknown>) => {
      try {
        const r = (await call()) as { isError?: boolean; content?: { text?: string }[] };
        if (r?.isError) note((JSON.parse(r.content![0]!.text!) as { error: { code?: unknown } }).error.code, where);
      } catch (err) {
        note((err as { data?: { code?: unknown } }).data?.code, where);
      }
    };
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThanOrEqual(8);
      for (const t of tools) {
        const props = Object.entries((t.inputSchema.properties ?? {}) as Record<string, { type?: string }>);
        const wrong = Object.fromEntries(props.map(([k, p]) => [k, p.type === 'string' ? { not: 'a string' } : 'not-the-right-type']));
        const ids = Object.fromEntries(props.filter(([k, p]) => p.type === 'string' && /id$/.test(k)).map(([k]) => [k, 'no-such-id']));
        const argSets: [string, Record<string, unknown>][] = [
          ['no arguments', {}],
          ['an unknown argument', { no_such_argument: 1 }],
          ['mistyped arguments', wrong],
          ['unknown ids', ids],
          ['a __proto__ key', JSON.parse('{"__proto__":{"x":1}}') as Record<string, unknown>],
        ];
        for (const [what, args] of argSets) await attempt(`tools/call ${t.name} with ${what}`, () => client.callTool({ name: t.name, arguments: args }));
      }
      await attempt('tools/call of an unknown tool', () => client.callTool({ name: 'no_such_tool', arguments: {} }));
      await attempt('resources/read of an unknown run', () => client.readResource({ uri: 'navkernel://runs/no-such-run/decisions' }));
      await attempt('resources/read of an unknown URI', () => client.readResource({ uri: 'navkernel://nothing/here' }));
      await attempt('resources/list with a bad cursor', () => client.listResources({ cursor: '%%not-a-cursor' }));
      // Still answering after all that.
      expect((await client.listTools()).tools.length).toBe(tools.length);
    } finally {
      await client.close();
    }
    expect(outside).toEqual([]);
    expect([...seen]).toEqual(expect.arrayContaining(['INVALID_REQUEST', 'UNKNOWN_TOOL', 'NOT_FOUND']));
  }, 180_000);
});
