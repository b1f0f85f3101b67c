// createRecordedRouter (what replay routes with) against createKernel's route() on the same requests: the same
// decisions byte for byte, tier 3 included, and the same answers where route() refuses or repeats.
import { describe, expect, it } from 'vitest';
import type { ArbiterPort, Decision, RouteRecord, RouteRequest } from '../../src/contracts/index.js';
import { IdempotencyConflictError, ValidationError } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { MemoryStore, createKernel, createRecordedRouter } from '../../src/kernel/index.js';
import { sampleFlows, scriptedArbiter, steppingClock } from '../ledger/helpers.js';

/** The scripted arbiter, failing at every third seq and declining at every fifth, so tiers 4 and 5 follow tier 3 too. */
function unevenArbiter(): ArbiterPort {
  const scripted = scriptedArbiter();
  return async (input) => {
    if (input.seq % 3 === 0) throw new Error(`arbiter down at seq ${input.seq}`);
    if (input.seq % 5 === 0) return { skipped: { rule: 'arbiter_declined', reason: 'declined' }, rejected: [], calls: [], cost_usd: 0 };
    return scripted(input);
  };
}

const route = async (r: ReturnType<typeof createRecordedRouter>, req: RouteRequest, ts: string): Promise<Decision> => r.route(req, ts);

describe('createRecordedRouter', () => {
  it('decides every route of the harsh scenario exactly as route() did, tier-3 answers included', async () => {
    const flows = await sampleFlows();
    const store = new MemoryStore({ keepRecords: true });
    const kernel = createKernel({ flows, store, clock: steppingClock(), arbiter: unevenArbiter() });
    await simulate(kernel, HARSH_SCENARIO);
    await kernel.close();
    const records: RouteRecord[] = store.records;
    expect(records.length).toBeGreaterThan(100);
    expect(records.some((r) => r.decision.tier === 3)).toBe(true);
    expect(records.some((r) => r.decision.tier >= 4)).toBe(true);

    const router = createRecordedRouter({ flows, arbiter: unevenArbiter() });
    const differing: number[] = [];
    let asynchronous = 0;
    for (const [i, rec] of records.entries()) {
      const answer = router.route(rec.request, rec.ts);
      if (answer instanceof Promise) asynchronous++;
      const now = await answer;
      if (JSON.stringify(now) !== JSON.stringify(rec.decision)) differing.push(i);
    }
    router.close();
    expect(differing).toEqual([]);
    // Tier 3 is the one asynchronous step (asked whenever tiers 1 and 2 do not decide); the rest decide inside the call.
    expect(asynchronous).toBe(records.filter((r) => r.decision.tier >= 3).length);
  });

  it('refuses what route() refuses, and the run goes on from where it was', async () => {
    const flows = await sampleFlows();
    const ts = '2025-01-01T00:00:00.000Z';
    const kernel = createKernel({ flows, validate: false, redact: false, clock: () => Date.parse(ts) });
    const router = createRecordedRouter({ flows });
    // The runner reports build-step-3 again and again: it says it restarts from it (docs/run-states.md).
    const first: RouteRequest = { run_id: 'r', flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', forensics: { lint: { errors: 3, fixable: 3 } }, restart: { reason: 're-run' } };
    const unknown: RouteRequest = { ...first, step_completed: 'no-such-step' };
    for (const req of [first, unknown, first]) {
      const want = await kernel.route(req).then((d) => JSON.stringify(d), (e: unknown) => e);
      const got = await route(router, req, ts).then((d) => JSON.stringify(d), (e: unknown) => e);
      if (want instanceof Error) {
        expect(want).toBeInstanceOf(ValidationError);
        expect(got).toBeInstanceOf(ValidationError);
        expect([(want as ValidationError).code, (got as ValidationError).code]).toEqual(['INVALID_REQUEST', 'INVALID_REQUEST']);
        expect((got as Error).message).toBe(want.message);
      } else {
        expect(got).toBe(want);
      }
    }
    // The refused route took no seq on either: the next one after the two good routes is seq 3.
    expect(JSON.parse((await route(router, { ...first, status: 'VERIFIED' }, ts).then(JSON.stringify)) as string).seq).toBe(3);
    await kernel.close();
    router.close();
  });

  it('answers a repeated request_id with the earlier decision, and a changed one with IdempotencyConflictError, as route() does', async () => {
    const flows = await sampleFlows();
    const ts = '2025-01-01T00:00:00.000Z';
    const kernel = createKernel({ flows, validate: false, redact: false, clock: () => Date.parse(ts) });
    const router = createRecordedRouter({ flows });
    const req: RouteRequest = { run_id: 'r', flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', request_id: 'a' };
    const same = { ...req };
    const changed: RouteRequest = { ...req, status: 'VERIFIED' };
    const next: RouteRequest = { ...req, request_id: 'b', status: 'VERIFIED' };
    const answers = async (send: (r: RouteRequest) => Promise<Decision>) => {
      const out: unknown[] = [];
      for (const r of [req, same, changed, next]) out.push(await send(r).then((d) => JSON.stringify(d), (e: unknown) => (e instanceof IdempotencyConflictError ? 'conflict' : e)));
      return out;
    };
    const want = await answers((r) => kernel.route(r));
    const got = await answers((r) => route(router, r, ts));
    expect(want[1]).toBe(want[0]);
    expect(want[2]).toBe('conflict');
    expect(JSON.parse(want[3] as string).seq).toBe(2);
    expect(got).toEqual(want);
    await kernel.close();
    router.close();
  });
});
