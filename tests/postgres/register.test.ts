// The run register on PostgreSQL (schema v3): one ledger-wide chain, however many kernels create runs at once, and
// databases written before it (schema v2) are given one on open and stay verifiable.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { createKernel, type FlowSet } from '../../src/kernel/index.js';
import { PostgresLedger, verifyLedger } from '../../src/ledger/index.js';
import { PG_SCHEMA_VERSION } from '../../src/ledger/postgres/schema.js';
import { sampleFlows, scriptedArbiter, steppingClock } from '../ledger/helpers.js';
import { DATABASE_URL, adminQuery, describePostgres, freshSchemaUrl, schemaOf } from '../support/postgres.js';

let flows: FlowSet;
const schemas: string[] = [];
function fresh(): string {
  const url = freshSchemaUrl('reg');
  schemas.push(schemaOf(url));
  return url;
}
beforeAll(async () => {
  flows = await sampleFlows();
});
afterAll(async () => {
  if (DATABASE_URL) for (const s of schemas) await adminQuery(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
});

describePostgres('the run register on PostgreSQL', () => {
  it('stays one unbroken chain when four kernels (four pools) create runs at the same time', async () => {
    const url = fresh();
    const ledgers = await Promise.all([1, 2, 3, 4].map(() => PostgresLedger.open(url, { poolSize: 3 })));
    const kernels = ledgers.map((store) => createKernel({ flows, store, clock: steppingClock() }));
    // 4 kernels x 30 new runs each, every route creates a run, all at once; plus a run all four race to create.
    await Promise.all(
      kernels.flatMap((k, i) => [
        ...Array.from({ length: 30 }, (_, j) => k.route({ run_id: `r${i}-${j}`, flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' })),
        k.route({ run_id: 'contested', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED', restart: { reason: 'four kernels report it' } }),
      ]),
    );
    for (const k of kernels) await k.close();
    const r = await PostgresLedger.open(url);
    const register = await r.runRegister();
    expect(register.length).toBe(121);
    expect(new Set(register.map((e) => e.run_id)).size).toBe(121);
    expect((await r.routes('contested', 0, 10)).map((x) => x.seq)).toEqual([1, 2, 3, 4]);
    const report = await verifyLedger(r, { repair: false });
    expect(report.issues).toEqual([]);
    await r.close();
  });

  it('gives a database written before the register (schema v2) one on open, in order of creation; it verifies and then notices a deleted run', async () => {
    const url = fresh();
    const s = schemaOf(url);
    let l = await PostgresLedger.open(url);
    const k = createKernel({ flows, store: l, clock: steppingClock(), arbiter: scriptedArbiter() });
    await simulate(k, HARSH_SCENARIO, {});
    await k.close();
    const created = (await adminQuery<{ run_id: string }>(`SELECT run_id FROM ${s}.runs ORDER BY created_ts, run_id`)).map((x) => x.run_id);
    await adminQuery(`DROP TABLE ${s}.run_register; UPDATE ${s}.navkernel_meta SET schema_version = 2`);
    l = await PostgresLedger.open(url);
    expect((await adminQuery(`SELECT schema_version FROM ${s}.navkernel_meta`))[0]).toEqual({ schema_version: PG_SCHEMA_VERSION });
    expect((await l.runRegister()).map((e) => e.run_id)).toEqual(created);
    expect((await verifyLedger(l, { repair: false })).issues).toEqual([]);
    // New runs chain on after the migrated entries.
    const k2 = createKernel({ flows, store: l, clock: steppingClock() });
    await k2.route({ run_id: 'after-migration', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' });
    await k2.close();
    l = await PostgresLedger.open(url);
    expect((await l.runRegister()).at(-1)!.run_id).toBe('after-migration');
    expect((await verifyLedger(l, { repair: false })).issues).toEqual([]);
    for (const t of ['routes', 'runs', 'llm_calls', 'escalations']) await adminQuery(`DELETE FROM ${s}.${t} WHERE run_id = $1`, [created[0]]);
    expect((await verifyLedger(l, { repair: false })).issues).toContainEqual(expect.objectContaining({ run_id: created[0], kind: 'run_missing' }));
    // Deleting its register entry as well breaks the register's chain.
    await adminQuery(`DELETE FROM ${s}.run_register WHERE run_id = $1`, [created[0]]);
    expect((await verifyLedger(l, { repair: false })).issues).toContainEqual(expect.objectContaining({ kind: 'register_mismatch' }));
    await l.close();
  });
});
