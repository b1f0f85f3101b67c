// StatsReader: the run listing (runPage: filters, totals, keyset pages) and ledger-wide totals, checked against the
// per-run summaries every store computes the same way (summarizeRun over runs()).
import assert from 'node:assert/strict';
import type { Ledger, RunPageKey, RunPageQuery } from '../contracts/ports.js';
import type { RunSummary } from '../contracts/ledger.js';
import { DEMO_SCENARIO, HARSH_SCENARIO } from '../demo/scenario.js';
import { simulate } from '../demo/simulate.js';
import { createKernel } from '../kernel/kernel.js';
import { listedSummary, summarizeRun } from '../runs/audit.js';
import { resolveEscalation } from '../runs/resolve.js';
import { gateRun, routeRecord, sampleFlows, scriptedArbiter, stateAt, steppingClock } from './fixtures.js';
import { check, type StoreSession, type StoreUnderTest, type TestApi } from './harness.js';
import { STORE_PORTS } from './store-ports.js';

/** Every page of a listing, `limit` runs at a time, following `next`; checks `total` is the same on every page. */
async function allPages(s: Ledger, q: Omit<RunPageQuery, 'limit' | 'after'>, limit: number): Promise<{ runs: RunSummary[]; total: number; pages: number }> {
  const runs: RunSummary[] = [];
  let total: number | undefined;
  let pages = 0;
  for (let after: RunPageKey | undefined; ; ) {
    const page = await s.runPage({ ...q, limit, ...(after ? { after } : {}) });
    pages++;
    assert.ok(page.runs.length <= limit);
    if (total === undefined) total = page.total;
    else assert.equal(page.total, total);
    runs.push(...page.runs.map(listedSummary));
    if (!page.next) break;
    assert.equal(page.runs.length, limit);
    assert.deepEqual(page.next, { created_ts: page.runs[limit - 1]!.created_ts, run_id: page.runs[limit - 1]!.run_id });
    after = page.next;
  }
  return { runs, total: total!, pages };
}

/**
 * The harsh and the demo simulations, plus three gate runs ending in an escalation: one resolved with TERMINATE
 * (terminated), one with LOOP (active), one left open (escalated).
 */
export async function listingLedger({ fresh, handle }: StoreSession<Ledger>): Promise<Ledger> {
  const flows = await sampleFlows();
  const k = createKernel({ flows, store: await fresh(), clock: steppingClock(), arbiter: scriptedArbiter() });
  await simulate(k, HARSH_SCENARIO, {});
  await simulate(k, DEMO_SCENARIO, { runPrefix: 'demo' });
  await k.close();
  const g = createKernel({ flows, store: await handle(), clock: steppingClock(Date.UTC(2025, 0, 2)) });
  for (const id of ['gate-x', 'gate-y', 'gate-z']) for (const req of gateRun(id)) await g.route(req);
  await g.close();
  const r = await handle();
  const open = (id: string) => r.runEscalations(id).then((es) => es.find((e) => e.status === 'open')!.escalation_id);
  await resolveEscalation(r, flows, { escalation_id: await open('gate-x'), decision: 'TERMINATE', by: 'ada', reason: 'enough' }, steppingClock());
  await resolveEscalation(r, flows, { escalation_id: await open('gate-y'), decision: 'LOOP', by: 'ada', reason: 'again' }, steppingClock());
  return r;
}

/** The listing as summarizeRun computes it run by run, in the order of runs(). */
async function perRunSummaries(r: Ledger): Promise<RunSummary[]> {
  const out: RunSummary[] = [];
  for (const run of await r.runs()) out.push(await summarizeRun(r, run));
  return out;
}

export function statsReaderChecks(api: TestApi, store: StoreUnderTest<Ledger>): void {
  api.describe('StatsReader', () => {
    check(api, store, 'has every method of the StatsReader port', async ({ fresh }) => {
      const s = (await fresh()) as unknown as Record<string, unknown>;
      for (const m of STORE_PORTS.StatsReader) assert.equal(typeof s[m], 'function', `StatsReader.${m}`);
    });

    check(api, store, 'an empty ledger lists nothing and has empty stats', async ({ fresh }) => {
      const s = await fresh();
      assert.deepEqual(await s.runPage({ limit: 50 }), { runs: [], total: 0, next: null });
      assert.deepEqual(await s.runPage({ limit: 50, status: 'active', flow: 'x', has_open_escalation: false }), { runs: [], total: 0, next: null });
      assert.deepEqual(await s.ledgerTotals(), { runs: 0, routes: 0, first_ms: null, last_ms: null });
      assert.deepEqual(await s.ledgerTierRuleCounts(), []);
      assert.deepEqual(await s.costBuckets(1000), []);
    });

    check(api, store, 'lists every run as the per-run summaries say, in pages with no gap or duplicate, with each status', async (session) => {
      const r = await listingLedger(session);
      const reference = await perRunSummaries(r);
      assert.equal(reference.length, (await r.runIds()).length);
      const byId = new Map(reference.map((x) => [x.run_id, x]));
      assert.deepEqual(['gate-x', 'gate-y', 'gate-z'].map((id) => [byId.get(id)?.status, byId.get(id)?.open_escalations]), [['terminated', 0], ['active', 0], ['escalated', 1]]);
      for (const limit of [1, 5, reference.length, 500]) {
        const { runs, total, pages } = await allPages(r, {}, limit);
        assert.equal(total, reference.length);
        assert.equal(pages, Math.max(1, Math.ceil(reference.length / limit)));
        assert.deepEqual(runs, reference);
      }
    });

    check(api, store, 'filters by status, flow (an injected one too) and open escalation, with totals', async (session) => {
      const r = await listingLedger(session);
      const reference = await perRunSummaries(r);
      const queries: Omit<RunPageQuery, 'limit'>[] = [
        { status: 'active' },
        { status: 'escalated' },
        { status: 'terminated' },
        { flow: 'rebase' },
        { flow: 'gate' },
        { flow: 'no-such-flow' },
        { has_open_escalation: true },
        { status: 'terminated', flow: 'gate' },
        { status: 'active', has_open_escalation: false, flow: 'gate' },
      ];
      for (const q of queries) {
        const expected = reference.filter(
          (x) =>
            (q.status === undefined || x.status === q.status) &&
            (q.flow === undefined || x.flows.includes(q.flow)) &&
            (q.has_open_escalation === undefined || x.open_escalations > 0 === q.has_open_escalation),
        );
        for (const limit of [1, 3, 500]) {
          const { runs, total } = await allPages(r, q, limit);
          assert.deepEqual(runs, expected, `${JSON.stringify(q)} limit ${limit}`);
          assert.equal(total, expected.length);
        }
      }
      for (const q of queries.slice(0, 4)) {
        const n = (await r.runPage({ ...q, limit: 1 })).total;
        assert.ok(n > 0 && n < reference.length, `${JSON.stringify(q)} selects some runs, not all (${n})`);
      }
    });

    check(api, store, 'pages stay gap- and duplicate-free while runs are created between pages (keyset: ties on created_ts by run_id)', async ({ fresh }) => {
      const s = await fresh();
      const ts = '2025-03-01T00:00:00.000Z';
      for (const id of ['t-c', 't-a', 't-e', 't-b', 't-d']) await s.append(routeRecord(id, 1, { ts }), stateAt(id, 1));
      for (const [id, t] of [['u-1', '2025-03-01T00:00:01.000Z'], ['u-2', '2025-03-01T00:00:02.000Z']] as const) await s.append(routeRecord(id, 1, { ts: t }), stateAt(id, 1));
      const before = (await s.runs()).map((x) => x.run_id);
      assert.deepEqual(before, ['t-a', 't-b', 't-c', 't-d', 't-e', 'u-1', 'u-2']);
      const seen: string[] = [];
      let after: RunPageKey | undefined;
      for (let i = 0; ; i++) {
        const page = await s.runPage({ limit: 2, ...(after ? { after } : {}) });
        seen.push(...page.runs.map((x) => x.run_id));
        if (!page.next) break;
        after = page.next;
        await s.append(routeRecord(`early-${i}`, 1, { ts: '2024-01-01T00:00:00.000Z' }), stateAt(`early-${i}`, 1));
        await s.append(routeRecord(`t-${i}z`, 1, { ts }), stateAt(`t-${i}z`, 1));
        await s.append(routeRecord(`v-${i}`, 1, { ts: `2025-03-02T00:00:0${i}.000Z` }), stateAt(`v-${i}`, 1));
        if (i === 0) await s.append(routeRecord('t-a', 2, { ts: '2025-03-05T00:00:00.000Z' }), stateAt('t-a', 2));
      }
      assert.equal(new Set(seen).size, seen.length);
      assert.deepEqual(seen.filter((id) => before.includes(id)), before);
      const order = (await s.runs()).map((x) => x.run_id);
      assert.deepEqual(seen, order.filter((id) => seen.includes(id)));
      assert.equal(seen.some((id) => id.startsWith('early-')), false);
      assert.ok(seen.some((id) => id.startsWith('v-')));
    });

    check(api, store, 'totals and cost buckets agree with the routes read run by run', async (session) => {
      const r = await listingLedger(session);
      const runs = await r.runs();
      const routes = (await Promise.all(runs.map((x) => r.routes(x.run_id, 0, 100_000)))).flat();
      assert.ok(routes.some((x) => x.cost_usd > 0));
      assert.deepEqual(await r.ledgerTotals(), {
        runs: runs.length,
        routes: routes.length,
        first_ms: Math.min(...runs.map((x) => Date.parse(x.created_ts))),
        last_ms: Math.max(...runs.map((x) => Date.parse(x.updated_ts))),
      });
      for (const width of [1_000, 3_600_000]) {
        const js = new Map<number, { routes: number; llm_calls: number; usd: number }>();
        for (const x of routes) {
          const h = Math.floor(Date.parse(x.ts) / width) * width;
          const b = js.get(h) ?? { routes: 0, llm_calls: 0, usd: 0 };
          js.set(h, { routes: b.routes + 1, llm_calls: b.llm_calls + x.llm_calls, usd: b.usd + x.cost_usd });
        }
        const got = await r.costBuckets(width);
        assert.deepEqual(got.map((b) => [b.bucket_ms, b.routes, b.llm_calls]), [...js].sort((a, b) => a[0] - b[0]).map(([h, b]) => [h, b.routes, b.llm_calls]));
        for (const b of got) assert.ok(Math.abs(b.usd - js.get(b.bucket_ms)!.usd) < 1e-9, `usd of bucket ${b.bucket_ms}`);
      }
      const counted = (await r.ledgerTierRuleCounts()).reduce((n, t) => n + t.count, 0);
      assert.equal(counted, routes.length);
    });
  });
}
