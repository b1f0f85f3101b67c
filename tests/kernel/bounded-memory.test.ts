// Issue 12 item 10 / issue 13 item 6: without a ledger, memory is bounded by documented limits, and what
// happens past them is defined.
import { describe, expect, it } from 'vitest';
import { MemoryStore, createKernel } from '../../src/kernel/index.js';
import { testFlows } from '../support/kernel-fixtures.js';

// The runner reports `check` again and again: it says it restarts from it (docs/run-states.md).
const req = (run_id: string, request_id?: string, status = 'FAILED') => ({
  run_id, flow: 'build', step_completed: 'check', status, ...(request_id ? { request_id } : {}), restart: { reason: 'the test re-runs check' },
});

describe('MemoryStore limits', () => {
  it('keeps at most maxRuns runs; the least recently routed is forgotten and starts afresh when routed again', async () => {
    const store = new MemoryStore({ maxRuns: 3 });
    const k = createKernel({ flows: testFlows(), store, maxLiveRuns: 2 });
    for (const r of ['a', 'b', 'c']) await k.route(req(r));
    await k.route(req('a')); // a is now the most recently routed
    await k.route(req('d')); // forgets b
    expect(store.size).toBe(3);
    expect(await store.loadRun('b')).toBeUndefined();
    expect((await store.loadRun('a'))?.seq).toBe(2);
    expect(k.liveRuns).toBeLessThanOrEqual(2);
    const again = await k.route(req('b'));
    expect(again.seq).toBe(1);
    // A key of a forgotten run does not answer for the run routed afresh.
    const s2 = new MemoryStore({ maxRuns: 1 });
    const k2 = createKernel({ flows: testFlows(), store: s2, maxLiveRuns: 1 });
    await k2.route(req('x', 'k1'));
    await k2.route(req('y', 'k1'));
    expect((await k2.route(req('x', 'k1'))).seq).toBe(1);
    await k2.close();
    await k.close();
  });

  it('keeps the routing order when a run is routed several times in a row', async () => {
    const store = new MemoryStore({ maxRuns: 3 });
    const k = createKernel({ flows: testFlows(), store, maxLiveRuns: 2 });
    // a, b, then a three times in a row (the newest already), then c and d: b is the least recently routed.
    for (const r of ['a', 'b', 'a', 'a', 'a', 'c', 'd']) await k.route(req(r));
    expect(await store.loadRun('b')).toBeUndefined();
    expect((await store.loadRun('a'))?.seq).toBe(4);
    // Then a again after others: c is forgotten next, not a.
    await k.route(req('a'));
    await k.route(req('e'));
    expect(await store.loadRun('c')).toBeUndefined();
    expect((await store.loadRun('a'))?.seq).toBe(5);
    expect(k.liveRuns).toBeLessThanOrEqual(2);
    await k.close();
  });

  it('keeps the most recent maxRequestIds idempotency keys; an older key is routed as new', async () => {
    const store = new MemoryStore({ maxRequestIds: 2 });
    const k = createKernel({ flows: testFlows(), store });
    const first = await k.route(req('r', 'q1'));
    await k.route(req('r', 'q2'));
    expect(await k.route(req('r', 'q2'))).toMatchObject({ seq: 2 }); // still remembered
    await k.route(req('r', 'q3'));
    expect(first.seq).toBe(1);
    expect((await k.route(req('r', 'q1'))).seq).toBe(4); // q1 was forgotten: a new route
    await k.close();
  });

  it('holds flat with 20,000 runs routed through a 1,000-run store', async () => {
    const store = new MemoryStore({ maxRuns: 1_000, maxRequestIds: 500 });
    const k = createKernel({ flows: testFlows(), store, maxLiveRuns: 100 });
    for (let i = 0; i < 20_000; i++) await k.route(req(`run-${i}`, `q-${i}`, 'VERIFIED'));
    expect(store.size).toBe(1_000);
    expect(store.requestIds).toBe(500);
    expect(k.liveRuns).toBeLessThanOrEqual(100);
    await k.close();
  });
});
