import { describe, expect, it } from 'vitest';
import { createKernel, MemoryStore } from '../../src/kernel/index.js';
import { req, testFlows } from '../support/kernel-fixtures.js';

describe('run actors', () => {
  it('restores an evicted run from its stored state, with the same counters', async () => {
    const store = new MemoryStore();
    const k = createKernel({ flows: testFlows(), store, maxLiveRuns: 1 });
    expect(await k.route(req('check', 'UNVERIFIED'))).toMatchObject({ decision: 'LOOP', iteration: 1 });
    await k.route({ ...req('write', 'VERIFIED'), run_id: 'other' }); // evicts run-1
    expect(k.liveRuns).toBe(1);
    expect(await k.route(req('check', 'UNVERIFIED'))).toMatchObject({ decision: 'LOOP', iteration: 2, seq: 2 });
  });

  it('gives a restarted kernel on the same store the answer the first would have given', async () => {
    const store = new MemoryStore();
    const clock = () => 0; // decisions carry the kernel clock's ts
    const before = createKernel({ flows: testFlows(), store, clock });
    await before.route(req('linear', 'FAILED', { forensics: { lint: { errors: 1 } } }));
    const restarted = createKernel({ flows: testFlows(), store, clock });
    const uninterrupted = createKernel({ flows: testFlows(), clock });
    await uninterrupted.route(req('linear', 'FAILED', { forensics: { lint: { errors: 1 } } }));
    // Both runs escalated: the restarted kernel restores the run awaiting its person, as the first kernel holds it.
    const next = req('linear', 'FAILED', { forensics: { lint: { errors: 1 } } });
    const refusal = (e: unknown) => ({ code: (e as { code: string }).code, message: (e as Error).message });
    expect(await restarted.route(next).catch(refusal)).toEqual(await uninterrupted.route(next).catch(refusal));
    expect(await restarted.route(next).catch(refusal)).toMatchObject({ code: 'ESCALATION_OPEN' });
    // And where a routing run stands: sent to check, a restarted kernel refuses review as the first would.
    await before.route(req('write', 'VERIFIED', { run_id: 'run-2' }));
    const again = createKernel({ flows: testFlows(), store, clock });
    expect(await again.route(req('review', 'APPROVED', { run_id: 'run-2' })).catch(refusal)).toEqual(await before.route(req('review', 'APPROVED', { run_id: 'run-2' })).catch(refusal));
    expect(await again.route(req('review', 'APPROVED', { run_id: 'run-2' })).catch(refusal)).toMatchObject({ code: 'STEP_MISMATCH', message: expect.stringContaining('build/check') });
    expect(await again.route(req('check', 'VERIFIED', { run_id: 'run-2' }))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'review' });
  });

  it('returns the recorded decision for a repeated request_id and records nothing new', async () => {
    const store = new MemoryStore({ keepRecords: true });
    const k = createKernel({ flows: testFlows(), store });
    const first = await k.route(req('check', 'UNVERIFIED', { request_id: 'step-42' }));
    const again = await k.route(req('check', 'UNVERIFIED', { request_id: 'step-42' }));
    expect(again).toEqual(first);
    expect(store.records).toHaveLength(1);
    expect((await k.runState('run-1'))!.loops).toEqual({ 'build/check': 1 });
  });

  it('leaves the run as recorded when the store fails to append', async () => {
    const store = new MemoryStore();
    const k = createKernel({ flows: testFlows(), store });
    await k.route(req('check', 'UNVERIFIED'));
    const append = store.append.bind(store);
    store.append = () => {
      throw new Error('disk full');
    };
    await expect(k.route(req('check', 'UNVERIFIED'))).rejects.toThrow('disk full');
    store.append = append;
    expect(await k.route(req('check', 'UNVERIFIED'))).toMatchObject({ decision: 'LOOP', iteration: 2, seq: 2 });
  });
});
