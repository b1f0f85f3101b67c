// RunReader: what audit, replay, verify, export and migrate read (routes, replay rows, the run register, …),
// written through a kernel, read back through other handles.
import assert from 'node:assert/strict';
import type { Decision } from '../contracts/decision.js';
import type { Ledger, ReplayTuple } from '../contracts/ports.js';
import type { RouteRequest } from '../contracts/route-request.js';
import { IdempotencyConflictError } from '../contracts/store-errors.js';
import { HARSH_SCENARIO } from '../demo/scenario.js';
import { simulate } from '../demo/simulate.js';
import { createKernel } from '../kernel/kernel.js';
import { MemoryStore } from '../kernel/memory-store.js';
import { verifyLedger } from '../ledger/verify.js';
import { auditRun, listRuns } from '../runs/audit.js';
import { replayRun } from '../runs/replay.js';
import { routeRecord, sampleFlows, scriptedArbiter, stateAt, steppingClock } from './fixtures.js';
import { check, type StoreUnderTest, type TestApi } from './harness.js';
import { STORE_PORTS } from './store-ports.js';

export function runReaderChecks(api: TestApi, store: StoreUnderTest<Ledger>): void {
  api.describe('RunReader', () => {
    check(api, store, 'has every method of the RunReader port', async ({ fresh }) => {
      const s = (await fresh()) as unknown as Record<string, unknown>;
      for (const m of STORE_PORTS.RunReader) assert.equal(typeof s[m], 'function', `RunReader.${m}`);
      assert.equal(typeof s.location, 'string');
    });

    check(api, store, 'records what an in-memory kernel decides, survives a restart, and verifies and replays', async ({ fresh, handle }) => {
      const flows = await sampleFlows();
      const s = await fresh();
      const ref: { request: RouteRequest; decision: Decision }[] = [];
      const mem = createKernel({ flows, store: new MemoryStore(), clock: steppingClock(), arbiter: scriptedArbiter() });
      await simulate(mem, HARSH_SCENARIO, { onStep: (x) => ref.push(structuredClone(x)) });
      await mem.close();
      const clock = steppingClock();
      const half = Math.floor(ref.length / 2);
      let k = createKernel({ flows, store: s, clock, arbiter: scriptedArbiter() });
      for (let i = 0; i < half; i++) assert.deepEqual(await k.route(ref[i]!.request), ref[i]!.decision);
      await k.close();
      k = createKernel({ flows, store: await handle(), clock, arbiter: scriptedArbiter() });
      for (let i = half; i < ref.length; i++) assert.deepEqual(await k.route(ref[i]!.request), ref[i]!.decision);
      await k.close();
      const r = await handle();
      const report = await verifyLedger(r);
      assert.deepEqual(report.issues, []);
      assert.equal(report.routes, ref.length);
      const runs = await listRuns(r);
      assert.equal(runs.length, new Set(ref.map((x) => x.request.run_id)).size);
      for (const run of runs) {
        assert.deepEqual((await replayRun(r, run.run_id, flows)).divergences, [], run.run_id);
        assert.equal((await auditRun(r, run.run_id)).run.steps, ref.filter((x) => x.request.run_id === run.run_id).length, run.run_id);
      }
    });

    check(api, store, 'reads each route with its flows_hash for replay, in chunks, and the run’s distinct flows hashes in first-use order', async ({ fresh }) => {
      const flows = await sampleFlows();
      const s = await fresh();
      const [a, b, c] = ['a', 'b', 'c'].map((x) => x.repeat(64));
      await s.append(routeRecord('other', 1, { flows_hash: c! }), stateAt('other', 1));
      await s.append(routeRecord('other', 2, { flows_hash: b! }), stateAt('other', 2));
      const used = [a, a, b, a, c];
      for (const [i, h] of used.entries()) await s.append(routeRecord('f', i + 1, { flows_hash: h! }), stateAt('f', i + 1));
      const tuples: ReplayTuple[] = [];
      for await (const chunk of s.replayChunks('f', 0, 2)) tuples.push(...chunk);
      assert.deepEqual(tuples.map((t) => [t[0], t[5]]), used.map((h, i) => [i + 1, h]));
      assert.deepEqual(await s.runFlowsHashes('f'), [a, b, c]);
      assert.deepEqual((await s.routes('f', 2, 2)).map((r) => r.seq), [3, 4]);
      const whole = await replayRun(s, 'f', flows);
      assert.equal(whole.identical, false);
      assert.equal(whole.routes, used.length);
      assert.deepEqual(whole.flows_hashes_recorded, [a, b, c]);
    });

    check(api, store, 'answers a repeated request_id with the recorded decision, and refuses the same id with another body', async ({ fresh, handle }) => {
      const flows = await sampleFlows();
      const k = createKernel({ flows, store: await fresh(), clock: steppingClock() });
      const req: RouteRequest = { run_id: 'idem', flow: 'build', step_completed: 'build-step-1', status: 'UNVERIFIED', request_id: 'req-1', forensics: { tests: { passed: 1, failed: 3 } } };
      const first = await k.route(req);
      assert.deepEqual(await k.route(structuredClone(req)), first);
      await assert.rejects(k.route({ ...req, status: 'VERIFIED' }), (e: unknown) => e instanceof IdempotencyConflictError && e.code === 'IDEMPOTENCY_CONFLICT');
      await k.close();
      assert.equal((await (await handle()).routes('idem', 0, 10)).length, 1);
    });

    check(api, store, 'two kernels on one run (two handles) route it alternately without a gap, a duplicate or a broken chain', async ({ fresh, handle }) => {
      const flows = await sampleFlows();
      const ka = createKernel({ flows, store: await fresh(), clock: steppingClock() });
      const kb = createKernel({ flows, store: await handle(), clock: steppingClock() });
      const seqs: number[] = [];
      for (let i = 0; i < 12; i++) {
        const step = `build-step-${(i % 3) + 1}`;
        const d = await (i % 2 === 0 ? ka : kb).route({ run_id: 'both', flow: 'build', step_completed: step, status: 'VERIFIED', forensics: { tests: { passed: 1, failed: 0 } }, restart: { reason: 'alternating kernels' } });
        seqs.push(d.seq!);
      }
      await ka.close();
      await kb.close();
      assert.deepEqual(seqs, Array.from({ length: 12 }, (_, i) => i + 1));
      assert.deepEqual((await verifyLedger(await handle())).issues, []);
    });

    check(api, store, 'keeps a run register with one chained entry per run, each entry’s first_hash the run’s first route hash', async ({ fresh, handle }) => {
      const flows = await sampleFlows();
      const k = createKernel({ flows, store: await fresh(), clock: steppingClock(), arbiter: scriptedArbiter() });
      await simulate(k, HARSH_SCENARIO, {});
      await k.close();
      const r = await handle();
      const ids = await r.runIds();
      const register = await r.runRegister();
      assert.deepEqual(register.map((e) => e.run_id).sort(), [...ids].sort());
      assert.equal(new Set(register.map((e) => e.ordinal)).size, register.length);
      for (const e of register) assert.equal(e.first_hash, await r.routeHash(e.run_id, 1), e.run_id);
      assert.deepEqual((await verifyLedger(r, { repair: false })).issues, []);
    });
  });
}
