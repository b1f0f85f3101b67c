// PostgreSQL ledger bench: ledgered routes/s on SQLite and on PostgreSQL side by side, with 1, 4 and 16 concurrent
// runs in one process, and 4 processes routing one run. PostgreSQL runs with durable settings (fsync=on,
// synchronous_commit=on, full_page_writes=on: a throwaway server from scripts/with-postgres.sh --durable, or
// BENCH_DATABASE_URL); the settings in force are read back from the server and printed.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
import { percentile, table, type BenchSection } from './stats.js';

interface Result {
  routes: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** A durable throwaway server (or BENCH_DATABASE_URL), and how to stop it. */
async function durableServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.BENCH_DATABASE_URL) return { url: process.env.BENCH_DATABASE_URL, stop: async () => {} };
  return startThrowawayPostgres({ durable: true });
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
export async function concurrentRuns(store: KernelStore, requests: RouteRequest[], conc: number): Promise<Result> {
  const flows = await flowsOnce();
  const byRun = new Map<string, RouteRequest[]>();
  for (const r of requests) (byRun.get(r.run_id) ?? byRun.set(r.run_id, []).get(r.run_id)!).push(r);
  const runs = [...byRun.values()];
  const kernel = createKernel({ flows, store });
  const lat: number[] = [];
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: conc }, async () => {
      for (let k = next++; k < runs.length; k = next++) {
        for (const r of runs[k]!) {
          const s = process.hrtime.bigint();
          await kernel.route(r);
          lat.push(Number(process.hrtime.bigint() - s) / 1000);
        }
      }
    }),
  );
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  await kernel.close();
  return { routes: lat.length, perSecond: lat.length / secs, p50: percentile(lat, 50), p99: percentile(lat, 99) };
}

/** `procs` processes route the same run `each` times; the run must come out whole (verify). */
async function processesOnOneRun(location: string, procs: number, each: number): Promise<Result & { verified: boolean }> {
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'postgres-child.js');
  const run = `one-run-${Date.now()}`;
  const kids = Array.from({ length: procs }, () => spawn(process.execPath, [child, location, run, String(each)], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const outputs = kids.map(
    (k) =>
      new Promise<{ ready: Promise<void>; done: Promise<{ routes: number; latencies_us: number[] }> }>((resolve) => {
        let readyFn!: () => void;
        let doneFn!: (v: { routes: number; latencies_us: number[] }) => void;
        let failFn!: (e: Error) => void;
        const ready = new Promise<void>((r, j) => ((readyFn = r), (failFn = j)));
        const done = new Promise<{ routes: number; latencies_us: number[] }>((r, j) => ((doneFn = r), (failFn = ((f) => (e: Error) => (f(e), j(e)))(failFn))));
        ready.catch(() => {});
        createInterface({ input: k.stdout! }).on('line', (l: string) => (l === 'READY' ? readyFn() : l.startsWith('{') && doneFn(JSON.parse(l))));
        k.once('exit', (code) => code !== 0 && failFn(new Error(`bench child exited with ${code}`)));
        resolve({ ready, done });
      }),
  );
  const handles = await Promise.all(outputs);
  await Promise.all(handles.map((h) => h.ready));
  const t0 = process.hrtime.bigint();
  for (const k of kids) k.stdin!.end('GO\n');
  const results = await Promise.all(handles.map((h) => h.done));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const lat = results.flatMap((r) => r.latencies_us);
  const ledger = openLedgerAt(location, { create: false, readOnly: true });
  const report = await verifyLedger(ledger, { run });
  await ledger.close();
  return { routes: lat.length, perSecond: lat.length / secs, p50: percentile(lat, 50), p99: percentile(lat, 99), verified: report.ok && report.routes === lat.length };
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
    const body = [
      `PostgreSQL ${settings.server_version} on this machine, durable: fsync=${settings.fsync}, synchronous_commit=${settings.synchronous_commit}, full_page_writes=${settings.full_page_writes}, wal_sync_method=${settings.wal_sync_method} (read back from the server). ` +
        'SQLite: WAL, decisions.jsonl off on both sides (the PostgreSQL ledger writes none). Demo-runner request mix, validation on; N runs routed concurrently by one kernel (each run\'s routes in order). Goals: PostgreSQL ≥ 5,000 ledgered routes/s with 16 concurrent runs, durable.',
      '',
      table(['store', 'concurrent runs', 'routes', 'routes/s', 'p50 µs', 'p99 µs'], rows),
      '',
      `4 processes routing ONE run (each route appends to the shared run; a process holding a stale state gets LEDGER_CONFLICT and re-routes): ${each} routes per process. Goal: ≥ 1,500/s on PostgreSQL. The run verified whole afterwards (no gap, no duplicate, chain intact): PostgreSQL ${pgOne.verified ? 'yes' : 'NO'}, SQLite ${sqliteOne.verified ? 'yes' : 'NO'}.`,
      '',
      table(['store', 'processes', 'routes', 'routes/s', 'p50 µs', 'p99 µs'], [
        ['PostgreSQL', '4', pgOne.routes, pgOne.perSecond, pgOne.p50, pgOne.p99],
        ['SQLite, synchronous=NORMAL', '4', sqliteOne.routes, sqliteOne.perSecond, sqliteOne.p50, sqliteOne.p99],
      ]),
    ].join('\n');
    return { title: 'PostgreSQL ledger: SQLite vs PostgreSQL (durable), concurrent runs, processes on one run', body, figures };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
}
