// The store contract beyond navkernel/testing's kit (kit.test.ts runs the kit's checks per port part on every store):
// tampering behind the store's back, the CLI on it, and the listing and stats against the former per-run code.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { createKernel, type FlowSet } from '../../src/kernel/index.js';
import { verifyLedger } from '../../src/ledger/index.js';
import { listedSummary } from '../../src/runs/index.js';
import type { LedgerStats } from '../../src/contracts/index.js';
import { serviceLedger } from '../../src/service/index.js';
import { legacyListRuns, legacyStats } from '../../bench/runs-listing.js';
import { sampleFlows, scriptedArbiter, steppingClock } from '../ledger/helpers.js';
import { runCli } from '../support/cli.js';
import { STORE_FACTORIES, type StoreLocation } from './factories.js';
import { listingLedger as listingLedgerOf } from '../../src/testing/stats-reader-part.js';

let flows: FlowSet;
beforeAll(async () => {
  flows = await sampleFlows();
});

/** /v1/stats answers: equal, except USD sums, which may differ in their last bits with the order of summation. */
function expectSameStats(actual: LedgerStats, expected: LedgerStats): void {
  const strip = (x: LedgerStats) => ({ ...x, cost_over_time: x.cost_over_time.map((b) => ({ ...b, usd: 0 })) });
  expect(strip(actual)).toEqual(strip(expected));
  actual.cost_over_time.forEach((b, i) => expect(b.usd).toBeCloseTo(expected.cost_over_time[i]!.usd, 9));
}

describe.each(STORE_FACTORIES)('store conformance: $name', (factory) => {
  let loc: StoreLocation;
  const open: Ledger[] = [];
  async function handle(): Promise<Ledger> {
    const l = await loc.open();
    open.push(l);
    return l;
  }
  afterEach(async () => {
    for (const l of open.splice(0)) await l.close().catch(() => undefined);
    await loc?.cleanup();
  });
  async function fresh(): Promise<Ledger> {
    loc = await factory.create();
    return handle();
  }

  // The checks of each port part are navkernel/testing's kit (tests/store-conformance/kit.test.ts runs it on every
  // store); what stays here needs the project's own tools: tampering behind the store's back, the CLI, the former
  // listing and stats code (bench/runs-listing.ts).
  describe('RunReader: tampering', () => {
    it('keeps a run register with one chained entry per run, and verify (and the CLI) notice a run deleted whole', async () => {
      const s = await fresh();
      const k = createKernel({ flows, store: s, clock: steppingClock(), arbiter: scriptedArbiter() });
      await simulate(k, HARSH_SCENARIO, {});
      await k.close();
      let r = await handle();
      const ids = await r.runIds();
      const register = await r.runRegister();
      expect(register.map((e) => e.run_id).sort()).toEqual(ids);
      expect(new Set(register.map((e) => e.ordinal)).size).toBe(register.length);
      for (const e of register) expect(e.first_hash).toBe(await r.routeHash(e.run_id, 1));
      expect((await verifyLedger(r, { repair: false })).issues).toEqual([]);
      // Deleting every row of one run (not the first, not the last) leaves a ledger whose every remaining chain is intact.
      const victim = register[1]!.run_id;
      await r.close();
      await loc.deleteRunRows(victim);
      r = await handle();
      expect((await r.runs()).some((x) => x.run_id === victim)).toBe(false);
      const report = await verifyLedger(r, { repair: false });
      expect(report.ok).toBe(false);
      expect(report.issues).toContainEqual(expect.objectContaining({ run_id: victim, kind: 'run_missing' }));
      expect(report.issues.filter((i) => i.run_id !== victim && !i.kind.startsWith('jsonl'))).toEqual([]);
      const cli = runCli(['verify', '--ledger', loc.cliArg, '--no-repair']);
      expect(cli.code).toBe(1);
      expect(cli.stdout).toContain(`BAD run ${victim}`);
      expect(cli.stdout).toMatch(/run_missing/);
    });

  });

  describe('StatsReader: the run listing and ledger stats (runPage, ledgerTotals, ledgerTierRuleCounts, costBuckets)', () => {
    /** The kit's listing ledger (navkernel/testing's StatsReader part): simulations and three gate runs. */
    const listingLedger = (): Promise<Ledger> => listingLedgerOf({ fresh, handle });

    it('skips `offset` matching runs (the former cursors)', async () => {
      const r = await listingLedger();
      const reference = (await legacyListRuns(r)).filter((x) => x.status === 'terminated');
      for (const offset of [0, 1, 4, reference.length - 1, reference.length, reference.length + 3]) {
        const page = await r.runPage({ status: 'terminated', limit: 3, offset });
        expect(page.runs.map(listedSummary)).toEqual(reference.slice(offset, offset + 3));
        expect(page.total).toBe(reference.length);
        expect(page.next === null).toBe(offset + 3 >= reference.length);
      }
    });

    it('an empty ledger lists nothing and has empty stats', async () => {
      const s = await fresh();
      expect(await s.runPage({ limit: 50 })).toEqual({ runs: [], total: 0, next: null });
      expect(await s.runPage({ limit: 50, status: 'active', flow: 'x', has_open_escalation: false })).toEqual({ runs: [], total: 0, next: null });
      expect(await s.ledgerTotals()).toEqual({ runs: 0, routes: 0, first_ms: null, last_ms: null });
      expect(await s.ledgerTierRuleCounts()).toEqual([]);
      expect(await s.costBuckets(1000)).toEqual([]);
      expectSameStats(await serviceLedger(s).stats(), await legacyStats(s));
    });

    it('stats: totals, counts by tier/rule/decision and cost buckets as the former per-run computation gave them', async () => {
      const r = await listingLedger();
      const reference = await legacyStats(r);
      expect(reference.cost_over_time.length).toBeGreaterThan(1);
      expect(reference.by_tier.length).toBeGreaterThan(2);
      expectSameStats(await serviceLedger(r).stats(), reference);
      // Every route, each width: the buckets are what bucketing each route's ts in JS gives.
      const routes = (await Promise.all((await r.runs()).map((x) => r.routes(x.run_id, 0, 100_000)))).flat();
      expect(routes.some((x) => x.cost_usd > 0)).toBe(true);
      for (const width of [1_000, 60_000, 3_600_000, 86_400_000]) {
        const js = new Map<number, { routes: number; llm_calls: number; usd: number }>();
        for (const x of routes) {
          const h = Math.floor(Date.parse(x.ts) / width) * width;
          const b = js.get(h) ?? { routes: 0, llm_calls: 0, usd: 0 };
          js.set(h, { routes: b.routes + 1, llm_calls: b.llm_calls + x.llm_calls, usd: b.usd + x.cost_usd });
        }
        const got = await r.costBuckets(width);
        expect(got.map((b) => [b.bucket_ms, b.routes, b.llm_calls])).toEqual([...js].sort((a, b) => a[0] - b[0]).map(([h, b]) => [h, b.routes, b.llm_calls]));
        got.forEach((b) => expect(b.usd).toBeCloseTo(js.get(b.bucket_ms)!.usd, 9));
      }
      const totals = await r.ledgerTotals();
      const runs = await r.runs();
      expect(totals).toEqual({
        runs: runs.length,
        routes: routes.length,
        first_ms: Math.min(...runs.map((x) => Date.parse(x.created_ts))),
        last_ms: Math.max(...runs.map((x) => Date.parse(x.updated_ts))),
      });
    });
  });
});
