import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemasDir } from '../../src/contracts/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { buildOpenApi, isLoopback, renderOpenApi } from '../../src/service/index.js';
import { BUILD_RUN, GATE_RUN, post, routeAll, startServer, type TestServer } from './helpers.js';
import { ledgerSql } from '../../src/ledger/sqlite-ledger.js';

/** Validates bodies against the components of the published OpenAPI document (what a client would use). */
const openapi = JSON.parse(readFileSync(path.join(schemasDir(), 'openapi.json'), 'utf8')) as { components: { schemas: Record<string, object> } };
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'api', components: openapi.components });
function expectMatches(component: string, body: unknown): void {
  const validate = ajv.getSchema(`api#/components/schemas/${component}`)!;
  expect(validate(body), `${component}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

async function expectProblem(res: Response, status: number, code: string, detail?: RegExp): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await json(res)) as Record<string, unknown>;
  expectMatches('Problem', body);
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  if (detail) expect(String(body.detail)).toMatch(detail);
  return body;
}

/** A response's JSON body, untyped (tests look into it). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function json(res: Response | Promise<Response>): Promise<any> {
  return (await res).json();
}

/** Routes recorded in the ledger file (read by a second connection, as another process would). */
function routeCount(file: string): number {
  const l = openLedger(file, { create: false });
  try {
    return ledgerSql(l).routeCount();
  } finally {
    void l.close();
  }
}

describe('navkernel serve: the /v1 API over real HTTP', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
    await routeAll(s.base, BUILD_RUN);
    await routeAll(s.base, GATE_RUN);
  });
  afterAll(() => s.close());

  it('routes one request to one decision, with the library contract, and replays a request_id', async () => {
    const req = { run_id: 'idem', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED', request_id: 'r-1' };
    const first = await post(s.base, '/v1/route', req);
    expect(first.status).toBe(200);
    const d = await json(first);
    expectMatches('Decision', d);
    expect(d).toMatchObject({ decision: 'CONTINUE', next_step_id: 'build-step-2', tier: 1, rule: 'success', seq: 1 });
    const again = await json(post(s.base, '/v1/route', req));
    expect(again).toEqual(d);
    const run = await json(fetch(`${s.base}/v1/runs/idem`));
    expect(run.run.steps).toBe(1);
  });

  it('refuses the same request_id with a different body: IDEMPOTENCY_CONFLICT, nothing recorded', async () => {
    const req = { run_id: 'idem-2', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED', request_id: 'r-9' };
    expect((await post(s.base, '/v1/route', req)).status).toBe(200);
    const before = routeCount(s.file);
    await expectProblem(await post(s.base, '/v1/route', { ...req, status: 'UNVERIFIED' }), 409, 'IDEMPOTENCY_CONFLICT', /r-9/);
    expect(routeCount(s.file)).toBe(before);
  });

  it('lists runs with filters and pages', async () => {
    const all = await json(fetch(`${s.base}/v1/runs`));
    expectMatches('RunsPage', all);
    const ids = all.runs.map((r: { run_id: string }) => r.run_id);
    expect(ids).toEqual(expect.arrayContaining(['build-1', 'gate-1']));
    const escalated = await json(fetch(`${s.base}/v1/runs?has_open_escalation=true`));
    expect(escalated.runs.map((r: { run_id: string }) => r.run_id)).toEqual(['gate-1']);
    expect((await json(fetch(`${s.base}/v1/runs?status=escalated`))).total).toBe(1);
    const gateFlow = await json(fetch(`${s.base}/v1/runs?flow=gate`));
    expect(gateFlow.runs.map((r: { run_id: string }) => r.run_id)).toEqual(['gate-1']);
    const page1 = await json(fetch(`${s.base}/v1/runs?limit=1`));
    expect(page1.runs).toHaveLength(1);
    expect(page1.next_cursor).toEqual(expect.any(String));
    const page2 = await json(fetch(`${s.base}/v1/runs?limit=1&cursor=${page1.next_cursor}`));
    expect(page2.runs[0].run_id).not.toBe(page1.runs[0].run_id);
    // An offset (what cursors were before) still reads as one.
    expect((await json(fetch(`${s.base}/v1/runs?limit=1&cursor=1`))).runs).toEqual(page2.runs);
    await expectProblem(await fetch(`${s.base}/v1/runs?status=sleeping`), 400, 'INVALID_REQUEST', /status must be/);
    await expectProblem(await fetch(`${s.base}/v1/runs?limit=0`), 400, 'INVALID_REQUEST', /limit/);
    await expectProblem(await fetch(`${s.base}/v1/runs?limit=abc`), 400, 'INVALID_REQUEST', /limit/);
  });

  it("shows a run's state, decisions with their tiers, and escalations; pages decisions", async () => {
    const run = await json(fetch(`${s.base}/v1/runs/build-1`));
    expectMatches('RunDetail', run);
    expect(run.decisions.map((d: { decision: { decision: string } }) => d.decision.decision)).toEqual(['CONTINUE', 'CONTINUE', 'LOOP', 'LOOP', 'CONTINUE']);
    expect(run.decisions[2]).toMatchObject({ seq: 3, step: 'build-step-3', status: 'UNVERIFIED', decision: { tier: 2, rule: 'microloop' } });
    expect(run.state.seq).toBe(5);
    expect(run.next_after).toBeNull();
    const page = await json(fetch(`${s.base}/v1/runs/build-1?after=2&limit=2`));
    expect(page.decisions.map((d: { seq: number }) => d.seq)).toEqual([3, 4]);
    expect(page.next_after).toBe(4);
    const gate = await json(fetch(`${s.base}/v1/runs/gate-1`));
    expect(gate.escalations).toEqual([expect.objectContaining({ escalation_id: 'esc-gate-1-4', status: 'open', step: 'gate-decide' })]);
  });

  it('audits a run, and answers why for a step', async () => {
    const audit = await json(fetch(`${s.base}/v1/runs/build-1/audit`));
    expectMatches('AuditReport', audit);
    expect(audit.steps.find((x: { step: string }) => x.step === 'build-step-3')).toMatchObject({ routes: 3, loops: 2 });
    const why = await json(fetch(`${s.base}/v1/runs/build-1/audit?why=build-step-3`));
    expectMatches('WhyReport', why);
    expect(why.entries.length).toBeGreaterThanOrEqual(3);
  });

  it('replays a run against the served flows: identical', async () => {
    const res = await fetch(`${s.base}/v1/runs/build-1/replay`, { method: 'POST' });
    expect(res.status).toBe(200);
    const r = await json(res);
    expectMatches('ReplayReport', r);
    expect(r).toMatchObject({ run_id: 'build-1', routes: 5, identical: true, divergences: [] });
    const limited = await post(s.base, '/v1/runs/build-1/replay', { max_divergences: 1 });
    expect(limited.status).toBe(200);
    await expectProblem(await post(s.base, '/v1/runs/build-1/replay', { max: 1 }), 400, 'INVALID_REQUEST', /\$\.max/);
  });

  it('verifies the ledger, lists flows, answers health, stats and Prometheus metrics', async () => {
    const v = await json(fetch(`${s.base}/v1/verify`));
    expectMatches('VerifyReport', v);
    expect(v.ok).toBe(true);
    const flows = await json(fetch(`${s.base}/v1/flows`));
    expectMatches('FlowsList', flows);
    expect(flows.flows.map((f: { flow: string }) => f.flow)).toEqual(['build', 'deploy', 'gate', 'plan', 'rebase', 'review', 'signal']);
    const h = await json(fetch(`${s.base}/v1/healthz`));
    expectMatches('Health', h);
    const stats = await json(fetch(`${s.base}/v1/stats`));
    expectMatches('LedgerStats', stats);
    expect(stats.by_tier_rule).toEqual(expect.arrayContaining([expect.objectContaining({ tier: 2, rule: 'microloop', count: 2 })]));
    expect(stats.cost_over_time.length).toBeGreaterThan(0);
    const m = await fetch(`${s.base}/v1/metrics`);
    expect(m.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await m.text();
    expect(text).toMatch(/navkernel_routes_total\{tier="2",rule="microloop",decision="LOOP"\} 2/);
    expect(text).toMatch(/navkernel_route_duration_seconds_bucket\{le="0\.005"\} \d+/);
    expect(text).toMatch(/navkernel_llm_cost_usd_total 0/);
  });

  it('serves the OpenAPI 3.1 document, the same as the checked-in schemas/openapi.json', async () => {
    const served = await json(fetch(`${s.base}/openapi.json`));
    expect(served).toEqual(buildOpenApi());
    expect(served.openapi).toBe('3.1.0');
    expect(readFileSync(path.join(schemasDir(), 'openapi.json'), 'utf8'), 'schemas/openapi.json drifted: run `npm run schemas`').toBe(renderOpenApi());
    for (const p of ['/v1/route', '/v1/runs', '/v1/runs/{id}', '/v1/runs/{id}/audit', '/v1/runs/{id}/replay', '/v1/escalations/{id}/resolve', '/v1/verify', '/v1/flows', '/v1/healthz', '/v1/metrics']) {
      expect(served.paths[p], p).toBeDefined();
    }
  });

  describe('bad input: the right status, a problem document naming what is wrong, nothing recorded, still serving', () => {
    const cases: [string, () => Promise<Response>, number, string, RegExp][] = [
      ['malformed JSON', () => post(s.base, '/v1/route', '{"run_id": "x",'), 400, 'INVALID_JSON', /not valid JSON/],
      // The refusal does not quote the body back (V8's message would: it may hold a secret).
      ['a bare word', () => post(s.base, '/v1/route', 'sk-live-secret-value'), 400, 'INVALID_JSON', /^the body is not valid JSON: Unexpected token 's'$/],
      ['an empty JSON body', () => post(s.base, '/v1/route', ''), 400, 'INVALID_JSON', /JSON/],
      ['a wrong content type', () => fetch(`${s.base}/v1/route`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }), 415, 'UNSUPPORTED_MEDIA_TYPE', /application\/json.*text\/plain/],
      ['a form body', () => fetch(`${s.base}/v1/route`, { method: 'POST', body: new URLSearchParams({ a: '1' }) }), 415, 'UNSUPPORTED_MEDIA_TYPE', /application\/json/],
      ['an oversized body', () => post(s.base, '/v1/route', { run_id: 'big', flow: 'build', step_completed: 'build-step-1', status: 'x'.repeat(2 * 1024 * 1024) }), 413, 'INPUT_TOO_LARGE', /too large|limit/i],
      ['a body nested too deep', () => post(s.base, '/v1/route', `{"run_id":"deep","flow":"build","step_completed":"build-step-1","status":"VERIFIED","forensics":{"x":${'['.repeat(100)}${']'.repeat(100)}}}`), 413, 'INPUT_TOO_LARGE', /depth|deep|nest/i],
      ['a request failing the schema', () => post(s.base, '/v1/route', { run_id: 'bad', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED', forensics: { tests: { failed: -1 } } }), 422, 'INVALID_FORENSICS', /\$\.forensics\.tests\.failed/],
      ['an unknown flow', () => post(s.base, '/v1/route', { run_id: 'bad', flow: 'nope', step_completed: 'x', status: 'VERIFIED' }), 400, 'INVALID_REQUEST', /nope/],
      ['an unknown top-level field', () => post(s.base, '/v1/route', { run_id: 'bad', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED', stauts: 1 }), 400, 'INVALID_REQUEST', /stauts/],
      ['a JSON array', () => post(s.base, '/v1/route', [1, 2]), 400, 'INVALID_REQUEST', /\$/],
      ['a __proto__ key', () => post(s.base, '/v1/route', '{"run_id":"p","__proto__":{"x":1}}'), 400, 'INVALID_JSON', /prototype/],
      ['an unknown run', () => fetch(`${s.base}/v1/runs/no-such-run`), 404, 'UNKNOWN_RUN', /no-such-run/],
      ['an unknown run to audit', () => fetch(`${s.base}/v1/runs/no-such-run/audit`), 404, 'UNKNOWN_RUN', /no-such-run/],
      ['an unknown run to replay', () => fetch(`${s.base}/v1/runs/no-such-run/replay`, { method: 'POST' }), 404, 'UNKNOWN_RUN', /no-such-run/],
      ['an unknown escalation', () => post(s.base, '/v1/escalations/esc-nope/resolve', { decision: 'CONTINUE', next: 'gate-done', by: 'ana', reason: 'ok' }), 404, 'UNKNOWN_ESCALATION', /esc-nope/],
      ['a resolve the graph forbids (not a step)', () => post(s.base, '/v1/escalations/esc-gate-1-4/resolve', { decision: 'CONTINUE', next: 'deploy-done', by: 'ana', reason: 'ok' }), 422, 'INVALID_RESOLUTION', /deploy-done is not in flow gate/],
      ['a resolve the graph forbids (not injectable)', () => post(s.base, '/v1/escalations/esc-gate-1-4/resolve', { decision: 'INJECT_FLOW', next: 'build', by: 'ana', reason: 'ok' }), 422, 'INVALID_RESOLUTION', /not injectable/],
      ['a resolve with a decision outside the vocabulary', () => post(s.base, '/v1/escalations/esc-gate-1-4/resolve', { decision: 'ESCALATE', by: 'ana', reason: 'ok' }), 422, 'INVALID_RESOLUTION', /must be one of/],
      ['a resolve without by', () => post(s.base, '/v1/escalations/esc-gate-1-4/resolve', { decision: 'TERMINATE', reason: 'ok' }), 422, 'INVALID_RESOLUTION', /\$\.by/],
      ['an unknown endpoint', () => fetch(`${s.base}/v1/nothing`), 404, 'NOT_FOUND', /\/v1\/nothing/],
    ];
    for (const [name, send, status, code, detail] of cases) {
      it(name, async () => {
        const before = routeCount(s.file);
        const openBefore = (await json(fetch(`${s.base}/v1/runs/gate-1`))).escalations;
        await expectProblem(await send(), status, code, detail);
        expect(routeCount(s.file)).toBe(before);
        expect((await json(fetch(`${s.base}/v1/runs/gate-1`))).escalations).toEqual(openBefore);
        expect((await fetch(`${s.base}/v1/healthz`)).status).toBe(200);
      });
    }
  });

  it('survives a fuzz of request bodies: every answer is a decision or a problem document, never a 500', async () => {
    const before = routeCount(s.file);
    const anyJson = fc.jsonValue({ maxDepth: 4 });
    const almost = fc.record({ run_id: fc.string(), flow: fc.constantFrom('build', 'gate', 'x'), step_completed: fc.string(), status: fc.string() }, { requiredKeys: [] });
    const bodies = fc.oneof(
      anyJson.map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 200 }),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
      almost.map((v) => JSON.stringify(v)),
    );
    let routed = 0;
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const res = await post(s.base, '/v1/route', body);
        if (res.status === 200) {
          routed++;
          expectMatches('Decision', await json(res));
          return;
        }
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expectMatches('Problem', await json(res));
      }),
      { numRuns: 300, seed: 15 },
    );
    expect(routeCount(s.file)).toBe(before + routed);
    expect((await fetch(`${s.base}/v1/healthz`)).status).toBe(200);
  });

  it('resolves an open escalation through the API, once', async () => {
    const res = await post(s.base, '/v1/escalations/esc-gate-1-4/resolve', { decision: 'CONTINUE', next: 'gate-done', by: 'ana', reason: 'evidence reviewed by hand' });
    expect(res.status).toBe(200);
    const e = await json(res);
    expectMatches('Escalation', e);
    expect(e).toMatchObject({ status: 'resolved', resolution: { decision: 'CONTINUE', next_step_id: 'gate-done', by: 'ana' } });
    await expectProblem(
      await post(s.base, '/v1/escalations/esc-gate-1-4/resolve', { decision: 'TERMINATE', by: 'bo', reason: 'late' }),
      409,
      'ESCALATION_ALREADY_RESOLVED',
      /already resolved by ana/,
    );
    expect((await json(fetch(`${s.base}/v1/runs?has_open_escalation=true`))).runs).toEqual([]);
  });

  it('serialises the routes of one run and runs different runs in parallel', async () => {
    const steps = ['build-step-1', 'build-step-2'];
    // The runner alternates two steps whatever the kernel says: it says it restarts from each (docs/run-states.md).
    const requests = Array.from({ length: 40 }, (_, i) => ({ run_id: `par-${i % 4}`, flow: 'build', step_completed: steps[Math.floor(i / 4) % 2]!, status: 'VERIFIED', restart: { reason: 'alternating' } }));
    const answers = await Promise.all(requests.map((r) => post(s.base, '/v1/route', r).then(async (res) => ({ status: res.status, body: await json(res) }))));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    for (let run = 0; run < 4; run++) {
      const detail = await json(fetch(`${s.base}/v1/runs/par-${run}`));
      expect(detail.decisions.map((d: { seq: number }) => d.seq)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
      // Arrival order is kept: request i of the run got seq i + 1.
      const mine = answers.filter((_, i) => i % 4 === run).map((a) => a.body.seq);
      expect(mine).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    }
  });
});

describe('safe by default', () => {
  it('refuses to listen beyond loopback without a token', async () => {
    const s = await startServer();
    try {
      await expect(s.service.listen('0.0.0.0', 0)).rejects.toThrow(/refusing to listen on 0\.0\.0\.0 without --token/);
    } finally {
      await s.close();
    }
    expect(isLoopback('127.0.0.1') && isLoopback('::1') && isLoopback('localhost') && isLoopback('127.1.2.3')).toBe(true);
    expect(isLoopback('0.0.0.0') || isLoopback('10.0.0.1') || isLoopback('::')).toBe(false);
  });

  it('with --token, /v1 needs the bearer token (missing or wrong: 401, nothing recorded); healthz, the UI and openapi.json do not', async () => {
    const s = await startServer({ token: 's3cret-token' });
    try {
      const req = { run_id: 't', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' };
      await expectProblem(await post(s.base, '/v1/route', req), 401, 'UNAUTHORIZED', /Authorization: Bearer/);
      await expectProblem(await post(s.base, '/v1/route', req, { authorization: 'Bearer wrong' }), 401, 'UNAUTHORIZED', /wrong/);
      await expectProblem(await post(s.base, '/v1/route', req, { authorization: 'Basic czNjcmV0LXRva2Vu' }), 401, 'UNAUTHORIZED');
      await expectProblem(await fetch(`${s.base}/v1/runs`), 401, 'UNAUTHORIZED');
      await expectProblem(await fetch(`${s.base}/v1/metrics`), 401, 'UNAUTHORIZED');
      expect(routeCount(s.file)).toBe(0);
      expect((await fetch(`${s.base}/v1/healthz`)).status).toBe(200);
      expect((await fetch(`${s.base}/openapi.json`)).status).toBe(200);
      expect((await fetch(`${s.base}/`)).status).toBe(200);
      const ok = await post(s.base, '/v1/route', req, { authorization: 'Bearer s3cret-token' });
      expect(ok.status).toBe(200);
      expect(routeCount(s.file)).toBe(1);
      // The token never shows up in what the server answers.
      const metrics = await (await fetch(`${s.base}/v1/metrics`, { headers: { authorization: 'Bearer s3cret-token' } })).text();
      expect(metrics).not.toContain('s3cret');
    } finally {
      await s.close();
    }
  });

  it('closes gracefully: a route in flight is answered and recorded, new connections are refused', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inTier3 = new Promise<void>((r) => (entered = r));
    const slow = async () => {
      entered();
      await gate;
      return { rejected: [], calls: [], cost_usd: 0 };
    };
    const s = await startServer({ arbiter: slow });
    try {
      const inflight = post(s.base, '/v1/route', { run_id: 'slow', flow: 'gate', step_completed: 'gate-decide', status: 'HOLD' });
      await inTier3;
      const closing = s.service.close();
      await new Promise((r) => setTimeout(r, 50));
      await expect(fetch(`${s.base}/v1/healthz`)).rejects.toThrow();
      release();
      const res = await inflight;
      expect(res.status).toBe(200);
      expect((await json(res)).seq).toBe(1);
      await closing;
      expect(routeCount(s.file)).toBe(1);
    } finally {
      release();
      await s.close();
    }
  });

  it('applies the per-request time limit with a TIMEOUT problem', async () => {
    const slow = async () => {
      await new Promise((r) => setTimeout(r, 400));
      return { rejected: [], calls: [], cost_usd: 0 };
    };
    const s = await startServer({ requestTimeoutMs: 100, arbiter: slow });
    try {
      // Tier 3 is consulted for a status no rule knows; it takes longer than the limit.
      const res = await post(s.base, '/v1/route', { run_id: 'slow', flow: 'gate', step_completed: 'gate-decide', status: 'HOLD' });
      await expectProblem(res, 503, 'TIMEOUT', /100 ms/);
      expect((await fetch(`${s.base}/v1/healthz`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
