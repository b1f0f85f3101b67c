// PostgreSQL ledger bench: ledgered routes/s on SQLite and on PostgreSQL side by side, with 1, 4 and 16 concurrent
// runs in one process, and 4 processes routing one run. PostgreSQL runs with durable settings (fsync=on,
// synchronous_commit=on, full_page_writes=on: a throwaway server from scripts/with-postgres.sh --durable, or
// BENCH_DATABASE_URL); the settings in force are read back from the server and printed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { KernelStore, RouteRequest } from '../src/contracts/index.js';
import { createKernel } from '../src/kernel/index.js';
import { PostgresLedger, openLedger, openLedgerAt, verifyLedger } from '../src/ledger/index.js';
import { startThrowawayPostgres } from '../scripts/postgres-server.js';
import { flowsOnce, requestStream } from './ledger.js';
import { routeRuns } from './route-runs.js';
import { fmt, percentile, table, type BenchSection } from './stats.js';

interface Result {
  routes: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU time per route of this process (kernel and ledger client), µs. */
  cpuUs?: number;
}

/** A durable throwaway server (or BENCH_DATABASE_URL: then no pgdata, and no server CPU figures), and how to stop it. */
async function durableServer(): Promise<{ url: string; pgdata?: string; stop: () => Promise<void> }> {
  if (process.env.BENCH_DATABASE_URL) return { url: process.env.BENCH_DATABASE_URL, stop: async () => {} };
  return startThrowawayPostgres({ durable: true });
}

/**
 * CPU time (µs) used so far by the throwaway server: its postmaster and every process it started (backends, WAL
 * writer, checkpointer), from /proc (Linux); undefined elsewhere. Backends that exited are not counted, so read it
 * around a pass whose connections stay open.
 */
function serverCpuUs(pgdata: string | undefined): number | undefined {
  if (!pgdata || process.platform !== 'linux') return undefined;
  try {
    const postmaster = readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
    const tick = 1e6 / 100; // USER_HZ is 100 on Linux
    let total = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue;
      }
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (pid === postmaster || f[1] === postmaster) total += (Number(f[11]) + Number(f[12])) * tick;
    }
    return total;
  } catch {
    return undefined;
  }
}

async function serverSettings(url: string): Promise<Record<string, string>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const out: Record<string, string> = {};
    for (const k of ['server_version', 'fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method']) out[k] = (await c.query(`SHOW ${k}`)).rows[0][k];
    return out;
  } finally {
    await c.end();
  }
}

/** Routes `requests` with `conc` runs in flight at once (a run's routes in order), through one kernel on `store`. */
export async function concurrentRuns(store: KernelStore, requests: readonly RouteRequest[], conc: number, serverCpu?: () => number | undefined): Promise<Result & { serverCpuUs?: number }> {
  const flows = await flowsOnce();
  const kernel = createKernel({ flows, store });
  const s0 = serverCpu?.();
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const lat = await routeRuns(kernel, requests, conc);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  // Read before closing: the pool's backends exit with it, and their CPU time with them.
  const s1 = serverCpu?.();
  await kernel.close();
  return {
    routes: lat.length, perSecond: lat.length / secs, p50: percentile(lat, 50), p99: percentile(lat, 99), cpuUs: (cpu.user + cpu.system) / lat.length,
    ...(s0 !== undefined && s1 !== undefined ? { serverCpuUs: (s1 - s0) / lat.length } : {}),
  };
}

/**
 * Starts one bench child per argument list (bench/postgres-child.ts), waits until all are READY (warmed up), starts
 * them together and gathers their latencies; the throughput is all routes over the wall time from GO to the last.
 */
async function childProcesses(argLists: readonly string[][]): Promise<Result> {
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'postgres-child.js');
  const kids = argLists.map((args) => spawn(process.execPath, [child, ...args], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const handles = kids.map((k) => {
    let readyFn!: () => void;
    let doneFn!: (v: { routes: number; latencies_us: number[] }) => void;
    let failReady!: (e: Error) => void;
    let failDone!: (e: Error) => void;
    const ready = new Promise<void>((r, j) => ((readyFn = r), (failReady = j)));
    const done = new Promise<{ routes: number; latencies_us: number[] }>((r, j) => ((doneFn = r), (failDone = j)));
    ready.catch(() => {});
    done.catch(() => {});
    createInterface({ input: k.stdout! }).on('line', (l: string) => (l === 'READY' ? readyFn() : l.startsWith('{') && doneFn(JSON.parse(l))));
    k.once('exit', (code) => {
      const e = new Error(`bench child exited with ${code}`);
      failReady(e);
      failDone(e);
    });
    return { ready, done };
  });
  await Promise.all(handles.map((h) => h.ready));
  const t0 = process.hrtime.bigint();
  for (const k of kids) k.stdin!.end('GO\n');
  const results = await Promise.all(handles.map((h) => h.done));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const lat = results.flatMap((r) => r.latencies_us);
  return { routes: lat.length, perSecond: lat.length / secs, p50: percentile(lat, 50), p99: percentile(lat, 99) };
}

/** `procs` processes route the same run `each` times; the run must come out whole (verify). */
async function processesOnOneRun(location: string, procs: number, each: number): Promise<Result & { verified: boolean }> {
  const run = `one-run-${Date.now()}`;
  const r = await childProcesses(Array.from({ length: procs }, () => [location, run, String(each)]));
  const ledger = openLedgerAt(location, { create: false, readOnly: true });
  const report = await verifyLedger(ledger, { run });
  await ledger.close();
  return { ...r, verified: report.ok && report.routes === r.routes };
}

/** `procs` kernel processes on one database, each routing `runs` demo runs of its own, `conc` at once; verified whole. */
async function kernelsOnOneDatabase(location: string, procs: number, runs: number, conc: number): Promise<Result & { verified: boolean }> {
  const r = await childProcesses(Array.from({ length: procs }, (_, i) => [location, '--own', `k${procs}p${i}`, String(runs), String(conc)]));
  const ledger = openLedgerAt(location, { create: false, readOnly: true });
  const report = await verifyLedger(ledger);
  await ledger.close();
  // Each child routed a warm-up of its own first: the ledger holds more routes than were timed, all verified.
  return { ...r, verified: report.ok && report.routes >= r.routes };
}

/**
 * The floor the disk sets, measured beside the ledger: `conns` connections each committing one-row INSERTs in a
 * loop (durable), for `ms`: commits/s and the median commit time. With 16 connections it is what 16 runs would get if
 * each route were one commit of nothing but a row, the server's own WAL group flush doing the grouping.
 */
async function durableCommitFloor(url: string, conns: number, ms: number): Promise<{ perSecond: number; p50: number }> {
  const clients = await Promise.all(
    Array.from({ length: conns }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  try {
    await clients[0]!.query('CREATE TABLE IF NOT EXISTS public.bench_floor (x int)');
    const lat: number[] = [];
    const end = performance.now() + ms;
    const t0 = performance.now();
    await Promise.all(
      clients.map(async (c) => {
        while (performance.now() < end) {
          const s = performance.now();
          await c.query('INSERT INTO public.bench_floor VALUES (1)');
          lat.push((performance.now() - s) * 1000);
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    await clients[0]!.query('DROP TABLE public.bench_floor');
    return { perSecond: lat.length / secs, p50: percentile(lat, 50) };
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

export async function benchPostgres(opts: { quick: boolean }): Promise<BenchSection> {
  const figures: Record<string, number> = {};
  const server = await durableServer();
  const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-bench-pg-'));
  try {
    const settings = await serverSettings(server.url);
    const requests = await requestStream(opts.quick ? 8 : 320, 'pgbench');
    const rows: (string | number)[][] = [];
    let n = 0;
    for (const conc of [1, 4, 16]) {
      const stream = requests.map((r) => ({ ...r, run_id: `${r.run_id}-c${conc}` }));
      const sub = conc === 1 ? stream.slice(0, opts.quick ? 100 : 3_000) : stream;
      const sqliteNormal = await concurrentRuns(openLedger(path.join(dir, `n${n++}.sqlite`), { durability: 'normal', jsonl: false }), sub, conc);
      const sqliteFull = await concurrentRuns(openLedger(path.join(dir, `f${n++}.sqlite`), { durability: 'full', jsonl: false }), sub, conc);
      const u = new URL(server.url);
      u.searchParams.set('schema', `bench_c${conc}`);
      const pgGroup = await concurrentRuns(await PostgresLedger.open(u.toString()), sub, conc);
      u.searchParams.set('schema', `bench_c${conc}_single`);
      const pgSingle = await concurrentRuns(await PostgresLedger.open(u.toString(), { groupCommit: false }), sub, conc);
      for (const [name, r] of [
        ['SQLite, synchronous=NORMAL', sqliteNormal],
        ['SQLite, synchronous=FULL', sqliteFull],
        ['PostgreSQL, group commit', pgGroup],
        ['PostgreSQL, a commit per route', pgSingle],
      ] as const) {
        rows.push([name, String(conc), r.routes, r.perSecond, r.p50, r.p99]);
        const key = name.toLowerCase().replace(/[^a-z]+/g, '_').replace(/_$/, '');
        figures[`${key}_c${conc}_per_s`] = r.perSecond;
        figures[`${key}_c${conc}_p99_us`] = r.p99;
      }
    }
    const each = opts.quick ? 25 : 1_000;
    const pgUrl = new URL(server.url);
    pgUrl.searchParams.set('schema', 'bench_one_run');
    const pgOne = await processesOnOneRun(pgUrl.toString(), 4, each);
    const sqliteOne = await processesOnOneRun(path.join(dir, 'one.sqlite'), 4, each);
    figures.postgres_4proc_one_run_per_s = pgOne.perSecond;
    figures.postgres_4proc_one_run_p99_us = pgOne.p99;
    figures.sqlite_4proc_one_run_per_s = sqliteOne.perSecond;
    figures.sqlite_4proc_one_run_p99_us = sqliteOne.p99;
    // How it scales: the pipelined group commit with 1-64 runs in one kernel (and, for comparison in the same run,
    // one batch in flight at a time), then 1, 2 and 4 kernel processes on one database, 16 runs each; the disk's
    // floor measured just before, on the same server.
    const floorMs = opts.quick ? 1_000 : 3_000;
    const floor1 = await durableCommitFloor(server.url, 1, floorMs);
    const floor16 = await durableCommitFloor(server.url, 16, floorMs);
    figures.postgres_floor_1conn_commits_per_s = floor1.perSecond;
    figures.postgres_floor_1conn_commit_p50_us = floor1.p50;
    figures.postgres_floor_16conn_commits_per_s = floor16.perSecond;
    const scaleStream = await requestStream(opts.quick ? 64 : 256, 'pgscale');
    const runIds = [...new Set(scaleStream.map((r) => r.run_id))];
    const scaleRows: (string | number)[][] = [];
    const su = new URL(server.url);
    for (const [conc, inFlight] of [[1, 4], [4, 4], [16, 4], [16, 1], [64, 4], [64, 1]] as const) {
      const keep = new Set(runIds.slice(0, Math.max(opts.quick ? 2 * conc : 4 * conc, opts.quick ? 4 : 16)));
      const sub = scaleStream.filter((r) => keep.has(r.run_id)).map((r) => ({ ...r, run_id: `${r.run_id}-r${conc}f${inFlight}` }));
      su.searchParams.set('schema', `bench_scale_r${conc}_f${inFlight}`);
      const ledger = await PostgresLedger.open(su.toString(), { maxInFlight: inFlight });
      const r = await concurrentRuns(ledger, sub, conc, () => serverCpuUs(server.pgdata));
      const serverCpu = r.serverCpuUs ?? NaN;
      const st = ledger.commitStats;
      scaleRows.push([inFlight > 1 ? 'pipelined group commit' : 'one group commit at a time', String(conc), String(inFlight), r.routes, r.perSecond, r.p50, r.p99, st.batches, st.routes / st.batches, String(st.peakInFlight), r.cpuUs!, serverCpu]);
      const key = `postgres_${inFlight > 1 ? 'pipelined' : 'serial'}_r${conc}`;
      figures[`${key}_per_s`] = r.perSecond;
      figures[`${key}_p99_us`] = r.p99;
      figures[`${key}_kernel_cpu_us_per_route`] = r.cpuUs!;
      if (Number.isFinite(serverCpu)) figures[`${key}_server_cpu_us_per_route`] = serverCpu;
    }
    const kernelRows: (string | number)[][] = [];
    const perKernelRuns = opts.quick ? 16 : 64;
    for (const procs of [1, 2, 4]) {
      su.searchParams.set('schema', `bench_kernels_${procs}`);
      const r = await kernelsOnOneDatabase(su.toString(), procs, perKernelRuns, 16);
      kernelRows.push([String(procs), String(procs * 16), r.routes, r.perSecond, r.perSecond / procs, r.p50, r.p99, r.verified ? 'yes' : 'NO']);
      figures[`postgres_kernels_${procs}_per_s`] = r.perSecond;
      figures[`postgres_kernels_${procs}_p99_us`] = r.p99;
    }
    const pipelined16 = figures.postgres_pipelined_r16_per_s!;
    const body = [
      `PostgreSQL ${settings.server_version} on this machine, durable: fsync=${settings.fsync}, synchronous_commit=${settings.synchronous_commit}, full_page_writes=${settings.full_page_writes}, wal_sync_method=${settings.wal_sync_method} (read back from the server). ` +
        'SQLite: WAL, decisions.jsonl off on both sides (the PostgreSQL ledger writes none). Demo-runner request mix, validation on; N runs routed concurrently by one kernel (each run\'s routes in order). PostgreSQL group commit here: the ledger\'s defaults (pipelined, up to 4 commits in flight).',
      '',
      table(['store', 'concurrent runs', 'routes', 'routes/s', 'p50 µs', 'p99 µs'], rows),
      '',
      `4 processes routing ONE run (each route appends to the shared run; a process holding a stale state gets LEDGER_CONFLICT and re-routes): ${each} routes per process. Goal: ≥ 1,500/s on PostgreSQL. The run verified whole afterwards (no gap, no duplicate, chain intact): PostgreSQL ${pgOne.verified ? 'yes' : 'NO'}, SQLite ${sqliteOne.verified ? 'yes' : 'NO'}.`,
      '',
      table(['store', 'processes', 'routes', 'routes/s', 'p50 µs', 'p99 µs'], [
        ['PostgreSQL', '4', pgOne.routes, pgOne.perSecond, pgOne.p50, pgOne.p99],
        ['SQLite, synchronous=NORMAL', '4', sqliteOne.routes, sqliteOne.perSecond, sqliteOne.p50, sqliteOne.p99],
      ]),
      '',
      '### PostgreSQL: how throughput grows with runs and with kernels (durable)',
      '',
      `Goal: ≥ 10,000 ledgered routes/s with 16 concurrent runs, durable. Measured: ${fmt(pipelined16)}/s. ` +
        `The floor on this disk, measured just before on the same server: ${fmt(floor16.perSecond)} durable one-row commits/s with 16 connections each committing in a loop ` +
        `(what 16 runs would get with one commit per route and nothing but a row in it), ${fmt(floor1.perSecond)}/s with one connection (a commit took ${fmt(floor1.p50)} µs at the median). ` +
        'A run\'s next route waits for its previous route\'s commit, so 16 runs can never go faster than 16 routes per commit time: grouping and pipelining only keep the commits full and back to back. ' +
        '"in flight": group commits sent at once, each on its own connection (the next gathers and is sent while the previous commits); "per commit": routes per group commit; "peak": most in flight at once. ' +
        '"kernel CPU" and "server CPU": CPU time per route of the routing process and of the PostgreSQL server (all its processes, from /proc): their sum over the cores free is the other floor; on a shared machine it is the one that binds.',
      '',
      table(['ledger', 'runs', 'in flight', 'routes', 'routes/s', 'p50 µs', 'p99 µs', 'commits', 'per commit', 'peak', 'kernel CPU µs/route', 'server CPU µs/route'], scaleRows),
      '',
      `Kernel processes on one database, each routing its own runs (${perKernelRuns} runs, 16 at once, after a warm-up of its own), started together; routes/s over all of them, p50/p99 over every route; the ledger verified whole afterwards.`,
      '',
      table(['kernels', 'runs at once', 'routes', 'routes/s', 'per kernel', 'p50 µs', 'p99 µs', 'verified'], kernelRows),
    ].join('\n');
    return { title: 'PostgreSQL ledger: SQLite vs PostgreSQL (durable), concurrent runs, processes on one run', body, figures };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
}
