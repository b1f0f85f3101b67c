// KernelStore: what createKernel({ store }) needs (loadRun, findByRequestId, append, close).
import assert from 'node:assert/strict';
import { LedgerConflictError } from '../contracts/store-errors.js';
import { routeRecord, stateAt } from './fixtures.js';
import { check, type StoreUnderTest, type TestApi } from './harness.js';
import { STORE_PORTS } from './store-ports.js';

export function kernelStoreChecks(api: TestApi, store: StoreUnderTest): void {
  api.describe('KernelStore', () => {
    check(api, store, 'has every method of the KernelStore port', async ({ fresh }) => {
      const s = (await fresh()) as unknown as Record<string, unknown>;
      for (const m of STORE_PORTS.KernelStore) assert.equal(typeof s[m], 'function', `KernelStore.${m}`);
    });

    check(api, store, 'knows nothing of a run never seen', async ({ fresh }) => {
      const s = await fresh();
      assert.equal(await s.loadRun('nobody'), undefined);
      assert.equal(await s.findByRequestId('nobody', 'r1'), undefined);
    });

    check(api, store, 'appends in seq order and loads the last state; findByRequestId returns the decision and request hash', async ({ fresh }) => {
      const s = await fresh();
      await s.append(routeRecord('r', 1), stateAt('r', 1));
      await s.append(routeRecord('r', 2, { request_id: 'q2', request_hash: 'ab'.repeat(32) }), stateAt('r', 2));
      assert.equal((await s.loadRun('r'))?.seq, 2);
      const found = await s.findByRequestId('r', 'q2');
      assert.equal(found?.decision.seq, 2);
      assert.match(found?.request_hash ?? '', /^[0-9a-f]{64}$/);
      assert.equal(await s.findByRequestId('r', 'q1'), undefined);
    });

    check(api, store, 'rejects an append whose seq does not follow the head with LedgerConflictError, recording nothing', async ({ fresh }) => {
      const s = await fresh();
      await s.append(routeRecord('r', 1), stateAt('r', 1));
      for (const seq of [1, 3]) {
        const err = await s.append(routeRecord('r', seq), stateAt('r', seq)).then(() => undefined, (e: unknown) => e);
        assert.ok(err instanceof LedgerConflictError, `seq ${seq}: expected a LedgerConflictError, got ${String(err)}`);
        assert.equal(err.code, 'LEDGER_CONFLICT');
      }
      assert.equal((await s.loadRun('r'))?.seq, 1);
    });

    check(api, store, 'settles concurrent appends of many runs independently: a conflicting one fails alone', async ({ fresh }) => {
      const s = await fresh();
      const ok = Array.from({ length: 40 }, (_, i) => s.append(routeRecord(`run-${i}`, 1), stateAt(`run-${i}`, 1)));
      const bad = s.append(routeRecord('run-0', 5), stateAt('run-0', 5));
      const results = await Promise.allSettled([...ok, bad]);
      assert.deepEqual(results.slice(0, 40).map((r) => r.status), Array.from({ length: 40 }, () => 'fulfilled'));
      assert.equal(results[40]!.status, 'rejected');
      for (let i = 0; i < 40; i++) assert.equal((await s.loadRun(`run-${i}`))?.seq, 1, `run-${i}`);
    });

    check(api, store, 'resolves each of many concurrent appends only once it is committed: another handle sees it at once', async ({ fresh, handle }) => {
      const s = await fresh();
      const other = await handle();
      const seen = await Promise.all(Array.from({ length: 30 }, (_, i) => s.append(routeRecord(`c-${i}`, 1), stateAt(`c-${i}`, 1)).then(() => other.loadRun(`c-${i}`))));
      assert.deepEqual(seen.map((st) => st?.seq), Array.from({ length: 30 }, () => 1));
    });

    check(api, store, 'a second handle (another process) sees what the first committed, and a stale writer gets a conflict', async ({ fresh, handle }) => {
      const a = await fresh();
      const b = await handle();
      await a.append(routeRecord('shared', 1), stateAt('shared', 1));
      assert.equal((await b.loadRun('shared'))?.seq, 1);
      await b.append(routeRecord('shared', 2), stateAt('shared', 2));
      await assert.rejects(a.append(routeRecord('shared', 2), stateAt('shared', 2)), LedgerConflictError);
      await a.append(routeRecord('shared', 3), stateAt('shared', 3));
      assert.equal((await b.loadRun('shared'))?.seq, 3);
    });
  });
}
