// `/v1/runs` and `/v1/stats` on a large ledger: the store's paged, filtered listing and SQL aggregates
// (StatsReader.runPage, ledgerTotals, ledgerTierRuleCounts, costBuckets) against the way they were computed before
// (every run loaded, several queries per run, filtered, paged and bucketed in JS), on the same SQLite ledger in the
// same process. The former code is kept here, as it was, as the baseline, and tests/service/runs-listing.test.ts
// uses it as the reference the new answers must equal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DecisionKind, LedgerStats, RunSummary, Tier } from '../src/contracts/index.js';
import type { EscalationReader, RunReader, StatsReader } from '../src/contracts/ports.js';

/** The parts the former per-run computations read. */
type LegacyReader = RunReader & StatsReader & EscalationReader;
import { DEMO_SCENARIO, simulate } from '../src/demo/index.js';
import { createKernel } from '../src/kernel/index.js';
import { openLedger } from '../src/ledger/index.js';
import { summarizeRun } from '../src/runs/index.js';
import { serviceLedger } from '../src/service/index.js';
import { flowsOnce } from './ledger.js';
import { table } from './stats.js';
import { ledgerSql } from '../src/ledger/sqlite-ledger.js';

// ---------------------------------------------------------------------------------------------------------------
// The former code (src/runs/audit.ts listRuns/summary, src/service/server.ts GET /v1/runs, src/service/ledger-reader.ts
// stats), unchanged but for names.

/** The former listRuns: every run, then 2 or 3 queries per run. */
export async function legacyListRuns(ledger: LegacyReader): Promise<RunSummary[]> {
  const out: RunSummary[] = [];
  for (const r of await ledger.runs()) out.push(await summarizeRun(ledger, r)); // the per-run summary is still the one runSummary uses
  return out;
}

/** The former GET /v1/runs: every summary, filtered and sliced in JS; the cursor was an offset. */
export async function legacyRunsPage(
  ledger: LegacyReader,
  q: { status?: string; flow?: string; has_open_escalation?: boolean; limit: number; offset?: number },
): Promise<{ runs: RunSummary[]; total: number; next_cursor: string | null }> {
  const offset = q.offset ?? 0;
  const all = (await legacyListRuns(ledger)).filter(
    (r) =>
      (q.status === undefined || r.status === q.status) &&
      (q.flow === undefined || r.flows.includes(q.flow)) &&
      (q.has_open_escalation === undefined || r.open_escalations > 0 === q.has_open_escalation),
  );
  return { runs: all.slice(offset, offset + q.limit), total: all.length, next_cursor: offset + q.limit < all.length ? String(offset + q.limit) : null };
}

const HOUR_MS = 3_600_000;

/** The former GET /v1/stats: tierRuleCounts per run, then every route of every run read in pages and bucketed in JS. */
export async function legacyStats(ledger: LegacyReader): Promise<LedgerStats> {
  const runs = await ledger.runs();
  const byRule = new Map<string, { tier: Tier; rule: string; decision: DecisionKind; count: number }>();
  const byTier = new Map<number, number>();
  let routes = 0;
  for (const r of runs) {
    routes += r.last_seq;
    for (const t of await ledger.tierRuleCounts(r.run_id)) {
      const k = `${t.tier}\u0000${t.rule}\u0000${t.decision}`;
      const e = byRule.get(k);
      if (e) e.count += t.count;
      else byRule.set(k, { tier: t.tier as Tier, rule: t.rule, decision: t.decision as DecisionKind, count: t.count });
      byTier.set(t.tier, (byTier.get(t.tier) ?? 0) + t.count);
    }
  }
  const first = Math.min(...runs.map((r) => Date.parse(r.created_ts)).filter(Number.isFinite));
  const last = Math.max(...runs.map((r) => Date.parse(r.updated_ts)).filter(Number.isFinite));
  const span = Number.isFinite(first) && Number.isFinite(last) ? last - first : 0;
  const width = [1_000, 10_000, 60_000, 300_000, HOUR_MS, 24 * HOUR_MS].find((w) => span / w <= 240) ?? 24 * HOUR_MS;
  const buckets = new Map<number, { routes: number; llm_calls: number; usd: number }>();
  for (const r of runs) {
    for (let after = 0; ; ) {
      const page = await ledger.routes(r.run_id, after, 4096);
      if (page.length === 0) break;
      for (const row of page) {
        const t = Date.parse(row.ts);
        const h = Number.isFinite(t) ? Math.floor(t / width) * width : 0;
        let b = buckets.get(h);
        if (!b) buckets.set(h, (b = { routes: 0, llm_calls: 0, usd: 0 }));
        b.routes++;
        b.llm_calls += row.llm_calls;
        b.usd += row.cost_usd;
      }
      after = page[page.length - 1]!.seq;
    }
  }
  return {
    runs: runs.length,
    routes,
    by_tier: [...byTier].sort((a, b) => a[0] - b[0]).map(([tier, count]) => ({ tier: tier as Tier, count })),
    by_tier_rule: [...byRule.values()].sort((a, b) => a.tier - b.tier || b.count - a.count || a.rule.localeCompare(b.rule)),
    bucket_seconds: width / 1000,
    cost_over_time: [...buckets]
      .sort((a, b) => a[0] - b[0])
      .map(([h, b]) => ({ bucket: new Date(h).toISOString(), routes: b.routes, llm_calls: b.llm_calls, usd: b.usd })),
  };
}

// ---------------------------------------------------------------------------------------------------------------

/** Median wall time (ms) of `n` calls of `op`, after one untimed call. */
async function medianMs(n: number, op: () => Promise<unknown>): Promise<number> {
  await op();
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await op();
    t.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  t.sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)]!;
}

/**
 * A SQLite ledger of `runs` demo runs (flows build then gate: loops, detours, a rebase injection now and then,
 * escalations left open), recorded by the kernel in one outer transaction. Returns its file and routes.
 */
export async function buildListingLedger(file: string, runs: number): Promise<{ routes: number }> {
  const flows = await flowsOnce();
  const ledger = openLedger(file, { jsonl: false });
  const kernel = createKernel({ flows, store: ledger, validate: false });
  ledgerSql(ledger).db.exec('BEGIN');
  const divergedRuns = Array.from({ length: Math.ceil(runs / 10) }, (_, i) => i * 10);
  const sim = await simulate(kernel, { ...DEMO_SCENARIO, runs, sequence: ['build', 'gate'], divergedRuns }, { runPrefix: 'list' });
  await ledger.flush();
  ledgerSql(ledger).db.exec('COMMIT');
  await kernel.close();
  return { routes: sim.routes };
}

export interface ListingFigures {
  runs: number;
  routes: number;
  rows: { label: string; oldMs: number; newMs: number }[];
}

/** Old vs new /v1/runs pages and /v1/stats on one ledger of `runs` runs (the service's ledger reader, no HTTP). */
export async function runsListingFigures(runs: number): Promise<ListingFigures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-bench-listing-'));
  try {
    const file = path.join(dir, 'ledger.sqlite');
    const { routes } = await buildListingLedger(file, runs);
    const ledger = openLedger(file, { jsonl: false, create: false });
    const svc = serviceLedger(ledger);
    const oldReps = runs > 5_000 ? 3 : 5;
    const mid = (await svc.runsPage({ limit: Math.floor(runs / 2) })).next!;
    const rows: ListingFigures['rows'] = [
      {
        label: '`/v1/runs?limit=50` (first page)',
        oldMs: await medianMs(oldReps, () => legacyRunsPage(ledger, { limit: 50 })),
        newMs: await medianMs(50, () => svc.runsPage({ limit: 50 })),
      },
      {
        label: '`/v1/runs?limit=50&cursor=…` (a page half-way)',
        oldMs: await medianMs(oldReps, () => legacyRunsPage(ledger, { limit: 50, offset: Math.floor(runs / 2) })),
        newMs: await medianMs(50, () => svc.runsPage({ limit: 50, after: mid })),
      },
      {
        label: '`/v1/runs?status=escalated&limit=50`',
        oldMs: await medianMs(oldReps, () => legacyRunsPage(ledger, { status: 'escalated', limit: 50 })),
        newMs: await medianMs(10, () => svc.runsPage({ status: 'escalated', limit: 50 })),
      },
      {
        label: '`/v1/runs?flow=rebase&limit=50` (an injected flow)',
        oldMs: await medianMs(oldReps, () => legacyRunsPage(ledger, { flow: 'rebase', limit: 50 })),
        newMs: await medianMs(10, () => svc.runsPage({ flow: 'rebase', limit: 50 })),
      },
      {
        label: '`/v1/stats`',
        oldMs: await medianMs(oldReps, () => legacyStats(ledger)),
        newMs: await medianMs(5, () => svc.stats()),
      },
    ];
    await ledger.close();
    return { runs, routes, rows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures as a markdown table (for the serve section of RESULTS.md). */
export function listingTable(f: ListingFigures): string {
  return [
    `Run listing and stats on a SQLite ledger of ${f.runs.toLocaleString('en-US')} demo runs (${f.routes.toLocaleString('en-US')} routes), through the service's ledger reader (no HTTP), median ms per request. *before*: every run loaded and 2-3 queries per run, filtered, paged and bucketed in JS (the former code, kept in bench/runs-listing.ts); *now*: one query for the page plus one count (keyset cursor, index runs_created), and three aggregate queries for the stats.`,
    '',
    table(
      ['request', 'before ms', 'now ms', 'speed-up'],
      f.rows.map((r) => [r.label, r.oldMs, r.newMs, `${(r.oldMs / r.newMs).toFixed(r.oldMs / r.newMs >= 10 ? 0 : 1)}×`]),
    ),
  ].join('\n');
}
