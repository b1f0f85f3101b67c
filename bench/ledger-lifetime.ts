// Bench section "lifetime": bytes per route in each store, with and without archiving, and archive / verify / restore
// throughput (docs/ledger-lifetime.md). A SQLite ledger of simulated runs is archived 10% at a time into bundles; the
// same rows copied into PostgreSQL are archived the same way.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEMO_SCENARIO, simulate } from '../src/demo/index.js';
import { createKernel, loadFlows } from '../src/kernel/index.js';
import { PostgresLedger, archiveRuns, archiveStoreFor, copyLedger, openLedger, restoreBundle, verifyArchive, verifyLedger } from '../src/ledger/index.js';
import { sampleChartersDir } from '../src/package-root.js';
import { startThrowawayPostgres } from '../scripts/postgres-server.js';
import type { BenchSection } from './stats.js';

const fileBytes = (f: string) => statSync(f).size + (statSync(`${f}-wal`, { throwIfNoEntry: false })?.size ?? 0);

export interface LifetimeFigures {
  runs: number;
  routes: number;
  archivedRuns: number;
  archivedRoutes: number;
  sqliteBytesBefore: number;
  sqliteBytesAfter: number;
  bundleBytes: number;
  archiveMs: number;
  verifyArchiveMs: number;
  verifyLedgerMs: number;
  restoreMs: number;
  pgBytesBefore?: number;
  pgBytesAfter?: number;
  pgArchiveMs?: number;
}

/** Builds a ledger of `runs` simulated runs, archives `share` of them, checks and restores them; PostgreSQL too unless `pg: false`. */
export async function measureLifetime(runs: number, share = 0.1, options: { pg?: boolean; log?: (s: string) => void } = {}): Promise<LifetimeFigures> {
  const log = options.log ?? (() => {});
  const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-bench-lifetime-'));
  try {
    const file = path.join(dir, 'ledger.sqlite');
    const flows = await loadFlows(sampleChartersDir());
    const ledger = openLedger(file, { jsonl: false });
    let n = 0;
    const kernel = createKernel({ flows, store: ledger, clock: () => new Date(Date.UTC(2025, 0, 1) + 1000 * n++) });
    await simulate(kernel, { ...DEMO_SCENARIO, runs, sequence: ['signal', 'plan', 'build'] }, {});
    await kernel.close();
    const sqlite = openLedger(file, { jsonl: false });
    const store = archiveStoreFor(sqlite)!;
    const routes = (await sqlite.ledgerTotals()).routes;
    await store.reclaim(false);
    const before = fileBytes(file);
    log(`lifetime: ${runs} runs, ${routes} routes, ${before} bytes`);
    const bundles = path.join(dir, 'bundles');
    const k = Math.round(runs * share);
    let t = performance.now();
    const rep = await archiveRuns(sqlite, { to: bundles, before: '9999-01-01', includeActive: true, limit: k });
    const archiveMs = performance.now() - t;
    const after = fileBytes(file);
    t = performance.now();
    const va = await verifyArchive(bundles, sqlite);
    const verifyArchiveMs = performance.now() - t;
    if (!va.ok) throw new Error(`bench: the archive does not verify: ${JSON.stringify(va.issues[0])}`);
    t = performance.now();
    const vl = await verifyLedger(sqlite, { repair: false });
    const verifyLedgerMs = performance.now() - t;
    if (!vl.ok) throw new Error(`bench: the ledger does not verify after archiving: ${JSON.stringify(vl.issues[0])}`);
    t = performance.now();
    for (const a of rep.archived) await restoreBundle(sqlite, a.file);
    const restoreMs = performance.now() - t;
    log(`lifetime: SQLite ${before} -> ${after} bytes; archive ${archiveMs.toFixed(0)} ms, verify --archive ${verifyArchiveMs.toFixed(0)} ms, verify ${verifyLedgerMs.toFixed(0)} ms, restore ${restoreMs.toFixed(0)} ms; bundles ${rep.bundle_bytes} bytes`);
    const out: LifetimeFigures = {
      runs, routes, archivedRuns: rep.archived.length, archivedRoutes: rep.archived.reduce((s, a) => s + a.routes, 0), sqliteBytesBefore: before, sqliteBytesAfter: after,
      bundleBytes: rep.bundle_bytes, archiveMs, verifyArchiveMs, verifyLedgerMs, restoreMs,
    };
    if (options.pg ?? true) {
      const server = await startThrowawayPostgres();
      try {
        const pgl = await PostgresLedger.open(`${server.url}?schema=lifetime`);
        await copyLedger(sqlite, pgl);
        const ps = archiveStoreFor(pgl)!;
        await ps.reclaim(false);
        out.pgBytesBefore = await ps.sizeBytes();
        t = performance.now();
        await archiveRuns(pgl, { to: path.join(dir, 'pg-bundles'), before: '9999-01-01', includeActive: true, limit: k, reclaim: 'full' });
        out.pgArchiveMs = performance.now() - t;
        out.pgBytesAfter = await ps.sizeBytes();
        await pgl.close();
      } finally {
        await server.stop();
      }
    }
    await sqlite.close();
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchLifetime(opts: { quick: boolean }): Promise<BenchSection> {
  const f = await measureLifetime(opts.quick ? 100 : 2_000, 0.1, { log: (s) => process.stderr.write(s + '\n') });
  const kb = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
  const perRoute = (b: number, r: number) => (r ? b / r : 0).toFixed(0);
  const live = f.routes - f.archivedRoutes;
  const rows = [
    ['SQLite, all runs in the ledger', kb(f.sqliteBytesBefore), perRoute(f.sqliteBytesBefore, f.routes)],
    [`SQLite after archiving ${f.archivedRuns} runs (incremental vacuum)`, kb(f.sqliteBytesAfter), perRoute(f.sqliteBytesAfter, live)],
    ['gzip bundles of the archived runs', kb(f.bundleBytes), perRoute(f.bundleBytes, f.archivedRoutes)],
  ];
  if (f.pgBytesBefore !== undefined) {
    rows.push(['PostgreSQL, all runs (tables + indexes)', kb(f.pgBytesBefore), perRoute(f.pgBytesBefore, f.routes)]);
    rows.push([`PostgreSQL after archiving ${f.archivedRuns} runs (VACUUM FULL)`, kb(f.pgBytesAfter!), perRoute(f.pgBytesAfter!, live)]);
  }
  const rate = (n: number, ms: number) => `${Math.round(n / (ms / 1000)).toLocaleString('en-US')}`;
  const body = [
    `${f.runs} simulated runs (${f.routes} routes; flows signal, plan, build of the demo scenario), ${f.archivedRuns} of them archived (${f.archivedRoutes} routes).`,
    '',
    '| store | size | bytes per route in it |',
    '|---|---:|---:|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    '| operation | time | routes/s |',
    '|---|---:|---:|',
    `| archive (SQLite: read, gzip, fsync, delete, incremental vacuum) | ${f.archiveMs.toFixed(0)} ms | ${rate(f.archivedRoutes, f.archiveMs)} |`,
    `| verify --archive (every bundle alone and against its tombstone) | ${f.verifyArchiveMs.toFixed(0)} ms | ${rate(f.archivedRoutes, f.verifyArchiveMs)} |`,
    `| restore (every bundle back, checked first) | ${f.restoreMs.toFixed(0)} ms | ${rate(f.archivedRoutes, f.restoreMs)} |`,
    ...(f.pgArchiveMs !== undefined ? [`| archive (PostgreSQL, then VACUUM FULL) | ${f.pgArchiveMs.toFixed(0)} ms | ${rate(f.archivedRoutes, f.pgArchiveMs)} |`] : []),
  ].join('\n');
  const figures: Record<string, number> = {
    routes: f.routes,
    sqlite_bytes_per_route: f.sqliteBytesBefore / f.routes,
    sqlite_bytes_per_route_after: f.sqliteBytesAfter / Math.max(1, live),
    bundle_bytes_per_route: f.bundleBytes / Math.max(1, f.archivedRoutes),
    archive_routes_per_s: f.archivedRoutes / (f.archiveMs / 1000),
    restore_routes_per_s: f.archivedRoutes / (f.restoreMs / 1000),
    verify_archive_routes_per_s: f.archivedRoutes / (f.verifyArchiveMs / 1000),
  };
  if (f.pgBytesBefore !== undefined) figures.pg_bytes_per_route = f.pgBytesBefore / f.routes;
  return { title: 'Ledger lifetime: sizes, archive and restore', body, figures };
}
