// How cost grows with the work: routes/s and latency as the ledger grows and as concurrent runs grow, replay time
// against run length, memory against live runs, navigator time against repository size. Each is a table in
// RESULTS.md and an SVG line chart beside it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouteRequest } from '../src/contracts/index.js';
import { createKernel } from '../src/kernel/index.js';
import { openLedger, type SqliteLedger } from '../src/ledger/index.js';
import { LONG_FLOWS, longRun, routeInTransaction } from './long-run.js';
import { replayRun } from '../src/runs/index.js';
import { packageRoot } from '../src/package-root.js';
import { BENCH_FLOWS, runRequests } from './langgraph.js';
import { requestStream } from './ledger.js';
import { BENCH_REPOS, navigatorSizeSeries, timeNavigation } from './navigator.js';
import { concurrentRuns } from './postgres.js';
import { percentile, table, type BenchSection } from './stats.js';
import { writeLineChart, writeStackedChart } from './svg-chart.js';
import { ledgerSql } from '../src/ledger/sqlite-ledger.js';

export { LONG_FLOWS, longRun, routeInTransaction };

export interface ScalingOptions {
  quick: boolean;
  /** Where the charts go: the folder of RESULTS.md (default bench/), so a run with `--out` elsewhere leaves the committed charts alone. */
  outDir?: string;
}

function tmpDir(tag: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `navkernel-bench-${tag}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const us = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1000;

/** The routes table's indexes and their columns, read from the ledger file itself. */
function routeIndexes(ledger: SqliteLedger): string {
  const db = ledgerSql(ledger).db;
  const list = db.pragma('index_list(routes)') as { name: string; unique: number; origin: string; partial: number }[];
  return list
    .map((ix) => {
      const cols = (db.pragma(`index_info(${JSON.stringify(ix.name)})`) as { name: string }[]).map((c) => c.name).join(', ');
      return `\`${ix.name}\` (${cols})${ix.origin === 'pk' ? ' = the primary key' : ''}${ix.partial ? ', partial' : ''}`;
    })
    .join('; ');
}

/** How the runs table is keyed, read from its CREATE statement. */
function runsKey(ledger: SqliteLedger): string {
  const sql = (ledgerSql(ledger).db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'runs'").pluck().get() as string | undefined) ?? '';
  const pk = /(\w+)\s+TEXT\s+PRIMARY KEY/i.exec(sql)?.[1] ?? /PRIMARY KEY\s*\(([^)]*)\)/i.exec(sql)?.[1] ?? 'its primary key';
  return `\`runs\` (one row per run: head hash, last seq) is ${/WITHOUT ROWID/i.test(sql) ? 'a WITHOUT ROWID table' : 'a table'} keyed by ${pk}`;
}

interface GrowthPoint {
  rows: number;
  newP50: number;
  newP99: number;
  oldP50: number;
  oldP99: number;
  /** Routes/s of the probe routes (new and restored runs, one after another). */
  perSecond: number;
}

/** Route latency (ledger on, durability normal, one transaction per route) as the ledger grows. */
async function ledgerGrowth(sizes: readonly number[], sampleRuns: number): Promise<{ points: GrowthPoint[]; indexes: string; plan: string; runs: string }> {
  const t = tmpDir('growth');
  try {
    // decisions.jsonl off: it is one append per off-road decision whatever the ledger's size, and 1M routes would be 250k files.
    const file = path.join(t.dir, 'ledger.sqlite');
    const ledger = openLedger(file, { durability: 'normal', jsonl: false });
    const filler = createKernel({ flows: BENCH_FLOWS, store: ledger, validate: false });
    const points: GrowthPoint[] = [];
    let rows = 0;
    let run = 0;
    const fillRuns = function* (upTo: number): Generator<RouteRequest> {
      while (rows < upTo) {
        // Each filled run stops before its last report (review), so it stays open: a probe below restarts it from plan
        // and appends one route (a run that ended takes no more: RUN_ENDED, docs/run-states.md).
        for (const r of runRequests(`fill-${run}`, run).slice(0, -1)) {
          rows++;
          yield r;
        }
        run++;
      }
    };
    let probe = 0;
    for (const size of sizes) {
      while (rows < size) await routeInTransaction(ledger, (r) => filler.route(r), fillRuns(Math.min(size, rows + 20_000)));
      ledgerSql(ledger).db.pragma('wal_checkpoint(TRUNCATE)');
      // A fresh kernel on its own connection (as a restarted runner would have): nothing is live, so every run is looked up first.
      const kernel = createKernel({ flows: BENCH_FLOWS, store: openLedger(file, { durability: 'normal', jsonl: false }), validate: true });
      const fresh: number[] = [];
      const old: number[] = [];
      const tProbe = process.hrtime.bigint();
      for (let i = 0; i < sampleRuns; i++, probe++) {
        for (const r of runRequests(`probe-${probe}`, probe)) {
          const t0 = process.hrtime.bigint();
          await kernel.route(r);
          fresh.push(us(t0));
        }
        // A run recorded earlier, spread over the whole file: restored from its last row, then one route appended.
        const back = Math.floor((i * 7919) % Math.max(1, run));
        const t0 = process.hrtime.bigint();
        await kernel.route({ run_id: `fill-${back}`, flow: 'three-step', step_completed: 'plan', agent: 'planner', status: 'VERIFIED', restart: { reason: 'bench' } });
        old.push(us(t0));
      }
      const perSecond = (fresh.length + old.length) / (us(tProbe) / 1e6);
      rows += fresh.length + old.length;
      await kernel.close();
      points.push({ rows: size, newP50: percentile(fresh, 50), newP99: percentile(fresh, 99), oldP50: percentile(old, 50), oldP99: percentile(old, 99), perSecond });
    }
    const indexes = routeIndexes(ledger);
    const plan = (ledgerSql(ledger).db.prepare('EXPLAIN QUERY PLAN SELECT state FROM routes WHERE run_id = ? ORDER BY seq DESC LIMIT 1').all('fill-1') as { detail: string }[])
      .map((p) => p.detail)
      .join('; ');
    const runs = runsKey(ledger);
    await filler.close();
    return { points, indexes, plan, runs };
  } finally {
    t.cleanup();
  }
}

/** Replay time of one recorded run of each length (recorded answers, nothing written). */
async function replayScaling(lengths: readonly number[]): Promise<{ routes: number; ms: number; perSecond: number }[]> {
  const t = tmpDir('replay');
  try {
    const ledger = openLedger(path.join(t.dir, 'ledger.sqlite'), { jsonl: false });
    const kernel = createKernel({ flows: LONG_FLOWS, store: ledger, validate: false });
    const out: { routes: number; ms: number; perSecond: number }[] = [];
    for (const len of lengths) {
      const id = `long-${len}`;
      const gen = longRun(id, len);
      let done = 0;
      while (done < len) {
        const batch: RouteRequest[] = [];
        for (let r = gen.next(); !r.done; r = gen.next()) {
          batch.push(r.value);
          if (batch.length === 20_000) break;
        }
        done += await routeInTransaction(ledger, (r) => kernel.route(r), batch);
      }
      await replayRun(ledger, id, LONG_FLOWS, { maxDivergences: 1 }); // warm-up: JIT and pages
      const t0 = process.hrtime.bigint();
      const report = await replayRun(ledger, id, LONG_FLOWS);
      const ms = us(t0) / 1000;
      if (!report.identical || report.routes !== len) throw new Error(`replay of ${id}: ${report.routes} routes, identical=${report.identical}`);
      out.push({ routes: len, ms, perSecond: (len / ms) * 1000 });
    }
    await kernel.close();
    return out;
  } finally {
    t.cleanup();
  }
}

interface ConcPoint {
  runs: number;
  jsonl: boolean;
  routes: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/**
 * Ledgered routes/s and latency with 1…256 runs in flight through ONE kernel on one SQLite ledger (durability
 * normal, validation on), decisions.jsonl off and on: the PostgreSQL section's `concurrentRuns` on the demo
 * runner's request mix. Routes/s counts from the first route to the ledger closed (decisions.jsonl drained).
 */
async function concurrencyScaling(levels: readonly number[], runs: number): Promise<ConcPoint[]> {
  const t = tmpDir('conc');
  try {
    const requests = await requestStream(runs, 'scale');
    // Warm the JIT (and the jsonl worker's code) on a throwaway ledger first.
    await concurrentRuns(openLedger(path.join(t.dir, 'warm.sqlite'), { durability: 'normal', jsonl: true, runBase: path.join(t.dir, 'warm') }), requests.slice(0, 2_000), 16);
    const out: ConcPoint[] = [];
    let n = 0;
    for (const jsonl of [false, true]) {
      for (const conc of levels) {
        const sub = `c${conc}-${jsonl ? 'j' : 'n'}`;
        const stream = requests.map((r) => ({ ...r, run_id: `${r.run_id}-${sub}` }));
        const ledger = openLedger(path.join(t.dir, `${n}.sqlite`), { durability: 'normal', jsonl, runBase: path.join(t.dir, `runs-${n++}`) });
        const t0 = process.hrtime.bigint();
        const r = await concurrentRuns(ledger, stream, conc);
        out.push({ runs: conc, jsonl, routes: r.routes, perSecond: r.routes / (us(t0) / 1e6), p50: r.p50, p99: r.p99 });
      }
    }
    return out;
  } finally {
    t.cleanup();
  }
}

interface MemPoint {
  runs: number;
  live_runs: number;
  rss_mb: number;
  heap_mb: number;
  heap_total_mb: number;
  external_mb: number;
}

const MEMORY_SETUPS = [
  { key: 'sqlite_default', store: 'sqlite', cap: 'default', label: 'SQLite ledger, maxLiveRuns default' },
  { key: 'sqlite_unbounded', store: 'sqlite', cap: 'unbounded', label: 'SQLite ledger, no maxLiveRuns cap' },
  { key: 'memory_default', store: 'memory', cap: 'default', label: 'MemoryStore, maxLiveRuns default' },
] as const;

/** Memory after GC of a fresh process holding more and more live runs (bench/live-runs-child.ts), per setup. */
function memoryScaling(counts: readonly number[]): { setup: (typeof MEMORY_SETUPS)[number]; points: MemPoint[] }[] {
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'live-runs-child.js');
  return MEMORY_SETUPS.map((setup) => {
    const t = tmpDir('live');
    try {
      const out = execFileSync(process.execPath, ['--expose-gc', child, setup.store, setup.cap, counts.join(','), t.dir], { encoding: 'utf8', maxBuffer: 1 << 20 });
      return { setup, points: out.trim().split('\n').map((l) => JSON.parse(l) as MemPoint) };
    } finally {
      t.cleanup();
    }
  });
}

/** Heap bytes per run between two checkpoints (the marginal cost of one more run). */
function bytesPerRun(points: readonly MemPoint[], from: number, to: number): number {
  const a = points.find((p) => p.runs === from);
  const b = points.find((p) => p.runs === to);
  return a && b && to > from ? ((b.heap_mb - a.heap_mb) * 2 ** 20) / (to - from) : NaN;
}

interface NavPoint {
  repo: string;
  files: number;
  mb: number;
  coldMs: number;
  warmMs: number;
  rssMb: number;
}

/**
 * Navigation time by repository size, from the navigator's own bench (each navigation a fresh process; cold =
 * empty cache, warm = the second run on the same cache). The quick run times only the small repository.
 */
async function navigatorScaling(quick: boolean): Promise<NavPoint[]> {
  if (!quick) return (await navigatorSizeSeries({ quick: false })).map((s) => ({ repo: s.repo, files: s.files, mb: s.bytes / 2 ** 20, coldMs: s.cold_ms, warmMs: s.warm_ms, rssMb: s.rss_mb }));
  const t = tmpDir('nav');
  try {
    const r = timeNavigation(BENCH_REPOS.small, t.dir);
    return [{ repo: r.repo, files: r.files, mb: NaN, coldMs: r.cold.ms, warmMs: r.warm.ms, rssMb: Math.max(r.cold.rss_mb, r.warm.rss_mb) }];
  } finally {
    t.cleanup();
  }
}

/** The scaling section. */
export async function benchScaling(opts: ScalingOptions): Promise<BenchSection> {
  const chartDir = opts.outDir ?? path.join(packageRoot(), 'bench');
  const sizes = opts.quick ? [1_000, 3_000, 10_000] : [10_000, 30_000, 100_000, 300_000, 1_000_000];
  const sampleRuns = opts.quick ? 100 : 600;
  const lengths = opts.quick ? [1_000, 3_000, 10_000] : [1_000, 10_000, 100_000];
  const levels = opts.quick ? [1, 4, 16, 64] : [1, 4, 16, 64, 256];
  const concRuns = opts.quick ? 64 : 1_024;
  const liveCounts = opts.quick ? [1, 100, 1_000] : [1, 100, 1_000, 10_000, 100_000];
  const figures: Record<string, number> = {};
  const chart = (name: string) => path.join(chartDir, `scaling-${name}.svg`);

  const growth = await ledgerGrowth(sizes, sampleRuns);
  for (const p of growth.points) {
    Object.assign(figures, { [`growth_${p.rows}_per_s`]: p.perSecond, [`growth_${p.rows}_new_p50_us`]: p.newP50, [`growth_${p.rows}_new_p99_us`]: p.newP99, [`growth_${p.rows}_old_p50_us`]: p.oldP50, [`growth_${p.rows}_old_p99_us`]: p.oldP99 });
  }
  const ledgerX = 'routes recorded in the ledger';
  writeStackedChart(chart('ledger'), [
    { title: 'Routes/s as the ledger grows (one route at a time)', xLabel: ledgerX, yLabel: 'routes/s', logX: true, series: [{ name: 'routes/s', points: growth.points.map((p) => [p.rows, p.perSecond]) }] },
    {
      title: 'Route latency as the ledger grows',
      xLabel: ledgerX,
      yLabel: 'µs per route',
      logX: true,
      series: [
        { name: 'new run p50', points: growth.points.map((p) => [p.rows, p.newP50]) },
        { name: 'new run p99', points: growth.points.map((p) => [p.rows, p.newP99]) },
        { name: 'restored run p50', points: growth.points.map((p) => [p.rows, p.oldP50]) },
        { name: 'restored run p99', points: growth.points.map((p) => [p.rows, p.oldP99]) },
      ],
    },
  ]);

  const conc = await concurrencyScaling(levels, concRuns);
  for (const c of conc) Object.assign(figures, { [`conc_${c.runs}_jsonl_${c.jsonl ? 'on' : 'off'}_per_s`]: c.perSecond, [`conc_${c.runs}_jsonl_${c.jsonl ? 'on' : 'off'}_p99_us`]: c.p99 });
  const concSeries = (jsonl: boolean, y: (c: ConcPoint) => number) => ({ name: `decisions.jsonl ${jsonl ? 'on' : 'off'}`, points: conc.filter((c) => c.jsonl === jsonl).map((c) => [c.runs, y(c)] as const) });
  const concX = 'runs in flight through one kernel';
  writeStackedChart(chart('concurrency'), [
    { title: 'Ledgered routes/s against concurrent runs (SQLite)', xLabel: concX, yLabel: 'routes/s', logX: true, legend: 'top-left', series: [concSeries(false, (c) => c.perSecond), concSeries(true, (c) => c.perSecond)] },
    { title: 'p99 route latency against concurrent runs (SQLite)', xLabel: concX, yLabel: 'p99 µs per route', logX: true, legend: 'top-left', series: [concSeries(false, (c) => c.p99), concSeries(true, (c) => c.p99)] },
  ]);

  const replay = await replayScaling(lengths);
  for (const r of replay) Object.assign(figures, { [`replay_${r.routes}_ms`]: r.ms, [`replay_${r.routes}_per_s`]: r.perSecond });
  writeLineChart(chart('replay'), {
    title: 'Replay time against run length',
    xLabel: 'routes in the recorded run',
    yLabel: 'ms to replay',
    logX: true,
    series: [{ name: 'replay', points: replay.map((r) => [r.routes, r.ms]) }],
  });

  const memory = memoryScaling(liveCounts);
  for (const m of memory) for (const p of m.points) Object.assign(figures, { [`live_${m.setup.key}_${p.runs}_heap_mb`]: p.heap_mb, [`live_${m.setup.key}_${p.runs}_rss_mb`]: p.rss_mb, [`live_${m.setup.key}_${p.runs}_live_runs`]: p.live_runs });
  const top = liveCounts[liveCounts.length - 1]!;
  const unbounded = memory.find((m) => m.setup.key === 'sqlite_unbounded')!;
  const capped = memory.find((m) => m.setup.key === 'sqlite_default')!;
  const perRun = bytesPerRun(unbounded.points, 1, top);
  figures.live_run_heap_bytes = perRun;
  // Past the cap only when the largest count went beyond it (not in the quick run).
  const cappedLive = capped.points.find((p) => p.runs === top)?.live_runs ?? top;
  const pastCap = cappedLive < top ? bytesPerRun(capped.points, cappedLive, top) : NaN;
  const memStore = memory.find((m) => m.setup.key === 'memory_default')!;
  const memPastCap = cappedLive < top ? bytesPerRun(memStore.points, cappedLive, top) : NaN;
  const rssAt = (m: (typeof memory)[number], n: number) => m.points.find((p) => p.runs === n)?.rss_mb ?? NaN;
  const heapTotalAt = (m: (typeof memory)[number], n: number) => m.points.find((p) => p.runs === n)?.heap_total_mb ?? NaN;
  if (cappedLive < top) Object.assign(figures, { live_run_heap_bytes_past_cap: pastCap, live_run_heap_bytes_past_cap_memory_store: memPastCap });
  // Checkpoint 0 (nothing routed) is the baseline; the log axis starts at 1 run.
  const memSeries = (y: (p: MemPoint) => number) => memory.map((m) => ({ name: m.setup.label, points: m.points.filter((p) => p.runs > 0).map((p) => [p.runs, y(p)] as const) }));
  const liveX = 'runs started (each routed 3 steps, left unfinished)';
  writeStackedChart(chart('memory'), [
    { title: 'Heap after GC against live runs', xLabel: liveX, yLabel: 'heap used MB', logX: true, legend: 'top-left', series: memSeries((p) => p.heap_mb) },
    { title: 'Resident set against live runs', xLabel: liveX, yLabel: 'RSS MB', logX: true, legend: 'top-left', series: memSeries((p) => p.rss_mb) },
  ]);

  const nav = await navigatorScaling(opts.quick);
  nav.forEach((n, i) => Object.assign(figures, { [`nav_${i}_files`]: n.files, [`nav_${i}_cold_ms`]: n.coldMs, [`nav_${i}_warm_ms`]: n.warmMs, [`nav_${i}_peak_rss_mb`]: n.rssMb }));
  writeLineChart(chart('navigator'), {
    title: 'Navigator time against repository size',
    xLabel: 'files in the repository index',
    yLabel: 'ms per navigation',
    logX: true,
    series: [
      { name: 'cold (indexing)', points: nav.map((n) => [n.files, n.coldMs]) },
      { name: 'warm (cached index)', points: nav.map((n) => [n.files, n.warmMs]) },
    ],
  });

  const kib = (b: number) => (!Number.isFinite(b) ? 'n/a' : Math.abs(b) < 1024 ? `${Math.round(b)} bytes` : `${(b / 1024).toFixed(1)} KiB`);
  const mb = (v: number) => `${Math.round(v)} MB`;
  const body = [
    `How to read this: five growth curves, each also drawn beside this file as ${['ledger', 'concurrency', 'replay', 'memory', 'navigator'].map((c) => `[scaling-${c}.svg](scaling-${c}.svg)`).join(', ')}. Kernels per database (1, 2, 4 processes on one PostgreSQL database) are measured in the PostgreSQL section above, not here. The figures come from whatever machine ran the bench; on a shared machine they are pessimistic.`,
    '',
    `**Routes/s and route latency as the ledger grows.** The ledger (SQLite, durability normal, one transaction per route, decisions.jsonl off) is filled with the three-step flow's runs up to each size, then a fresh kernel (nothing live, validation on) routes every step of ${sampleRuns} new runs (3-5 routes each; a new run is looked up first) and one more route into each of ${sampleRuns} runs recorded earlier, spread over the file (restored from its last row); routes/s is all those probe routes over their wall time, one at a time. ` +
      `What keeps it flat, as read from the ledger file: indexes on \`routes\`: ${growth.indexes}. SQLite's plan for a run's last snapshot: ${growth.plan}; ${growth.runs}. Each lookup is a B-tree search, O(log n), so a thousandfold larger ledger adds a level or two of pages, not time per row.`,
    '',
    table(
      ['routes in ledger', 'routes/s', 'new run p50 µs', 'new run p99 µs', 'restored run p50 µs', 'restored run p99 µs'],
      growth.points.map((p) => [p.rows, p.perSecond, p.newP50, p.newP99, p.oldP50, p.oldP99]),
    ),
    '',
    `**Routes/s and p99 against concurrent runs.** ONE kernel on one SQLite ledger (durability normal, validation on), N runs in flight at once (each run's routes in order, the next run started as one finishes), ${conc[0]?.routes.toLocaleString('en-US') ?? 0} routes of the demo runner's mix (${concRuns.toLocaleString('en-US')} runs) per point, through the PostgreSQL section's \`concurrentRuns\`; routes/s is measured to the ledger closed, so decisions.jsonl's worker has drained. Concurrent routes share a commit (group commit), which is where the gain with N comes from; p99 grows as each route waits for the batch it joined.`,
    '',
    table(['runs in flight', 'decisions.jsonl', 'routes', 'routes/s', 'p50 µs', 'p99 µs'], conc.map((c) => [String(c.runs), c.jsonl ? 'on' : 'off', c.routes, c.perSecond, c.p50, c.p99])),
    '',
    `**Replay time against run length.** One recorded run per length (a work microloop and a checker branch, repeated), re-routed by \`replayRun\` with recorded answers after one warm-up replay; every replay is checked identical.`,
    '',
    table(['routes in run', 'replay ms', 'routes/s'], replay.map((r) => [r.routes, r.ms, r.perSecond])),
    '',
    `**Memory against live runs.** A fresh Node process (\`bench/live-runs-child.ts\`, --expose-gc) starts runs one after another, each routed 3 steps and left unfinished, and at each count collects garbage twice and reads \`process.memoryUsage()\` (heap used: live objects; heap total: what V8 holds); the 0 row is the kernel and its store open, nothing routed. ` +
      `The kernel keeps a run's XState actor live after its route, in least-recently-used order, up to \`maxLiveRuns\` (default 10,000); past it the oldest idle actor is stopped and the run reloaded from the store when routed again. ` +
      (cappedLive < top
        ? `So the actors are bounded: with the default cap the live actors stop at ${cappedLive.toLocaleString('en-US')}, and from ${cappedLive.toLocaleString('en-US')} to ${top.toLocaleString('en-US')} runs started the heap grows only by what the store keeps per run: ${kib(pastCap)} per further run on the SQLite ledger (its cache of run heads, capped at 100,000 runs, so it levels off there), ${kib(memPastCap)} on the MemoryStore (each run's state, capped at 100,000 runs). ` +
          `RSS does not level off as the heap does: ${mb(rssAt(capped, cappedLive))} → ${mb(rssAt(capped, top))} on the SQLite ledger and ${mb(rssAt(memStore, cappedLive))} → ${mb(rssAt(memStore, top))} on the MemoryStore over the same runs, as the process keeps the memory it grew to churn through stopped actors: V8's heap (heap total: ${mb(heapTotalAt(capped, cappedLive))} → ${mb(heapTotalAt(capped, top))} on the SQLite ledger), the allocator's slack, and SQLite's page cache (32 MB at most). `
        : `(This quick run stays under the cap: its plateau shows only in the full run.) `) +
      `With the cap lifted (\`maxLiveRuns: Infinity\`) every run stays live: ${kib(perRun)} of heap per live run (from 1 to ${top.toLocaleString('en-US')} runs). The 0 rows show the fixed cost: Node, the kernel, its flows and the store, before any run.`,
    '',
    table(
      ['setup', 'runs started', 'live actors', 'heap used MB', 'heap total MB', 'RSS MB'],
      memory.flatMap((m) => m.points.map((p) => [m.setup.label, p.runs.toLocaleString('en-US'), p.live_runs.toLocaleString('en-US'), p.heap_mb, p.heap_total_mb, p.rss_mb])),
    ),
    '',
    `**Navigator time against repository size.** A whole \`navigate()\` in a fresh Node process (the navigator bench's \`navigatorSizeSeries\`), cold (empty cache: scan, parse, token counts) then warm (second run on the same cache), on a test fixture and real packages from node_modules${opts.quick ? ' (quick run: the small repository only)' : ''}. Process start-up and grammar/tokenizer loading are in every figure.`,
    '',
    table(['repository', 'files', 'MB', 'cold ms', 'warm ms', 'peak RSS MB'], nav.map((n) => [n.repo, n.files.toLocaleString('en-US'), Number.isNaN(n.mb) ? '—' : n.mb, n.coldMs, n.warmMs, n.rssMb])),
  ].join('\n');
  return { title: 'Scaling: ledger size, concurrent runs, run length, live runs, repository size', body, figures };
}
