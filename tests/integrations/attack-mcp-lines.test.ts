// Attack class: what is not quite a message to `navkernel mcp`. A real child process is spoken to in raw lines:
// valid JSON that is not JSON-RPC (answered -32600 Invalid Request, with the id when it has one, else null), a
// line that is not JSON (-32700), and a `route` whose arguments hold a top-level `__proto__` key (plain and
// \u-escaped), which the SDK's own parsing would drop silently: refused as the co-process refuses it
// (INVALID_REQUEST naming `$.__proto__`), nothing recorded. The server keeps answering throughout.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { onLines } from '../support/lines.js';

const FLOWS = path.join(ROOT, 'examples', 'custom-flow');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'navkernel-attack-mcp-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Answer = { jsonrpc?: string; id: number | string | null; result?: { isError?: boolean; content?: { text: string }[]; tools?: unknown[] }; error?: { code: number; message: string; data?: { code: string } } };

describe('navkernel mcp answers every line', () => {
  it('invalid JSON-RPC, invalid JSON and a __proto__ key in route arguments each get an answer; nothing is recorded', async () => {
    const ledger = path.join(dir, 'mcp.sqlite');
    const child = spawn(process.execPath, [BIN, 'mcp', '--flows', FLOWS, '--ledger', ledger], { cwd: ROOT, stdio: ['pipe', 'pipe', 'ignore'] });
    const answers: Answer[] = [];
    const waiters: (() => void)[] = [];
    onLines(child.stdout, (line) => {
      answers.push(JSON.parse(line) as Answer);
      waiters.shift()?.();
    });
    const ask = async (line: string): Promise<Answer> => {
      const got = new Promise<void>((resolve) => waiters.push(resolve));
      child.stdin.write(`${line}\n`);
      await got;
      return answers[answers.length - 1]!;
    };
    try {
      await ask(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);

      // Valid JSON, not JSON-RPC: -32600, id null (none can be read) or the id it has.
      for (const line of ['{"foo":1}', '[1,2,3]', '"a string"', '42', 'null', '{"jsonrpc":"1.0","id":3,"method":"tools/list"}']) {
        const a = await ask(line);
        expect(a, line).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, data: { code: 'INVALID_REQUEST' } } });
        expect(a.id, line).toBe(line.includes('"id":3') ? 3 : null);
      }
      expect(await ask('{"jsonrpc":"2.0","id":"x7","method":7}')).toMatchObject({ id: 'x7', error: { code: -32600 } });
      // Not JSON at all: -32700.
      expect(await ask('{"jsonrpc":"2.0",')).toMatchObject({ id: null, error: { code: -32700 } });

      // A top-level __proto__ in route's arguments, written plainly and with escapes: a tool error, INVALID_REQUEST.
      const route = { run_id: 'proto-run', flow: 'release', step_completed: 'package', status: 'VERIFIED' };
      const plain = `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"route","arguments":{"__proto__":{"polluted":true},${JSON.stringify(route).slice(1)}}}`;
      const escaped = plain.replace('"__proto__"', '"\\u005f\\u005fproto\\u005f\\u005f"').replace('"id":10', '"id":11');
      for (const line of [plain, escaped]) {
        const a = await ask(line);
        expect(a.result?.isError, line).toBe(true);
        expect(JSON.parse(a.result!.content![0]!.text)).toEqual({ error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/^\$\.__proto__: is not an allowed property/), path: ['__proto__'] } });
      }
      // The same key elsewhere in params (not a tool call's arguments): -32600.
      expect(await ask('{"jsonrpc":"2.0","id":12,"method":"tools/list","params":{"__proto__":{}}}')).toMatchObject({ id: 12, error: { code: -32600, data: { code: 'INVALID_REQUEST' } } });

      // Still serving: a real call works, and the refused route left nothing behind.
      const list = await ask(JSON.stringify({ jsonrpc: '2.0', id: 20, method: 'tools/list' }));
      expect(list.result!.tools!.length).toBeGreaterThan(0);
    } finally {
      const exited = new Promise((resolve) => child.on('close', resolve));
      child.stdin.end();
      expect(await exited).toBe(0);
    }
    const runs = runCli(['runs', '--json', '--ledger', ledger]);
    expect(runs.stdout).not.toContain('proto-run');
  }, 60_000);
});
