// `navkernel ledger archive`, `restore` and `verify --archive`: moving finished runs out of a ledger into bundles and back,
// and checking bundles on their own and against the ledger's tombstones.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ArchiveStore, ReclaimReport, RunRows, Tombstone } from '../../contracts/archive-port.js';
import type { VerifyIssue } from '../../contracts/ledger.js';
import type { Ledger, StoredRunEntry } from '../../contracts/ports.js';
import { pathSegment } from '../paths.js';
import { verifyLedger } from '../verify.js';
import { BUNDLE_FORMAT, BUNDLE_SUFFIX, BUNDLE_VERSION, type RunBundle, writeBundle } from './bundle.js';
import { BundleLedger } from './bundle-ledger.js';
import { archiveInvalid, NotArchivableError } from './errors.js';
import { archiveStoreFor } from './store-for.js';

/** Which finished runs archiveRuns moves out of the ledger, and where their bundles go. */
export interface ArchiveOptions {
  /** The folder bundles are written to (created when missing). */
  to: string;
  /** Runs last updated before this ISO time. */
  before?: string;
  /** These runs (each must exist, be finished unless `includeActive`, and not be archived already). */
  runs?: string[];
  /** Also runs not terminated or with an open escalation. */
  includeActive?: boolean;
  /** At most this many runs. */
  limit?: number;
  /** Runs deleted per transaction (default 200): each transaction holds the write lock briefly. */
  batch?: number;
  /** After archiving: 'auto' (incremental vacuum where the file allows it, plain VACUUM on PostgreSQL), 'full', or 'none'. */
  reclaim?: 'auto' | 'full' | 'none';
  /** The archiver's clock (archived_ts). */
  clock?: () => Date;
  /** Called after each batch with runs archived so far and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** What archiveRuns moved: the runs, their bundles and what was reclaimed. */
export interface ArchiveReport {
  archived: { run_id: string; file: string; routes: number; bytes: number }[];
  /** Runs that changed between their bundle and the delete (routed or resolved meanwhile): left in the ledger, their bundle removed. */
  skipped: string[];
  /** Bytes of bundles written. */
  bundle_bytes: number;
  reclaim: ReclaimReport | null;
}

/** The archive operations of a ledger, or archiveInvalid when its store has none. */
export function requireArchiveStore(ledger: Ledger): ArchiveStore {
  const s = archiveStoreFor(ledger);
  if (!s) throw archiveInvalid(`${ledger.location} cannot archive runs (only the SQLite and PostgreSQL ledgers can)`);
  return s;
}

/** Every row of a run through the run reader, with its register entry; undefined when the run has no rows. */
export async function readRunRows(ledger: Ledger, run_id: string, register: ReadonlyMap<string, StoredRunEntry>): Promise<RunRows | undefined> {
  const run = await ledger.run(run_id);
  const entry = register.get(run_id);
  if (!run || !entry) return undefined;
  const routes = await ledger.routes(run_id, 0, Number.MAX_SAFE_INTEGER);
  const llm_calls = await ledger.llmCalls(run_id, 0, Number.MAX_SAFE_INTEGER);
  const escalations = await ledger.runEscalations(run_id);
  // Normalised as both stores give it, so a bundle's bytes do not depend on the store it came from.
  const rows: RunRows = { register: { ...entry, ordinal: Number(entry.ordinal) }, run, routes: routes.map((r) => ({ ...r, request_hash: '' })), llm_calls, escalations };
  // Its upgrades and the kept definitions of every flow version it used: the bundle replays with no flows on disk.
  const upgrades = (await ledger.runUpgrades(run_id)).map((u) => ({ ...u, seq: Number(u.seq), idx: Number(u.idx) }));
  if (upgrades.length) rows.upgrades = upgrades;
  const hashes = [...new Set([...routes.map((r) => r.flows_hash), ...upgrades.map((u) => u.to_flows)])].sort();
  const versions: { hash: string; definition: string }[] = [];
  for (const hash of hashes) {
    const definition = await ledger.flowVersion(hash);
    if (definition !== undefined) versions.push({ hash, definition });
  }
  if (versions.length) rows.flow_versions = versions;
  return rows;
}

/**
 * Moves the selected runs into one bundle each under `options.to`, then deletes their rows and sets their tombstones
 * (batch by batch, each in one transaction). A bundle is written and fsynced before its rows go; a run that changed
 * in between is left in the ledger. Finally gives space back (`reclaim`).
 */
export async function archiveRuns(ledger: Ledger, options: ArchiveOptions): Promise<ArchiveReport> {
  const store = requireArchiveStore(ledger);
  if (options.before === undefined && options.runs === undefined) throw archiveInvalid('archive needs --before DATE or run ids');
  const includeActive = options.includeActive ?? false;
  let ids = await store.archivableRuns({
    ...(options.before !== undefined ? { before: options.before } : {}),
    ...(options.runs !== undefined ? { runs: options.runs } : {}),
    include_active: includeActive,
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
  });
  if (options.runs !== undefined) {
    // Each named run must be archivable: say why one is not instead of skipping it silently.
    const found = new Set(ids);
    const tombs = new Set((await store.tombstones()).map((t) => t.run_id));
    for (const id of options.runs) {
      if (found.has(id)) continue;
      if (tombs.has(id)) throw new NotArchivableError(id, 'it is archived already');
      if (!(await ledger.run(id))) throw new NotArchivableError(id, `no such run in ${ledger.location}`);
      if (options.before !== undefined) continue;
      throw new NotArchivableError(id, 'it is not finished (not terminated, or an escalation is open): pass --include-active to archive it anyway');
    }
    ids = options.runs.filter((id) => found.has(id));
  }
  mkdirSync(options.to, { recursive: true });
  const clock = options.clock ?? (() => new Date());
  const register = new Map((await ledger.runRegister()).map((e) => [e.run_id, e]));
  const report: ArchiveReport = { archived: [], skipped: [], bundle_bytes: 0, reclaim: null };
  const size = Math.max(1, options.batch ?? 200);
  for (let i = 0; i < ids.length; i += size) {
    const items: { tombstone: Tombstone; resolved_escalations: number; file: string; routes: number; bytes: number }[] = [];
    for (const run_id of ids.slice(i, i + size)) {
      const rows = await readRunRows(ledger, run_id, register);
      if (!rows) continue;
      const archived_ts = clock().toISOString();
      const bundle: RunBundle = {
        format: BUNDLE_FORMAT,
        version: BUNDLE_VERSION,
        run_id,
        archived_ts,
        source: ledger.location,
        flows_hashes: await ledger.runFlowsHashes(run_id),
        ...rows,
      };
      const written = writeBundle(options.to, bundle);
      items.push({
        tombstone: { run_id, ordinal: rows.register.ordinal, archived_ts, archived_to: path.resolve(written.file), last_seq: rows.run.last_seq, head_hash: rows.run.head_hash, bundle_sha256: written.sha256 },
        resolved_escalations: rows.escalations.filter((e) => e.status === 'resolved').length,
        file: written.file,
        routes: rows.routes.length,
        bytes: written.bytes,
      });
    }
    const { buried, skipped } = await store.bury(items);
    const done = new Set(buried);
    for (const it of items) {
      if (done.has(it.tombstone.run_id)) {
        report.archived.push({ run_id: it.tombstone.run_id, file: it.file, routes: it.routes, bytes: it.bytes });
        report.bundle_bytes += it.bytes;
        // The run's decisions.jsonl files are derived from its rows: they go with them (restore writes them again).
        if (ledger.mirror) rmSync(path.join(ledger.mirror.runBase, pathSegment(it.tombstone.run_id)), { recursive: true, force: true });
      } else {
        rmSync(it.file, { force: true });
      }
    }
    report.skipped.push(...skipped);
    options.onProgress?.(Math.min(ids.length, i + size), ids.length);
  }
  const mode = options.reclaim ?? 'auto';
  if (mode !== 'none' && report.archived.length > 0) report.reclaim = await store.reclaim(mode === 'full');
  return report;
}

/**
 * Brings an archived run back from its bundle: checks the bundle verifies on its own and fits the ledger's tombstone
 * (same register entry, same head, same bundle hash), then writes its rows as they were and clears the tombstone, in
 * one transaction. archiveInvalid, with nothing changed, when anything does not fit.
 */
export async function restoreBundle(ledger: Ledger, file: string): Promise<{ run_id: string; routes: number }> {
  const store = requireArchiveStore(ledger);
  const b = new BundleLedger(file);
  const alone = await verifyBundle(b);
  if (alone.length > 0) throw archiveInvalid(`bundle ${file} does not verify: ${alone[0]!.kind}: ${alone[0]!.message}${alone.length > 1 ? ` (and ${alone.length - 1} more)` : ''}`);
  const t = (await store.tombstones()).find((x) => x.run_id === b.bundle.run_id);
  if (t && t.bundle_sha256 !== b.sha256) throw archiveInvalid(`bundle ${file} is not the one archived for run ${JSON.stringify(b.bundle.run_id)} (its content hash differs from the tombstone's)`);
  await store.unbury(b.bundle);
  if (ledger.mirror) await ledger.mirror.repair(b.bundle.run_id);
  return { run_id: b.bundle.run_id, routes: b.bundle.routes.length };
}

/** What a bundle's own check finds: its chain, summary, escalations and register entry recomputed. */
export async function verifyBundle(b: BundleLedger): Promise<VerifyIssue[]> {
  const r = await verifyLedger(b, { repair: false, registerSlice: true });
  const issues = [...r.issues];
  const { bundle } = b;
  const first = bundle.routes[0];
  if (!first || first.seq !== 1 || first.hash !== bundle.register.first_hash) {
    issues.push({ run_id: bundle.run_id, seq: 1, kind: 'archive_mismatch', message: "the bundle's first route is not the one its register entry names", table: 'run_register', field: 'first_hash' });
  }
  const hashes = new Set(bundle.routes.map((x) => x.flows_hash));
  if (hashes.size !== bundle.flows_hashes.length || bundle.flows_hashes.some((h) => !hashes.has(h))) {
    issues.push({ run_id: bundle.run_id, seq: null, kind: 'archive_mismatch', message: "the bundle's flows_hashes do not match its routes' flows_hash values", field: 'flows_hashes' });
  }
  return issues;
}

/** What verifyArchive found in a folder of run bundles. */
export interface ArchiveVerifyReport {
  ok: boolean;
  bundles: number;
  routes: number;
  /** Tombstones checked against their bundle (0 when no ledger was given). */
  tombstones: number;
  issues: (VerifyIssue & { file?: string })[];
}

/**
 * Checks every bundle in `dir` on its own (chain, summary, escalations, register entry) and, with a ledger, against
 * its tombstone (same register entry, same last seq and head hash, same content hash); a tombstone whose bundle is not
 * in `dir` is reported only when the tombstone says it went to `dir`.
 */
export async function verifyArchive(dir: string, ledger?: Ledger): Promise<ArchiveVerifyReport> {
  if (!existsSync(dir)) throw archiveInvalid(`no archive folder ${dir}`);
  const files = readdirSync(dir).filter((f) => f.endsWith(BUNDLE_SUFFIX)).sort();
  const store = ledger ? requireArchiveStore(ledger) : undefined;
  const tombs = new Map((store ? await store.tombstones() : []).map((t) => [t.run_id, t]));
  const register = new Map(ledger ? (await ledger.runRegister()).map((e) => [e.run_id, e]) : []);
  const report: ArchiveVerifyReport = { ok: true, bundles: 0, routes: 0, tombstones: 0, issues: [] };
  const seen = new Set<string>();
  for (const name of files) {
    const file = path.join(dir, name);
    let b: BundleLedger;
    try {
      b = new BundleLedger(file);
    } catch (err) {
      report.issues.push({ run_id: '', seq: null, kind: 'archive_mismatch', message: (err as Error).message, file });
      continue;
    }
    report.bundles++;
    report.routes += b.bundle.routes.length;
    const id = b.bundle.run_id;
    seen.add(id);
    for (const i of await verifyBundle(b)) report.issues.push({ ...i, file });
    if (!ledger) continue;
    const t = tombs.get(id);
    const bad = (message: string, field: string) => report.issues.push({ run_id: id, seq: null, kind: 'archive_mismatch', message, table: 'run_register', field, file });
    if (!t) {
      if ((await ledger.run(id)) === undefined) bad(`run ${JSON.stringify(id)} has no tombstone in ${ledger.location}`, 'archived_ts');
      continue;
    }
    report.tombstones++;
    const e = register.get(id)!;
    if (e.first_hash !== b.bundle.register.first_hash || e.hash !== b.bundle.register.hash || Number(e.ordinal) !== b.bundle.register.ordinal) bad("the bundle's register entry is not the ledger's", 'hash');
    else if (t.last_seq !== b.bundle.run.last_seq || t.head_hash !== b.bundle.run.head_hash) bad(`the tombstone says seq ${t.last_seq} ${t.head_hash.slice(0, 12)}, the bundle ends at seq ${b.bundle.run.last_seq} ${b.bundle.run.head_hash.slice(0, 12)}`, 'archived_hash');
    else if (t.bundle_sha256 !== b.sha256) bad('the bundle was changed after it was archived (its content hash differs from the tombstone\'s)', 'bundle_sha256');
  }
  const here = path.resolve(dir);
  for (const t of tombs.values()) {
    if (!seen.has(t.run_id) && path.dirname(t.archived_to) === here) {
      report.issues.push({ run_id: t.run_id, seq: null, kind: 'archive_missing', message: `the tombstone says the run went to ${t.archived_to}, which is missing`, table: 'run_register', file: t.archived_to });
    }
  }
  report.ok = report.issues.length === 0;
  return report;
}
