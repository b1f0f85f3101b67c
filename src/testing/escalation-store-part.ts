// EscalationStore: escalations and their resolution by a person, the store's one write besides append.
import assert from 'node:assert/strict';
import type { Ledger } from '../contracts/ports.js';
import { HARSH_SCENARIO } from '../demo/scenario.js';
import { simulate } from '../demo/simulate.js';
import { createKernel } from '../kernel/kernel.js';
import { verifyLedger } from '../ledger/verify.js';
import { auditRun, listRuns, whyStep } from '../runs/audit.js';
import { resolveEscalation } from '../runs/resolve.js';
import { sampleFlows, steppingClock } from './fixtures.js';
import { check, type StoreUnderTest, type TestApi } from './harness.js';
import { ESCALATION_READER, STORE_PORTS } from './store-ports.js';

/** Resolves to the error's fields when `p` rejects, so a check can compare them. */
const rejection = (p: Promise<unknown>): Promise<Record<string, unknown>> =>
  p.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e as Record<string, unknown>,
  );

export function escalationStoreChecks(api: TestApi, store: StoreUnderTest<Ledger>): void {
  api.describe('EscalationStore', () => {
    check(api, store, 'has every method of the EscalationStore port (the reader and resolveEscalation)', async ({ fresh }) => {
      const s = (await fresh()) as unknown as Record<string, unknown>;
      for (const m of STORE_PORTS.EscalationStore) assert.equal(typeof s[m], 'function', `EscalationStore.${m}`);
      assert.ok(ESCALATION_READER.every((m) => (STORE_PORTS.EscalationStore as readonly string[]).includes(m)));
    });

    check(api, store, 'holds whole runs: a refused route leaves the store as it was; a resolution sends the run on from another handle', async ({ fresh, handle }) => {
      const flows = await sampleFlows();
      const s = await fresh();
      const k = createKernel({ flows, store: s, clock: steppingClock() });
      const req = (step: string, status: string) => ({ run_id: 'held', flow: 'build', step_completed: step, status });
      const snapshot = async () => ({ state: await s.loadRun('held'), routes: (await s.routes('held', 0, 100)).length });
      await k.route(req('build-step-1', 'VERIFIED'));
      let before = await snapshot();
      const mismatch = await rejection(k.route(req('build-review', 'APPROVED')));
      assert.equal(mismatch.code, 'STEP_MISMATCH');
      assert.deepEqual(await snapshot(), before);
      await k.route(req('build-step-2', 'VERIFIED'));
      const esc = await k.route({ ...req('build-step-3', 'UNVERIFIED'), iteration: { current: 3 }, forensics: { concerns: [{ severity: 'HIGH', description: 'no tests' }] } });
      assert.equal(esc.decision, 'ESCALATE');
      before = await snapshot();
      assert.equal(before.state?.lifecycle, 'awaiting_person');
      assert.equal(before.state?.escalation_id, esc.escalation_id);
      const open = await rejection(k.route(req('build-review', 'APPROVED')));
      assert.deepEqual([open.code, open.escalation_id], ['ESCALATION_OPEN', esc.escalation_id]);
      assert.deepEqual(await snapshot(), before);
      const other = await handle();
      await resolveEscalation(other, flows, { escalation_id: esc.escalation_id!, decision: 'CONTINUE', next: 'build-review', by: 'ada', reason: 'checked' });
      await other.close();
      assert.equal((await rejection(k.route(req('build-done', 'DONE')))).code, 'STEP_MISMATCH');
      const on = await k.route(req('build-review', 'APPROVED'));
      assert.deepEqual([on.decision, on.next_step_id, on.seq], ['CONTINUE', 'build-done', 4]);
      assert.equal((await k.route(req('build-done', 'DONE'))).decision, 'TERMINATE');
      before = await snapshot();
      assert.equal((await rejection(k.route(req('build-done', 'DONE')))).code, 'RUN_ENDED');
      assert.deepEqual(await snapshot(), before);
      await k.close();
      const again = createKernel({ flows, store: await handle(), clock: steppingClock() });
      assert.equal((await rejection(again.route(req('build-step-1', 'VERIFIED')))).code, 'RUN_ENDED');
      await again.close();
    });

    check(api, store, 'resolves an escalation once, and shows it in audit and why', async ({ fresh, handle }) => {
      const flows = await sampleFlows();
      const k = createKernel({ flows, store: await fresh(), clock: steppingClock() });
      await simulate(k, HARSH_SCENARIO, {});
      await k.close();
      const r = await handle();
      const run = (await listRuns(r)).find((x) => x.open_escalations > 0);
      assert.ok(run, 'the harsh scenario leaves an open escalation');
      const esc = (await auditRun(r, run.run_id)).escalations.find((e) => e.status === 'open')!;
      assert.equal(await r.openEscalationCount(run.run_id), run.open_escalations);
      const resolved = await resolveEscalation(r, flows, { escalation_id: esc.escalation_id, decision: 'TERMINATE', by: 'ada', reason: 'enough' }, steppingClock());
      assert.equal(resolved.status, 'resolved');
      assert.equal((await rejection(resolveEscalation(r, flows, { escalation_id: esc.escalation_id, decision: 'TERMINATE', by: 'bob', reason: 'again' }))).code, 'ESCALATION_ALREADY_RESOLVED');
      assert.equal((await r.escalation(esc.escalation_id))?.status, 'resolved');
      assert.ok((await whyStep(r, run.run_id, esc.step)).escalations.some((e) => e.escalation_id === esc.escalation_id));
      assert.deepEqual((await verifyLedger(r)).issues, []);
    });
  });
}
