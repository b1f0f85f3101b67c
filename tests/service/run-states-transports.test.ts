// The run-time refusals (docs/run-states.md) surface identically on every transport: the library's typed error,
// the co-process error line, `navkernel serve`'s problem+json (HTTP 409) and the MCP tool error carry the same code
// and the same words, and nothing is recorded. --strict's refusal too.
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Problem, RouteRequest } from '../../src/contracts/index.js';
import { serveCoProcess } from '../../src/cli/route-coprocess.js';
import { toolError } from '../../src/integrations/mcp/mcp-server.js';
import { createKernel, defineFlows } from '../../src/kernel/index.js';
import { FIXBUG_FLOW } from '../support/kernel-fixtures.js';
import { post, startServer, type TestServer } from './helpers.js';

const flows = () => defineFlows([FIXBUG_FLOW]);
const req = (run_id: string, step: string, status: string, extra: Partial<RouteRequest> = {}): RouteRequest => ({ run_id, flow: 'fixbug', step_completed: step, status, ...extra });

/** Each scenario: requests of one run; the last is refused with `code`. */
const SCENARIOS: { code: string; requests: (run: string) => RouteRequest[] }[] = [
  { code: 'STEP_MISMATCH', requests: (run) => [req(run, 'reproduce', 'VERIFIED'), req(run, 'review', 'APPROVED')] },
  { code: 'RUN_ENDED', requests: (run) => [req(run, 'review', 'APPROVED'), req(run, 'done', 'DONE'), req(run, 'review', 'APPROVED')] },
  { code: 'ESCALATION_OPEN', requests: (run) => [req(run, 'reproduce', 'HUH'), req(run, 'implement', 'VERIFIED')] },
];

interface Refusal {
  code: string;
  message: string;
}

async function library(requests: RouteRequest[], strict = false): Promise<Refusal> {
  const kernel = createKernel({ flows: flows(), ...(strict ? { strict } : {}) });
  try {
    for (const r of requests.slice(0, -1)) await kernel.route(r);
    const err = await kernel.route(requests.at(-1)!).then(
      () => undefined,
      (e: unknown) => e,
    );
    // The MCP tool error is built from the same error (src/integrations/mcp/mcp-server.ts).
    const mcp = JSON.parse(toolError(err).content[0]!.text) as { error: Refusal };
    const e = err as Refusal;
    expect(mcp.error).toMatchObject({ code: e.code, message: e.message });
    return { code: e.code, message: e.message };
  } finally {
    await kernel.close();
  }
}

async function coprocess(requests: RouteRequest[]): Promise<Refusal> {
  const kernel = createKernel({ flows: flows() });
  let out = '';
  const sink = new Writable({ write: (chunk, _enc, done) => ((out += String(chunk)), done()) });
  await serveCoProcess(kernel, Readable.from([requests.map((r) => JSON.stringify(r)).join('\n') + '\n']), sink, {});
  await kernel.close();
  const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { error?: Refusal });
  expect(lines.slice(0, -1).every((l) => l.error === undefined)).toBe(true);
  return lines.at(-1)!.error!;
}

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ flows: flows() });
});
afterAll(() => s.close());

async function http(requests: RouteRequest[]): Promise<Refusal & { status: number; recorded: number }> {
  for (const r of requests.slice(0, -1)) expect((await post(s.base, '/v1/route', r)).status).toBe(200);
  const res = await post(s.base, '/v1/route', requests.at(-1)!);
  const p = (await res.json()) as Problem;
  const detail = (await (await fetch(`${s.base}/v1/runs/${requests[0]!.run_id}`)).json()) as { decisions: unknown[] };
  return { status: res.status, code: p.code, message: p.detail ?? '', recorded: detail.decisions.length };
}

describe('run-time refusals on every transport', () => {
  for (const { code, requests } of SCENARIOS) {
    it(`${code}: the same code and words from the library, the co-process, serve (409) and MCP; nothing recorded`, async () => {
      const run = `t-${code}`;
      const lib = await library(requests(run));
      expect(lib.code).toBe(code);
      expect(await coprocess(requests(run))).toMatchObject({ code, message: lib.message });
      const h = await http(requests(run));
      expect(h).toMatchObject({ status: 409, code, message: lib.message, recorded: requests(run).length - 1 });
    });
  }

  it('strict: a misspelt forensic field is INVALID_FORENSICS on the library and over HTTP with --strict', async () => {
    const bad = req('s', 'implement', 'FAILED', { forensics: { test: { failed: 1 } } as never });
    const lib = await library([bad], true);
    expect(lib.code).toBe('INVALID_FORENSICS');
    expect(lib.message).toContain('$.forensics.test: is not a field the kernel reads, so it was not read; did you mean "tests"?');
    const strict = await startServer({ flows: flows(), strict: true });
    try {
      const res = await post(strict.base, '/v1/route', bad);
      expect(res.status).toBe(422);
      expect(((await res.json()) as Problem).code).toBe('INVALID_FORENSICS');
    } finally {
      await strict.close();
    }
    // Without strict, the same request routes with the warning.
    const res = await post(s.base, '/v1/route', { ...bad, run_id: 's2' });
    expect(((await res.json()) as { warnings: string[] }).warnings).toContainEqual(expect.stringContaining('forensics.test is not a field the kernel reads'));
  });

  it('ESCALATION_OPEN ends when a person resolves it over HTTP: the next route goes where the resolution says', async () => {
    const run = 't-resolved-over-http';
    const escalated = (await (await post(s.base, '/v1/route', req(run, 'reproduce', 'HUH'))).json()) as { decision: string; escalation_id: string };
    expect(escalated.decision).toBe('ESCALATE');
    expect((await post(s.base, '/v1/route', req(run, 'implement', 'VERIFIED'))).status).toBe(409);
    const resolved = await post(s.base, `/v1/escalations/${escalated.escalation_id}/resolve`, { decision: 'CONTINUE', next: 'implement', by: 'ana', reason: 'reproduced by hand' });
    expect(resolved.status).toBe(200);
    // serve's kernel reads the resolution from its store: the run is sent to implement, and implement reports.
    const after = await post(s.base, '/v1/route', req(run, 'implement', 'VERIFIED'));
    expect(after.status).toBe(200);
    expect(((await after.json()) as { decision: string; seq: number })).toMatchObject({ decision: 'CONTINUE', seq: 2 });
  });
});
