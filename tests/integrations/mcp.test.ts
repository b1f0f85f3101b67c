// `navkernel mcp` driven by the MCP SDK's real Client over a real stdio child process (node bin/navkernel.js mcp),
// with a real SQLite ledger file: every tool, bad arguments (a tool error with the stable code, and the server keeps
// answering), navigate on a fixture repository, route twice on one run, resources.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { BIN, runCli } from '../support/cli.js';
import { onLines } from '../support/lines.js';
import { ROOT } from '../support/kernel-fixtures.js';

const FLOWS = path.join(ROOT, 'examples', 'custom-flow');
const SHOP = path.join(ROOT, 'tests', 'fixtures', 'repos', 'shop');

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { type: string; text?: string }[] };

async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], cwd: ROOT, stderr: 'pipe' });
  const client = new Client({ name: 'navkernel-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The stable error of a tool error result (the co-process's error line, as the text content). */
function errorOf(r: ToolResult): { code: string; message: string; issues?: { path: (string | number)[] }[] } {
  expect(r.isError).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  return (JSON.parse(r.content[0]!.text!) as { error: { code: string; message: string; issues?: { path: (string | number)[] }[] } }).error;
}

describe('navkernel mcp (MCP SDK client over stdio)', () => {
  let dir: string;
  let ledgerFile: string;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'nk-mcp-'));
    ledgerFile = path.join(dir, 'ledger.sqlite');
    client = await connect(['--flows', FLOWS, '--ledger', ledgerFile, '--repo', SHOP, '--no-cache', '--allow-resolve']);
  });

  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists its tools, each with a JSON Schema for its input and its structured output', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['navigate', 'route', 'list_runs', 'audit', 'why', 'verify', 'replay', 'resolve']);
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
    }
    // route's arguments are the published route request; its output the published decision.
    const route = tools.find((t) => t.name === 'route')!;
    expect(route.inputSchema.required).toEqual(expect.arrayContaining(['run_id', 'flow', 'step_completed', 'status']));
    expect(Object.keys(route.outputSchema!.properties!)).toEqual(expect.arrayContaining(['decision', 'next_step_id', 'tier', 'rule', 'reason']));
    expect(tools.find((t) => t.name === 'audit')!.annotations?.readOnlyHint).toBe(true);
  });

  it('routes twice on one run; the SQLite ledger holds both decisions', async () => {
    const first = await call('route', { run_id: 'mcp-1', flow: 'release', step_completed: 'package', status: 'VERIFIED' });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ decision: 'CONTINUE', next_step_id: 'check', tier: 1, rule: 'success', seq: 1 });
    const second = await call('route', { run_id: 'mcp-1', flow: 'release', step_completed: 'check', status: 'FAILED', forensics: { lint: { errors: 2 } } });
    expect(second.structuredContent).toMatchObject({ decision: 'LOOP', next_step_id: 'check', tier: 2, rule: 'microloop', seq: 2 });
    const ledger = openLedger(ledgerFile, { create: false });
    try {
      const rows = await ledger.routes('mcp-1', 0, 10);
      expect(rows.map((r) => [r.seq, r.step, r.decision, r.next_step])).toEqual([
        [1, 'package', 'CONTINUE', 'check'],
        [2, 'check', 'LOOP', 'check'],
      ]);
    } finally {
      await ledger.close();
    }
  });

  it('answers bad arguments with a tool error carrying the stable code, and keeps serving', async () => {
    const unknownFlow = errorOf(await call('route', { run_id: 'mcp-x', flow: 'nope', step_completed: 'package', status: 'VERIFIED' }));
    expect(unknownFlow.code).toBe('INVALID_REQUEST'); // request-level (issue 28.7); earlier versions: INVALID_FORENSICS
    expect(unknownFlow.issues?.map((i) => i.path)).toEqual([['flow']]);
    expect(errorOf(await call('route', {})).code).toBe('INVALID_REQUEST');
    const bad = errorOf(await call('audit', { run: 1 }));
    expect(bad.code).toBe('INVALID_REQUEST');
    expect(bad.issues?.map((i) => i.path.join('.')).sort()).toEqual(['run', 'run_id']);
    expect(errorOf(await call('audit', { run_id: 'no-such-run' })).code).toBe('UNKNOWN_RUN');
    expect(errorOf(await call('list_runs', { cursor: 'not-a-cursor' })).code).toBe('INVALID_REQUEST');
    expect(errorOf(await call('no_such_tool', {})).code).toBe('UNKNOWN_TOOL');
    // Still serving: the next call is answered.
    const runs = await call('list_runs', {});
    expect(runs.isError).toBeFalsy();
    expect((runs.structuredContent!.runs as { run_id: string }[]).map((r) => r.run_id)).toEqual(['mcp-1']);
  });

  it('navigates a fixture repository inside its --repo root, and refuses paths outside it', async () => {
    const r = await call('navigate', { repo: '.', task: 'fix the discount calculation in checkout', max_files: 5 });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    const out = r.structuredContent as { exit: string; stop_reason: string; context: string; files: { path: string; level: number; ranges: [number, number][] }[] };
    expect(out.exit).toBe('EXIT_PASS');
    expect(out.stop_reason).toBe('PASS');
    expect(out.files.length).toBeLessThanOrEqual(5);
    const discount = out.files.find((f) => f.path === 'src/cart/discount.ts');
    expect(discount).toBeDefined();
    expect(discount!.ranges.length).toBeGreaterThan(0);
    expect(out.context).toContain('==> src/cart/discount.ts');
    // Every range names lines the context shows for that file.
    for (const f of out.files) for (const [a, b] of f.ranges) expect(a).toBeLessThanOrEqual(b);
    // Absolute path given the same way is accepted; anything outside the root is refused with PATH_OUTSIDE_ROOT.
    expect((await call('navigate', { repo: SHOP, task: 'gateway' })).isError).toBeFalsy();
    expect(errorOf(await call('navigate', { repo: '..', task: 'x' })).code).toBe('PATH_OUTSIDE_ROOT');
    expect(errorOf(await call('navigate', { repo: ROOT, task: 'x' })).code).toBe('PATH_OUTSIDE_ROOT');
    expect(errorOf(await call('navigate', { repo: 'no-such-dir', task: 'x' })).code).toBe('PATH_NOT_FOUND');
    expect(errorOf(await call('navigate', { repo: '.', task: 'x', max_files: 0 })).code).toBe('INVALID_REQUEST');
  });

  it('reads the ledger: audit, why, verify, replay', async () => {
    const audit = (await call('audit', { run_id: 'mcp-1' })).structuredContent as { run: { steps: number }; offroad: { decision: string }[] };
    expect(audit.run.steps).toBe(2);
    expect(audit.offroad.map((o) => o.decision)).toEqual(['LOOP']);
    const why = (await call('why', { run_id: 'mcp-1', step: 'check' })).structuredContent as { entries: { seq: number }[] };
    expect(why.entries.map((e) => e.seq)).toEqual([1, 2]);
    expect(errorOf(await call('why', { run_id: 'mcp-1', step: 'publish' })).code).toBe('UNKNOWN_STEP');
    // A misspelt step: not in the run's flows, with the nearest one suggested (issue 37.6).
    const typo = errorOf(await call('why', { run_id: 'mcp-1', step: 'chekc' }));
    expect(typo.code).toBe('UNKNOWN_STEP');
    expect(typo.message).toContain('step "chekc" does not exist in the flows of run mcp-1; did you mean "check"?');
    expect((await call('verify', {})).structuredContent).toMatchObject({ ok: true, runs: 1, routes: 2 });
    expect((await call('replay', { run_id: 'mcp-1' })).structuredContent).toMatchObject({ run_id: 'mcp-1', routes: 2, identical: true, divergences: [] });
  });

  it('resolves an open escalation (started with --allow-resolve), checked against the flow graph', async () => {
    const esc = (await call('route', { run_id: 'mcp-2', flow: 'release', step_completed: 'package', status: 'FAILED' })).structuredContent as { decision: string; escalation_id: string };
    expect(esc.decision).toBe('ESCALATE');
    expect(errorOf(await call('resolve', { escalation_id: esc.escalation_id, decision: 'CONTINUE', next: 'nowhere', by: 'ana', reason: 'r' })).code).toBe('INVALID_RESOLUTION');
    const done = (await call('resolve', { escalation_id: esc.escalation_id, decision: 'CONTINUE', next: 'check', by: 'ana', reason: 'flaky packager' })).structuredContent as { status: string; resolution: { next_step_id: string; by: string } };
    expect(done).toMatchObject({ status: 'resolved', resolution: { decision: 'CONTINUE', next_step_id: 'check', by: 'ana' } });
    expect(errorOf(await call('resolve', { escalation_id: esc.escalation_id, decision: 'TERMINATE', by: 'bo', reason: 'late' })).code).toBe('ESCALATION_ALREADY_RESOLVED');
  });

  it('offers the flows and each run\'s decisions as resources', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['navkernel://flows/release', 'navkernel://runs/mcp-1/decisions', 'navkernel://runs/mcp-2/decisions']);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['navkernel://runs/{run_id}/decisions']);
    const flow = JSON.parse(((await client.readResource({ uri: 'navkernel://flows/release' })).contents[0] as { text: string }).text) as { flow: string };
    expect(flow.flow).toBe('release');
    const run = JSON.parse(((await client.readResource({ uri: 'navkernel://runs/mcp-1/decisions' })).contents[0] as { text: string }).text) as { decisions: { step: string; decision: { decision: string } }[] };
    expect(run.decisions.map((d) => `${d.step} ${d.decision.decision}`)).toEqual(['package CONTINUE', 'check LOOP']);
    await expect(client.readResource({ uri: 'navkernel://runs/nope/decisions' })).rejects.toMatchObject({ code: -32002 });
    // Still serving after a failed read.
    expect((await client.listResources()).resources.length).toBe(3);
  });

  it('survives what is not a message: a line that is not JSON (a parse error), and one larger than the 10 MiB buffer of the SDK transport (answered, dropped)', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--flows', FLOWS, '--ledger', path.join(dir, 'raw.sqlite'), '--repo', SHOP, '--no-cache'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'ignore'] });
    const answers: { id: number | null; result?: { tools?: unknown[] }; error?: { code: number; data?: { code: string } } }[] = [];
    const waiters: (() => void)[] = [];
    onLines(child.stdout, (line) => {
      answers.push(JSON.parse(line));
      waiters.shift()?.();
    });
    const next = () => new Promise<void>((resolve) => waiters.push(resolve));
    try {
      // A line that is not JSON is answered with a JSON-RPC parse error (tests/integrations/attack-mcp-lines.test.ts).
      let got = next();
      child.stdin.write('this is not json\n');
      await got;
      expect(answers[0]).toMatchObject({ id: null, error: { code: -32700 } });
      got = next();
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'route', arguments: { pad: 'x'.repeat(11 * 1024 * 1024) } } })}\n`);
      await got;
      expect(answers[1]).toMatchObject({ id: null, error: { code: -32600, data: { code: 'INPUT_TOO_LARGE' } } });
      got = next();
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
      await got;
      got = next();
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
      await got;
      expect(answers.map((a) => a.id)).toEqual([null, null, 1, 2]);
      expect(answers[3]!.result!.tools!.length).toBe(7);
    } finally {
      const exited = new Promise((resolve) => child.on('close', resolve));
      child.stdin.end();
      expect(await exited).toBe(0);
    }
  });

  it('without --allow-resolve offers no resolve tool; after the client closes the ledger verifies', async () => {
    const other = await connect(['--flows', FLOWS, '--ledger', ledgerFile, '--repo', SHOP, '--no-cache']);
    try {
      expect((await other.listTools()).tools.map((t) => t.name)).not.toContain('resolve');
      const e = errorOf((await other.callTool({ name: 'resolve', arguments: { escalation_id: 'x', decision: 'TERMINATE', by: 'a', reason: 'b' } })) as ToolResult);
      expect(e).toMatchObject({ code: 'UNKNOWN_TOOL' });
      expect(e.message).toContain('--allow-resolve');
    } finally {
      await other.close();
    }
    const v = runCli(['verify', '--no-repair', '--ledger', ledgerFile]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });
});
