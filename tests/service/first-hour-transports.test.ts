// Issue 28 items 1-3 and 7: one input rule for every transport. The same bad input gets the same code and the
// same words from `navkernel serve` (real HTTP) and the co-process protocol; invalid UTF-8 is refused by both; a
// size refusal names the limit and --max-bytes; the Python client reports an oversized body as INPUT_TOO_LARGE.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Problem, RouteErrorLine } from '../../src/contracts/index.js';
import { serveCoProcess } from '../../src/cli/route-coprocess.js';
import { createKernel, defineFlows } from '../../src/kernel/index.js';
import { FIXBUG_FLOW, ROOT } from '../support/kernel-fixtures.js';
import { post, startServer, type TestServer } from './helpers.js';

const LIMIT = 4096;

/** Lines through the co-process protocol (in-process, an in-memory kernel on the same flows), answers parsed. */
async function coprocess(lines: (string | Buffer)[]): Promise<Record<string, unknown>[]> {
  const kernel = createKernel({ flows: defineFlows([FIXBUG_FLOW]), limits: { maxBytes: LIMIT } });
  let out = '';
  const sink = new Writable({ write: (chunk, _enc, done) => ((out += String(chunk)), done()) });
  const input = Readable.from([Buffer.concat(lines.map((l) => Buffer.concat([typeof l === 'string' ? Buffer.from(l) : l, Buffer.from('\n')])))]);
  await serveCoProcess(kernel, input, sink, { maxLineBytes: LIMIT });
  await kernel.close();
  return out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ flows: defineFlows([FIXBUG_FLOW]), bodyLimit: LIMIT });
});
afterAll(() => s.close());

/** The words for bytes that are not UTF-8 (src/contracts/request-input.ts), spelt out so the test reads alone. */
const NOT_UTF8 = 'not valid UTF-8 (requests are UTF-8 encoded JSON)';

const routes = async () => ((await (await fetch(`${s.base}/v1/runs`)).json()) as { total: number }).total;

describe('invalid UTF-8 (28.1, 28.3)', () => {
  const bytes = Buffer.concat([Buffer.from('{"run_id":"bad-1","flow":"fixbug","step_completed":"implement","status":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);

  it('is refused over HTTP with the code and words of the co-process, and nothing is recorded', async () => {
    const before = await routes();
    const res = await fetch(`${s.base}/v1/route`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes });
    expect(res.status).toBe(400);
    const p = (await res.json()) as Problem;
    expect(p).toMatchObject({ code: 'INVALID_JSON', detail: `the body is ${NOT_UTF8}` });
    expect(await routes()).toBe(before);
    const [line] = (await coprocess([bytes])) as unknown as RouteErrorLine[];
    expect(line!.error).toMatchObject({ code: 'INVALID_JSON', message: `line 1: ${NOT_UTF8}` });
  });

  it('the co-process echoes the run_id and request_id it can still read, but not an id holding the bad bytes', async () => {
    const badId = Buffer.concat([Buffer.from('{"run_id":"r'), Buffer.from([0xff]), Buffer.from('","request_id":"q-1","status":"x"}')]);
    const [a, b] = await coprocess([bytes, badId]);
    expect(a).toMatchObject({ run_id: 'bad-1' });
    expect(b).toMatchObject({ request_id: 'q-1' });
    expect(b).not.toHaveProperty('run_id');
  });
});

describe('the size limit names itself and its flag (28.2)', () => {
  const big = { run_id: 'big', flow: 'fixbug', step_completed: 'implement', status: 'FAILED', forensics: { error_output: 'x'.repeat(3 * LIMIT) } };

  it('HTTP 413 and the co-process line error both say the limit and --max-bytes', async () => {
    const res = await post(s.base, '/v1/route', big);
    expect(res.status).toBe(413);
    const p = (await res.json()) as Problem;
    expect(p.code).toBe('INPUT_TOO_LARGE');
    expect(p.detail).toMatch(new RegExp(`^the body is \\d+ bytes, larger than the limit of ${LIMIT} bytes \\(--max-bytes sets it\\)$`));
    const [line] = (await coprocess([JSON.stringify(big)])) as unknown as RouteErrorLine[];
    expect(line!.error.code).toBe('INPUT_TOO_LARGE');
    expect(line!.error.message).toMatch(new RegExp(`^line 1: the line is \\d+ bytes, larger than the limit of ${LIMIT} bytes \\(--max-bytes sets it\\)$`));
  });

  it('the Python client raises NavkernelError(INPUT_TOO_LARGE), not BrokenPipeError, however large the body, and keeps working', async () => {
    const script = `
import sys
from navkernel_client import Client, NavkernelError
c = Client(sys.argv[1])
for n in (10_000, 3_000_000, 20_000_000):
    try:
        c.route({"run_id": "py-big", "flow": "fixbug", "step_completed": "implement", "status": "FAILED", "forensics": {"error_output": "x" * n}})
        print("routed")
    except NavkernelError as e:
        print(e.code, e.status, "--max-bytes" in e.message)
try:
    c.route({"run_id": "py-typo", "flow": "fixbug", "step_completed": "implment", "status": "FAILED"})
except NavkernelError as e:
    print(e.code, hasattr(e, "legacy_code"))
print(c.route({"run_id": "py-ok", "flow": "fixbug", "step_completed": "reproduce", "status": "VERIFIED"})["next_step_id"])
`;
    // Asynchronously: the server answers from this very process.
    const child = spawn('python3', ['-c', script, s.base], { env: { ...process.env, PYTHONPATH: path.join(ROOT, 'clients', 'python') } });
    const r = { stdout: '', stderr: '' };
    child.stdout.on('data', (d) => (r.stdout += String(d)));
    child.stderr.on('data', (d) => (r.stderr += String(d)));
    await new Promise((resolve) => child.on('close', resolve));
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(['INPUT_TOO_LARGE 413 True', 'INPUT_TOO_LARGE 413 True', 'INPUT_TOO_LARGE 413 True', 'INVALID_REQUEST False', 'implement']);
  });
});

describe('request errors: their own code, the same words on both transports (28.7)', () => {
  const base = { run_id: 'm', flow: 'fixbug', step_completed: 'implement', status: 'FAILED' };
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['a misspelt step', { ...base, step_completed: 'implment' }, 'INVALID_REQUEST', '$.step_completed: expected a step of flow fixbug (reproduce, implement, review, fix-lint, done), got "implment"; did you mean "implement"?'],
    ['a misspelt top-level field', { ...base, forensic: {} }, 'INVALID_REQUEST', '$.forensic: is not an allowed property; did you mean "forensics"? (allowed: run_id, flow, step_completed, agent, status, request_id, forensics, iteration, envelope, reports, restart)'],
    ['a number sent as a string', { ...base, iteration: { current: '2' } }, 'INVALID_REQUEST', '$.iteration.current: expected integer, got a string ("2")'],
    ['a misspelt flow', { ...base, flow: 'fixbgu' }, 'INVALID_REQUEST', '$.flow: expected one of the loaded flows (fixbug), got "fixbgu"; did you mean "fixbug"?'],
    ['a forensics field of the wrong type', { ...base, forensics: { tests: { failed: '2' } } }, 'INVALID_FORENSICS', '$.forensics.tests.failed: expected integer, got a string ("2")'],
  ];
  for (const [name, body, code, message] of cases) {
    it(name, async () => {
      const res = await post(s.base, '/v1/route', body);
      const p = (await res.json()) as Problem;
      expect([res.status, p.code, p.detail]).toEqual([code === 'INVALID_REQUEST' ? 400 : 422, code, message]);
      const [line] = (await coprocess([JSON.stringify(body)])) as unknown as RouteErrorLine[];
      expect([line!.error.code, line!.error.message]).toEqual([code, message]);
      // No legacy_code: a misspelt step has nothing to do with forensics (issue 37.8); the one code is the code.
      expect('legacy_code' in p).toBe(false);
      expect('legacy_code' in line!.error).toBe(false);
    });
  }
});

describe('GET /v1/runs/:id/audit?why= (28.9)', () => {
  it('a misspelt step is reported as unknown in the run\'s flows, with the nearest step; a step no decision touched is not', async () => {
    expect((await post(s.base, '/v1/route', { run_id: 'why-1', flow: 'fixbug', step_completed: 'reproduce', status: 'VERIFIED' })).status).toBe(200);
    const typo = (await (await fetch(`${s.base}/v1/runs/why-1/audit?why=implment`)).json()) as { entries: unknown[]; unknown_step?: { did_you_mean?: string; steps: string[] } };
    expect(typo.entries).toEqual([]);
    expect(typo.unknown_step).toEqual({ steps: ['done', 'fix-lint', 'implement', 'reproduce', 'review'], did_you_mean: 'implement' });
    const untouched = (await (await fetch(`${s.base}/v1/runs/why-1/audit?why=review`)).json()) as { unknown_step?: unknown };
    expect(untouched.unknown_step).toBeUndefined();
  });
});
