// The unit of routes.latency_us (issue 22.1): microseconds, pinned against a measured wall time, on every store; and
// routes written before schema version 5 (milliseconds) read correctly after the upgrade, with their chains intact.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { ArbiterPort, Ledger } from '../../src/contracts/index.js';
import { createKernel, defineFlows } from '../../src/kernel/index.js';
import { routeLatencyUs, verifyLedger } from '../../src/ledger/index.js';
import { auditRun } from '../../src/runs/index.js';
import { serviceLedger } from '../../src/service/index.js';
import { STORE_FACTORIES, type StoreLocation } from '../store-conformance/factories.js';
import { adminQuery, schemaOf } from '../support/postgres.js';
import { TEST_FLOWS, req } from '../support/kernel-fixtures.js';
import { steppingClock } from './helpers.js';

const SLEEP_MS = 40;

/** Tier 3 that takes a known wall time: sleeps SLEEP_MS, then picks the first legal move. */
const sleepyArbiter: ArbiterPort = async (input) => {
  await new Promise((r) => setTimeout(r, SLEEP_MS));
  return { proposal: { candidate_id: input.candidates[0]!.id, reason: 'slept' }, rejected: [], calls: [], cost_usd: 0 };
};

/** Takes a ledger back to schema version 4, as navkernel 0.1.0 left it: no latency_unit column. */
async function downgradeToV4(factory: string, loc: StoreLocation): Promise<void> {
  if (factory === 'sqlite') {
    const db = new Database(loc.cliArg);
    db.exec('ALTER TABLE routes DROP COLUMN latency_unit');
    db.pragma('user_version = 4');
    db.close();
    return;
  }
  const schema = schemaOf(loc.cliArg);
  await adminQuery(`ALTER TABLE ${schema}.routes DROP COLUMN latency_unit; UPDATE ${schema}.navkernel_meta SET schema_version = 4`);
}

/** Edits a route's latency_unit behind the ledger's back. */
async function setUnit(factory: string, loc: StoreLocation, run_id: string, seq: number, unit: string): Promise<void> {
  if (factory === 'sqlite') {
    const db = new Database(loc.cliArg);
    db.prepare('UPDATE routes SET latency_unit = ? WHERE run_id = ? AND seq = ?').run(unit, run_id, seq);
    db.close();
    return;
  }
  await adminQuery(`UPDATE ${schemaOf(loc.cliArg)}.routes SET latency_unit = $1 WHERE run_id = $2 AND seq = $3`, [unit, run_id, seq]);
}

for (const factory of STORE_FACTORIES) {
  describe(`latency_us is in microseconds (${factory.name})`, () => {
    let loc: StoreLocation | undefined;
    let ledger: Ledger | undefined;
    afterEach(async () => {
      await ledger?.close();
      await loc?.cleanup();
      ledger = loc = undefined;
    });

    it('a tier-3 route whose arbiter sleeps 40 ms records at least 40,000 µs; audit and /v1 say the same', async () => {
      loc = await factory.create();
      ledger = await loc.open();
      const kernel = createKernel({ flows: defineFlows(TEST_FLOWS), store: ledger, arbiter: sleepyArbiter, clock: steppingClock() });
      const t0 = performance.now();
      const d = await kernel.route(req('linear', 'FAILED', { run_id: 'slow' }));
      const wallUs = (performance.now() - t0) * 1000;
      expect(d.tier).toBe(3);
      const [row] = await ledger.routes('slow', 0, 10);
      expect(row!.latency_unit).toBe('us');
      expect(Number.isInteger(row!.latency_us)).toBe(true);
      expect(row!.latency_us).toBeGreaterThanOrEqual(SLEEP_MS * 1000);
      expect(row!.latency_us).toBeLessThanOrEqual(Math.ceil(wallUs));
      expect(routeLatencyUs(row!)).toBe(row!.latency_us);
      expect((await auditRun(ledger, 'slow')).latency_us.max).toBe(row!.latency_us);
      const detail = await serviceLedger(ledger).runDetail('slow', 0, 10);
      expect(detail.decisions[0]!.latency_us).toBe(row!.latency_us);
    });

    it('routes written before schema version 5 hold ms: marked on upgrade, read as µs, and the chain still verifies', async () => {
      loc = await factory.create();
      ledger = await loc.open();
      let kernel = createKernel({ flows: defineFlows(TEST_FLOWS), store: ledger, clock: steppingClock() });
      await kernel.route(req('write', 'VERIFIED', { run_id: 'old' }));
      await kernel.close();
      ledger = undefined;
      await downgradeToV4(factory.name, loc);

      ledger = await loc.open(); // migrates 4 -> 5
      kernel = createKernel({ flows: defineFlows(TEST_FLOWS), store: ledger, clock: steppingClock(Date.UTC(2025, 0, 2)) });
      await kernel.route(req('check', 'VERIFIED', { run_id: 'old' }));
      const [before, after] = await ledger.routes('old', 0, 10);
      expect([before!.latency_unit, after!.latency_unit]).toEqual(['ms', 'us']);
      expect(routeLatencyUs(before!)).toBe(Math.round(before!.latency_us * 1000));
      expect(routeLatencyUs(after!)).toBe(after!.latency_us);
      const audit = await auditRun(ledger, 'old');
      expect(audit.latency_us.max).toBe(Math.max(routeLatencyUs(before!), routeLatencyUs(after!)));
      expect((await verifyLedger(ledger)).issues).toEqual([]);
      await kernel.close();
      ledger = undefined;

      // The unit column is outside the chain; verify still notices a route marked 'ms' after one in 'us'.
      await setUnit(factory.name, loc, 'old', 2, 'ms');
      await setUnit(factory.name, loc, 'old', 1, 'us');
      ledger = await loc.open();
      const issues = (await verifyLedger(ledger)).issues;
      expect(issues.map((i) => [i.seq, i.kind, i.field])).toEqual([[2, 'field_mismatch', 'latency_unit']]);
    });
  });
}
