// Ledger bench: routes/s with the SQLite ledger on (each durability), route latency as the ledger grows,
// replay speed, and bytes per decision. Every figure is measured here.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RouteRequest } from '../src/contracts/index.js';
import { DEMO_SCENARIO, simulate } from '../src/demo/index.js';
import { MemoryStore, createKernel, loadFlows, type FlowSet } from '../src/kernel/index.js';
import { openLedger, type Durability } from '../src/ledger/index.js';
import { replayRun } from '../src/runs/index.js';
import { packageRoot } from '../src/package-root.js';
import { fmt, measure, table, type BenchSection } from './stats.js';
import { ledgerSql } from '../src/ledger/sqlite-ledger.js';

export const flowsOnce = (() => {
  let p: Promise<FlowSet> | undefined;
  return () => (p ??= loadFlows(path.join(packageRoot(), 'charters')));
})();

function tmp(base = tmpdir()): { file: string; dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(base, 'navkernel-bench-ledger-'));
  return { dir, file: path.join(dir, 'ledger.sqlite'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A realistic request stream: the demo runner's runs (failures, loops, detours, injections), `runs` of them. */
export async function requestStream(runs: number, prefix: string): Promise<RouteRequest[]> {
  const flows = await flowsOnce();
  const out: RouteRequest[] = [];
  const kernel = createKernel({ flows, store: new MemoryStore(), validate: false });
  await simulate(kernel, { ...DEMO_SCENARIO, runs }, { runPrefix: prefix, onStep: (s) => out.push(s.request) });
  await kernel.close();
  return out;
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) n += statSync(path.join(e.parentPath, e.name)).size;
  }
  return n;
}

/** Ledgered routes per second (validation on, one transaction per route, decisions.jsonl on) and latency. */
export async function ledgeredRoutesPerSecond(durability: Durability, runs: number, jsonl = true): Promise<{ routes: number; perSecond: number; p50: number; p99: number }> {
  const flows = await flowsOnce();
  const requests = await requestStream(runs, `bench-${durability}`);
  const t = tmp();
  try {
    // Warm the JIT on a throwaway ledger first.
    const warm = openLedger(path.join(t.dir, 'warm.sqlite'), { durability: 'normal', runBase: path.join(t.dir, 'warm') });
    const wk = createKernel({ flows, store: warm });
    for (const r of requests.slice(0, 5_000)) await wk.route(r);
    await wk.close();
    const ledger = openLedger(t.file, { durability, jsonl });
    const kernel = createKernel({ flows, store: ledger });
    const m = await measure(requests.length, (i) => kernel.route(requests[i]!));
    await kernel.close();
    return { routes: requests.length, perSecond: m.perSecond, p50: m.p50, p99: m.p99 };
  } finally {
    t.cleanup();
  }
}

/**
 * Ledgered routes/s with `concurrency` runs routed at once (each run's requests in order, the runs side by
 * side, as a runner driving many runs or a co-process reading pipelined lines does): group commit shares one
 * transaction between the routes that arrive together.
 */
export async function concurrentLedgeredRoutesPerSecond(
  concurrency: number,
  runs: number,
  jsonl: boolean,
  jsonlThread = true,
  where: { base?: string; keepTree?: (files: JsonlTree) => void } = {},
): Promise<{ routes: number; perSecond: number }> {
  const flows = await flowsOnce();
  const requests = await requestStream(runs, `conc-${concurrency}`);
  const byRun = new Map<string, RouteRequest[]>();
  for (const r of requests) byRun.set(r.run_id, [...(byRun.get(r.run_id) ?? []), r]);
  const queues = [...byRun.values()];
  const t = tmp(where.base);
  try {
    const ledger = openLedger(t.file, { durability: 'normal', jsonl, jsonlThread });
    const kernel = createKernel({ flows, store: ledger });
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let q = next++; q < queues.length; q = next++) for (const r of queues[q]!) await kernel.route(r);
      }),
    );
    await kernel.close();
    const ms = performance.now() - t0;
    where.keepTree?.(jsonlTree(t.dir));
    return { routes: requests.length, perSecond: (requests.length / ms) * 1000 };
  } finally {
    t.cleanup();
  }
}

/** The decisions.jsonl files a ledger left under its folder: relative path and content, in path order. */
type JsonlTree = { rel: string; content: string }[];

function jsonlTree(dir: string): JsonlTree {
  const out: JsonlTree = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.name === 'decisions.jsonl') out.push({ rel: r, content: readFileSync(path.join(dir, r), 'utf8') });
    }
  };
  walk('');
  return out;
}

/**
 * The filesystem's own floor for decisions.jsonl: milliseconds for one plain loop to make the same folders and write
 * the same files in a fresh folder beside where the ledger wrote them (one recursive mkdir per new folder, one write
 * per file: no routing, no SQLite, no batching).
 */
export function jsonlFilesystemFloorMs(tree: JsonlTree): number {
  const t = tmp();
  try {
    const made = new Set<string>();
    const t0 = performance.now();
    for (const f of tree) {
      const dir = path.join(t.dir, path.dirname(f.rel));
      if (!made.has(dir)) {
        mkdirSync(dir, { recursive: true });
        made.add(dir);
      }
      writeFileSync(path.join(t.dir, f.rel), f.content);
    }
    return performance.now() - t0;
  } finally {
    t.cleanup();
  }
}

/** A memory-backed folder (tmpfs) to run the same measurement without the disk, when the machine has one. */
export function memoryFolder(): string | undefined {
  return process.platform === 'linux' && existsSync('/dev/shm') ? '/dev/shm' : undefined;
}

/** RSS of a fresh process after `n` in-memory routes with unique request ids over `runs` runs (bench/rss-child.ts). */
export function rssAfterRoutes(n: number, runs: number): { routes: number; runs: number; per_s: number; samples: { routes: number; rss_mb: number }[] } {
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'rss-child.js');
  const out = execFileSync(process.execPath, [child, String(n), String(runs)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!);
}

/**
 * Route latency as the ledger grows: fills a ledger to each size (bulk, in large transactions), then measures
 * `sample` ledgered routes of new runs. Flat figures mean the (run_id, seq) primary key keeps lookups O(log n).
 */
export async function latencyAsLedgerGrows(sizes: readonly number[], sample: number): Promise<{ rows: number; perSecond: number; p50: number; p99: number }[]> {
  const flows = await flowsOnce();
  const fill = await requestStream(40, 'fill');
  const probe = await requestStream(Math.max(1, Math.ceil(sample / 80)), 'probe');
  const t = tmp();
  const out: { rows: number; perSecond: number; p50: number; p99: number }[] = [];
  try {
    const ledger = openLedger(t.file, { durability: 'normal', jsonl: false });
    const kernel = createKernel({ flows, store: ledger, validate: false, maxLiveRuns: 2_000 });
    let rows = 0;
    let batch = 0;
    for (const size of sizes) {
      while (rows < size) {
        const n = Math.min(20_000, size - rows);
        // Tier 1/2 routes append synchronously inside route(), so one outer transaction holds the whole batch.
        const pending: Promise<unknown>[] = [];
        ledgerSql(ledger).db.transaction(() => {
          for (let i = 0; i < n; i++) {
            const r = fill[i % fill.length]!;
            pending.push(kernel.route({ ...r, run_id: `${r.run_id}-b${batch}-${Math.floor(i / fill.length)}` }));
          }
        })();
        await Promise.all(pending);
        rows += n;
        batch++;
      }
      ledgerSql(ledger).checkpoint();
      const suffix = `-at-${size}`;
      const m = await measure(Math.min(sample, probe.length), (i) => kernel.route({ ...probe[i]!, run_id: probe[i]!.run_id + suffix }));
      rows += Math.min(sample, probe.length);
      out.push({ rows: size, perSecond: m.perSecond, p50: m.p50, p99: m.p99 });
    }
    await kernel.close();
    return out;
  } finally {
    t.cleanup();
  }
}

/** The same request stream through an in-memory kernel: the kernel's own share of a ledgered route. */
export async function inMemoryRoutesPerSecond(runs: number): Promise<{ routes: number; perSecond: number; p50: number; p99: number }> {
  const flows = await flowsOnce();
  const requests = await requestStream(runs, 'bench-memory');
  const warm = createKernel({ flows });
  for (const r of requests.slice(0, 5_000)) await warm.route({ ...r, run_id: `w-${r.run_id}` });
  await warm.close();
  const kernel = createKernel({ flows });
  const m = await measure(requests.length, (i) => kernel.route(requests[i]!));
  await kernel.close();
  return { routes: requests.length, perSecond: m.perSecond, p50: m.p50, p99: m.p99 };
}

/** Replay speed: recorded routes re-routed per second, over one long recorded run. */
export async function replayRoutesPerSecond(routes: number): Promise<{ routes: number; perSecond: number }> {
  const flows = await flowsOnce();
  const t = tmp();
  try {
    const ledger = openLedger(t.file, { jsonl: false });
    const kernel = createKernel({ flows, store: ledger, validate: false });
    await simulate(kernel, { ...DEMO_SCENARIO, runs: 1, sequence: Array.from({ length: Math.ceil(routes / 40) }, () => DEMO_SCENARIO.sequence).flat() }, { runPrefix: 'replay', maxStepsPerRun: routes });
    const run = 'replay-run-1';
    await replayRun(ledger, run, flows); // warm-up
    const t0 = process.hrtime.bigint();
    const report = await replayRun(ledger, run, flows);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (!report.identical) throw new Error(`bench replay diverged at seq ${report.divergences[0]?.seq}`);
    await kernel.close();
    return { routes: report.routes, perSecond: (report.routes / ms) * 1000 };
  } finally {
    t.cleanup();
  }
}

/** Bytes on disk per recorded decision: the SQLite file (checkpointed) and the decisions.jsonl files. */
export async function bytesPerDecision(runs: number): Promise<{ routes: number; offroad: number; sqliteBytesPerRoute: number; jsonlBytesPerOffroad: number }> {
  const flows = await flowsOnce();
  const t = tmp();
  try {
    const ledger = openLedger(t.file);
    const kernel = createKernel({ flows, store: ledger });
    const s = await simulate(kernel, { ...DEMO_SCENARIO, runs }, { runPrefix: 'bytes' });
    ledgerSql(ledger).checkpoint();
    ledgerSql(ledger).db.exec('VACUUM');
    const sqlite = statSync(t.file).size;
    await kernel.close();
    const jsonl = dirBytes(t.dir) - statSync(t.file).size;
    return { routes: s.routes, offroad: s.offRoad, sqliteBytesPerRoute: sqlite / s.routes, jsonlBytesPerOffroad: jsonl / s.offRoad };
  } finally {
    t.cleanup();
  }
}

/**
 * The floor under any ledger that commits each decision before answering: one bare better-sqlite3 transaction
 * inserting one 1 KB row (WAL) on this machine, with no navkernel code around it.
 */
export function bareCommitMicros(durability: Durability, n: number): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'nk-bare-'));
  const db = new Database(path.join(dir, 'bare.sqlite'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
    db.exec('CREATE TABLE t (run_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, seq))');
    const insert = db.prepare('INSERT INTO t VALUES (?, ?, ?)');
    const tx = db.transaction((i: number) => insert.run(`run-${i % 100}`, i, 'x'.repeat(1000)));
    for (let i = 0; i < Math.min(500, n); i++) tx(i);
    const t0 = performance.now();
    for (let i = 500; i < 500 + n; i++) tx(i);
    return ((performance.now() - t0) * 1000) / n;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The ledger section of `npm run bench`. */
export async function benchLedger(opts: { quick: boolean }): Promise<BenchSection> {
  const figures: Record<string, number> = {};
  const normal = await ledgeredRoutesPerSecond('normal', opts.quick ? 30 : 600);
  const full = await ledgeredRoutesPerSecond('full', opts.quick ? 5 : 40);
  // The same stream without decisions.jsonl: what creating each run's `<run>/<flow>/routing/` folders and files costs.
  const noJsonl = await ledgeredRoutesPerSecond('normal', opts.quick ? 30 : 600, false);
  const memory = await inMemoryRoutesPerSecond(opts.quick ? 30 : 600);
  // decisions.jsonl on its own thread (the default), on the routing thread (before issue 27), and off; the three
  // modes interleaved, best of `rounds`, so that a shared machine's noise falls on each alike.
  const modes = [
    { mode: 'thread', jsonl: true, thread: true },
    { mode: 'inline', jsonl: true, thread: false },
    { mode: 'off', jsonl: false, thread: false },
  ] as const;
  const rounds = opts.quick ? 2 : 3;
  const shm = memoryFolder();
  const concurrent: { mode: string; c: number; routes: number; perSecond: number }[] = [];
  for (const c of [1, 16, 64]) {
    // A row per mode, best of the rounds; the first three modes listed first whatever order the rounds fill them in.
    const keep = (mode: string, routes: number, perSecond: number) => {
      let x = concurrent.find((y) => y.c === c && y.mode === mode);
      if (!x) concurrent.push((x = { mode, c, routes: 0, perSecond: 0 }));
      x.routes = routes;
      x.perSecond = Math.max(x.perSecond, perSecond);
    };
    for (const m of modes) keep(m.mode, 0, 0);
    for (let r = 0; r < rounds; r++) {
      for (const m of modes) {
        let tree: JsonlTree | undefined;
        const x = await concurrentLedgeredRoutesPerSecond(c, opts.quick ? 64 : 600, m.jsonl, m.thread, m.mode === 'thread' ? { keepTree: (t) => (tree = t) } : {});
        keep(m.mode, x.routes, x.perSecond);
        if (m.mode !== 'thread') continue;
        // What the disk alone allows: the same folders and files made by a plain loop, routes ÷ its time.
        keep('fs-floor', x.routes, x.routes / (jsonlFilesystemFloorMs(tree!) / 1000));
        // The same run in a memory-backed folder: the code's cost without the disk's.
        if (shm) {
          const y = await concurrentLedgeredRoutesPerSecond(c, opts.quick ? 64 : 600, true, true, { base: shm });
          keep('thread-tmpfs', y.routes, y.perSecond);
        }
      }
    }
  }
  const modeKey = { thread: 'jsonl', inline: 'jsonl_inline', off: 'nojsonl', 'fs-floor': 'jsonl_fs_floor', 'thread-tmpfs': 'jsonl_tmpfs' } as Record<string, string>;
  const modeName = {
    thread: 'on, writer thread',
    inline: 'on, routing thread',
    off: 'off',
    'fs-floor': "the disk's floor: the same folders and files by a plain loop",
    'thread-tmpfs': 'on, writer thread, in a memory-backed folder (/dev/shm)',
  } as Record<string, string>;
  for (const x of concurrent) figures[`ledger_concurrent_${x.c}_${modeKey[x.mode]}_per_s`] = x.perSecond;
  const rssRoutes = opts.quick ? 100_000 : 1_000_000;
  const rssSame = rssAfterRoutes(rssRoutes, 1_000);
  const rssMany = rssAfterRoutes(rssRoutes, rssRoutes);
  figures.rss_after_routes_1000_runs_mb = rssSame.samples.at(-1)!.rss_mb;
  figures.rss_after_routes_separate_runs_mb = rssMany.samples.at(-1)!.rss_mb;
  const bareNormal = bareCommitMicros('normal', opts.quick ? 2_000 : 20_000);
  const bareFull = bareCommitMicros('full', opts.quick ? 200 : 2_000);
  figures.bare_commit_normal_us = bareNormal;
  figures.bare_commit_full_us = bareFull;
  figures.memory_per_s = memory.perSecond;
  figures.ledger_normal_per_s = normal.perSecond;
  figures.ledger_normal_p50_us = normal.p50;
  figures.ledger_normal_p99_us = normal.p99;
  figures.ledger_full_per_s = full.perSecond;
  figures.ledger_normal_no_jsonl_per_s = noJsonl.perSecond;
  figures.ledger_full_p50_us = full.p50;
  figures.ledger_full_p99_us = full.p99;
  const growth = await latencyAsLedgerGrows(opts.quick ? [0, 20_000] : [0, 100_000, 1_000_000], opts.quick ? 2_000 : 10_000);
  for (const g of growth) {
    figures[`ledger_at_${g.rows}_p50_us`] = g.p50;
    figures[`ledger_at_${g.rows}_p99_us`] = g.p99;
  }
  const replay = await replayRoutesPerSecond(opts.quick ? 5_000 : 50_000);
  figures.replay_per_s = replay.perSecond;
  const bytes = await bytesPerDecision(opts.quick ? 10 : 100);
  figures.sqlite_bytes_per_route = bytes.sqliteBytesPerRoute;
  figures.jsonl_bytes_per_offroad = bytes.jsonlBytesPerOffroad;

  const body = [
    'Ledgered `route()`, one sequential runner: validation on, SQLite ledger (WAL; a route row + run head [+ LLM calls, escalation] committed before the answer), decisions.jsonl for off-road decisions written after the commit, demo-runner request mix.',
    '',
    table(['durability', 'routes', 'routes/s', 'p50 µs', 'p99 µs'], [
      ['normal (synchronous=NORMAL)', normal.routes, normal.perSecond, normal.p50, normal.p99],
      ['full (synchronous=FULL, fsync per route)', full.routes, full.perSecond, full.p50, full.p99],
      ['normal, decisions.jsonl off', noJsonl.routes, noJsonl.perSecond, noJsonl.p50, noJsonl.p99],
      ['(no ledger: in-memory store, same requests)', memory.routes, memory.perSecond, memory.p50, memory.p99],
    ]),
    '',
    `Concurrent runs (durability normal; C runs routed side by side, each in order; group commit: the routes that arrive together share one transaction, each answered after it commits; decisions.jsonl written after the commit by a batched writer, on its own thread (default) or on the routing thread (\`jsonlThread: false\`, the code before issue 27); best of ${rounds} interleaved rounds). Goals: ≥ 20,000 routes/s with ≥ 16 concurrent runs, ≥ 8,000 for one sequential runner.`,
    '',
    table(['concurrent runs', 'decisions.jsonl', 'routes', 'routes/s'], concurrent.map((x) => [x.c, modeName[x.mode]!, x.routes, x.perSecond])),
    '',
    "How to read the floor rows: a new run's decisions.jsonl needs three new folders (`<run>/<flow>/routing/`) and a file, and on this machine's disk (ext4 on a virtual disk) a mkdir costs hundreds of µs. The floor row is routes ÷ the time a plain loop takes to make only those folders and files, measured right after each writer-thread run (best of the rounds); the writer thread does that same work before the run's clock stops, so the two rows are the same order, but the disk's speed swings by 2× from one minute to the next here and either can be ahead. The memory-backed row is the same measurement where folders are cheap: what the code costs without the disk.",
    '',
    `Memory without a ledger (a fresh process, the default MemoryStore: at most 100,000 runs, 100,000 request ids and 10,000 live run actors; unique request ids): RSS after ${rssRoutes.toLocaleString('en-US')} routes over 1,000 runs ${rssSame.samples.map((x) => `${x.rss_mb.toFixed(0)} MB at ${x.routes.toLocaleString('en-US')}`).join(', ')}; over ${rssRoutes.toLocaleString('en-US')} separate runs ${rssMany.samples.map((x) => `${x.rss_mb.toFixed(0)} MB at ${x.routes.toLocaleString('en-US')}`).join(', ')}.`,
    '',
    `Ledger cost per route (normal): ${(1e6 / normal.perSecond - 1e6 / memory.perSecond).toFixed(1)} µs on top of the kernel's ${(1e6 / memory.perSecond).toFixed(1)} µs, of which ${(1e6 / normal.perSecond - 1e6 / noJsonl.perSecond).toFixed(1)} µs is decisions.jsonl (mostly making each new run's and flow's folders and file: the demo mix opens a new file every ~6 routes; the bench writes under the OS tmp dir).`,
    '',
    `The floor on this machine: one bare better-sqlite3 transaction inserting one 1 KB row costs ${bareNormal.toFixed(1)} µs with synchronous=NORMAL (a ceiling of ${fmt(1e6 / bareNormal)} commits/s before any navkernel code runs) and ${bareFull.toFixed(1)} µs with FULL. A ledger that commits each decision before answering cannot go faster than that.`,
    '',
    'Route latency as the ledger grows (`normal`, new runs routed into a ledger already holding N rows; index: the (run_id, seq) primary key).',
    '',
    table(['rows already in the ledger', 'routes/s', 'p50 µs', 'p99 µs'], growth.map((g) => [g.rows.toLocaleString('en-US'), g.perSecond, g.p50, g.p99])),
    '',
    `Replay (\`replayRun\`: read in pages, re-route through a fresh in-memory kernel, compare): ${replay.routes.toLocaleString('en-US')} recorded routes of one run. Goal: ≥ 200,000 routes/s.`,
    '',
    table(['recorded routes', 'replayed routes/s'], [[replay.routes, replay.perSecond]]),
    '',
    `Bytes per decision (${bytes.routes} routes, ${bytes.offroad} off-road; SQLite file after checkpoint and VACUUM).`,
    '',
    table(['SQLite bytes per route', 'decisions.jsonl bytes per off-road decision'], [[bytes.sqliteBytesPerRoute, bytes.jsonlBytesPerOffroad]]),
  ].join('\n');
  return { title: 'Ledger: ledgered routes/s, latency vs size, replay, bytes per decision', body, figures };
}
