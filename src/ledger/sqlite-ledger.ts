import path from 'node:path';
import { canonicalJson, sha256 } from '../contracts/canonical-json.js';
import type { Decision } from '../contracts/decision.js';
import type {
  CostBucket,
  Ledger,
  LedgerTotals,
  OffroadRow,
  ReplayRow,
  ReplayTuple,
  RouteRecord,
  RunPage,
  RunPageQuery,
  RunState,
  StoredEscalation,
  StoredLlmCall,
  StoredRoute,
  StoredRun,
  StoredRunEntry,
  StoredUpgrade,
} from '../contracts/ports.js';
import { LedgerConflictError, RunArchivedError } from '../contracts/store-errors.js';
import { buildAppendWrite } from './append-write.js';
import { GENESIS_HASH } from './chain.js';
import { offRoadLine } from './decisions-jsonl.js';
import { JsonlMirror, type MirrorWarning, defaultMirrorWarning } from './jsonl-mirror.js';
import { LruMap } from './lru.js';
import { MirrorLock, mirrorLockPath } from './mirror-lock.js';
import { runFoldersBeside } from './paths.js';
import { ThreadedMirror, mirrorThreadAvailable } from './threaded-mirror.js';
import { type AppendWrite, type Durability, LedgerSql, SeqConflict, openDatabase } from './sql.js';
import { SqliteVersions } from './versions-sql.js';
import { WalCheckpointer, checkpointerThreadAvailable, type WalCheckpointLimits, type WalCheckpointStats } from './wal-checkpointer.js';

/** Options of a SQLite ledger: durability, the decisions.jsonl mirror, WAL checkpoints. */
export interface LedgerOptions {
  /**
   * `normal` (default): synchronous=NORMAL in WAL. Survives any crash of the process (SIGKILL included):
   * every acknowledged decision is in the file. A power loss or OS crash may lose the last transactions
   * committed before it, never corrupting the file. `full`: synchronous=FULL, an fsync per commit; an
   * acknowledged decision also survives a power loss, at several times the cost per route.
   */
  durability?: Durability;
  /** RUN_BASE for decisions.jsonl files; default `runFoldersBeside(file)`: the ledger's folder when it is called `runs`, else `runs/` beside the ledger. */
  runBase?: string;
  /** Write decisions.jsonl files (default true). */
  jsonl?: boolean;
  /** Create the file when missing (default true; read-only commands pass false and get LedgerNotFoundError). */
  create?: boolean;
  /** How long a write waits for another process's lock before failing (default 15 s). */
  busyTimeoutMs?: number;
  /** Run head hashes kept in memory (default 100,000; least recently used evicted, re-read from the file). */
  maxCachedHeads?: number;
  /** A decisions.jsonl write failed (the decision is safe; the file is repaired later). Default: process.emitWarning. */
  onWarning?: (w: MirrorWarning) => void;
  /**
   * Write decisions.jsonl on a worker thread (default true where the compiled worker exists, i.e. not from
   * TypeScript sources): the routing thread only hands over the lines of committed decisions. false: on this
   * thread, after each commit, as before.
   */
  jsonlThread?: boolean;
  /**
   * Where WAL checkpoints run (docs/ledger.md, "WAL checkpoints off the commit path"). `thread` (default where the
   * compiled worker exists): once the WAL passes 4 MiB, SQLite's autocheckpoint is turned off on this connection and
   * a worker thread checkpoints on a connection of its own; this connection checkpoints only the short tail the thread
   * leaves, and past `capBytes` when the thread is dead or behind. `inline`: SQLite's autocheckpoint, inside the
   * commit that crosses 8,000 pages, as before.
   */
  walCheckpoint?: 'thread' | 'inline';
  /** Thresholds of the `thread` checkpointer (tests and tuning). */
  walCheckpointLimits?: WalCheckpointLimits;
}

/** The decisions.jsonl mirror of a SQLite ledger, on this thread or its own. */
export type SqliteMirror = (JsonlMirror | ThreadedMirror) & { close(): void | Promise<void> };

/** The default ledger file, relative to the working directory. */
let sqlOf: (ledger: SqliteLedger) => LedgerSql;

/**
 * The SQL surface of a SQLite ledger, for navkernel's own modules (archive, explorer sessions, copy) and tests.
 * Not exported by the package: callers outside it use the store ports.
 */
export function ledgerSql(ledger: SqliteLedger): LedgerSql {
  return sqlOf(ledger);
}

/** The ledger file used when none is named: runs/ledger.sqlite. */
export const DEFAULT_LEDGER_FILE = path.join('runs', 'ledger.sqlite');

interface QueuedAppend {
  record: RouteRecord;
  state: RunState;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/**
 * The SQLite ledger: the KernelStore the kernel records every route into, and the source of truth that
 * runs, audit, verify, replay and resolve read (through the RunReader, StatsReader and EscalationStore methods). SQLite is the truth;
 * decisions.jsonl files are derived from it and repaired from it.
 *
 * Group commit: appends made while a commit is pending (concurrent routes of different runs in this process)
 * are written in one IMMEDIATE transaction, each in its own savepoint, and each promise settles only after
 * that transaction commits.
 */
export class SqliteLedger implements Ledger {
  static {
    sqlOf = (ledger) => ledger.#sql;
  }
  readonly file: string;
  readonly location: string;
  readonly runBase: string;
  readonly durability: Durability;
  readonly jsonl: boolean;
  /** The SQL surface (one module); internal: reached through {@link ledgerSql}, never part of the public API. */
  readonly #sql: LedgerSql;
  /** Flow versions and run upgrades (docs/changing-flows.md). */
  readonly versions: SqliteVersions;
  readonly mirror: SqliteMirror | undefined;
  private readonly mirrorLock: MirrorLock | undefined;
  private readonly checkpointer: WalCheckpointer | undefined;
  private readonly heads: LruMap<string, string>;
  private queue: QueuedAppend[] = [];
  private closed = false;

  constructor(file: string, options: LedgerOptions = {}) {
    this.file = file;
    this.location = file;
    this.durability = options.durability ?? 'normal';
    this.runBase = options.runBase ?? runFoldersBeside(file);
    this.jsonl = options.jsonl ?? true;
    this.heads = new LruMap(options.maxCachedHeads ?? 100_000);
    this.#sql = new LedgerSql(
      openDatabase(file, { create: options.create ?? true, durability: this.durability, busyTimeoutMs: options.busyTimeoutMs ?? 15_000 }),
    );
    this.versions = new SqliteVersions(this.#sql.db);
    const onWarning = options.onWarning ?? defaultMirrorWarning;
    const busyTimeoutMs = options.busyTimeoutMs ?? 15_000;
    const memory = file === ':memory:' || file === '';
    const walMode = options.walCheckpoint ?? (checkpointerThreadAvailable() ? 'thread' : 'inline');
    this.checkpointer =
      walMode === 'thread' && !memory
        ? new WalCheckpointer(this.#sql.db, path.resolve(file), {
            durability: this.durability,
            busyTimeoutMs,
            ...(options.walCheckpointLimits ? { limits: options.walCheckpointLimits } : {}),
          })
        : undefined;
    if (!this.jsonl) {
      this.mirror = undefined;
    } else if ((options.jsonlThread ?? true) && !memory && mirrorThreadAvailable()) {
      this.mirror = new ThreadedMirror(
        { file: path.resolve(file), runBase: this.runBase, lockFile: mirrorLockPath(this.runBase), busyTimeoutMs },
        onWarning,
        () => this.#sql.allRunIds(),
      );
    } else {
      const lock = (this.mirrorLock = new MirrorLock(mirrorLockPath(this.runBase), busyTimeoutMs, memory ? undefined : path.resolve(file)));
      this.mirror = new JsonlMirror(
        {
          exclusive: (fn) => lock.exclusive(fn),
          offroadRows: (run_id) => this.#sql.offroadRows(run_id),
          runIds: () => this.#sql.allRunIds(),
        },
        this.runBase,
        { onWarning },
      );
    }
  }

  // ---- KernelStore ------------------------------------------------------------------------------------

  /** The run's last persisted state; its decisions.jsonl files are brought up to date at the next mirror flush. */
  loadRun(run_id: string): Promise<RunState | undefined> {
    // A (re)load means the kernel may have lost track of the run: the cached head may be stale too.
    this.heads.delete(run_id);
    const state = this.#sql.lastState(run_id);
    if (state === undefined) return Promise.resolve(undefined);
    this.mirror?.check(run_id);
    const run = JSON.parse(state) as RunState;
    // A person upgraded the run after its last route: it goes on from the upgraded state.
    const upgraded = this.versions.lastUpgrade(run_id, run.seq);
    return Promise.resolve(upgraded ? (JSON.parse(upgraded.state) as RunState) : run);
  }

  // ---- Flow versions and upgrades (VersionStore) ----------------------------------------------------------------------

  saveFlowVersion(hash: string, definition: string): Promise<void> {
    this.versions.saveFlowVersion(hash, definition);
    return Promise.resolve();
  }
  flowVersion(hash: string): Promise<string | undefined> {
    return Promise.resolve(this.versions.flowVersion(hash));
  }
  flowVersions(): Promise<{ hash: string; definition: string }[]> {
    return Promise.resolve(this.versions.flowVersions());
  }
  lastUpgrade(run_id: string, seq: number): Promise<StoredUpgrade | undefined> {
    return Promise.resolve(this.versions.lastUpgrade(run_id, seq));
  }
  runUpgrades(run_id: string): Promise<StoredUpgrade[]> {
    return Promise.resolve(this.versions.runUpgrades(run_id));
  }
  async recordUpgrade(u: Omit<StoredUpgrade, 'idx' | 'prev_hash' | 'hash'>): Promise<StoredUpgrade | false> {
    // Pending appends first, so the head check sees every route this process acknowledged.
    await this.flush();
    return this.versions.recordUpgrade(u);
  }

  findByRequestId(run_id: string, request_id: string): Promise<{ decision: Decision; request_hash: string } | undefined> {
    const row = this.#sql.byRequestId(run_id, request_id);
    if (row === undefined) return Promise.resolve(undefined);
    return Promise.resolve({ decision: JSON.parse(row.decision_json) as Decision, request_hash: sha256(canonicalJson(JSON.parse(row.request))) });
  }

  append(record: RouteRecord, state: RunState): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`ledger ${this.file} is closed`));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ record, state, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => this.commitQueued());
    });
  }

  /** Commits every queued append in one transaction, then settles their promises. */
  private commitQueued(): void {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const outcomes: (unknown | null)[] = new Array(batch.length).fill(null);
    const newHeads: (string | undefined)[] = new Array(batch.length);
    const lines: [string, string, string, number][] = [];
    const conflictOf = (record: RouteRecord, err: SeqConflict) =>
      record.seq === 1 && this.#sql.archived(record.run_id)
        ? new RunArchivedError(record.run_id, { cause: err.cause })
        : new LedgerConflictError(record.run_id, record.seq, { cause: err.cause });
    try {
      if (batch.length === 1) {
        // A group of one (a lone writer, the common case): its own transaction, no savepoint.
        const { record, state } = batch[0]!;
        try {
          this.#sql.appendAlone(() => {
            // The rows and the chain hash are built as the PostgreSQL ledger builds them (append-write.ts): same bytes.
            const built = buildAppendWrite(record, state, this.head(record.run_id));
            newHeads[0] = built.hash;
            return built.write;
          });
        } catch (err) {
          if (!(err instanceof SeqConflict)) throw err;
          outcomes[0] = conflictOf(record, err);
        }
      } else {
        this.#sql.batch(() => {
          const heads = new Map<string, string>();
          for (let i = 0; i < batch.length; i++) {
            const { record } = batch[i]!;
            try {
              const prev = heads.get(record.run_id) ?? this.head(record.run_id);
              const hash = this.write(record, batch[i]!.state, prev);
              heads.set(record.run_id, hash);
              newHeads[i] = hash;
            } catch (err) {
              outcomes[i] = err instanceof SeqConflict ? conflictOf(record, err) : err;
            }
          }
        });
      }
    } catch (err) {
      // The transaction as a whole failed (lock timeout, I/O error): nothing of the batch was recorded.
      for (const q of batch) this.heads.delete(q.record.run_id);
      for (const q of batch) q.reject(err);
      this.afterCommit();
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      const q = batch[i]!;
      const err = outcomes[i];
      if (err !== null) {
        this.heads.delete(q.record.run_id);
        q.reject(err);
        continue;
      }
      this.heads.set(q.record.run_id, newHeads[i]!);
      const { decision } = q.record;
      if (this.mirror && decision.decision !== 'CONTINUE') lines.push([q.record.run_id, q.record.flow, offRoadLine(q.record.step, decision, q.record.seq, q.record.ts), q.record.seq]);
      q.resolve();
    }
    // After the commit, off the answer path: a crash before the lines are written leaves files short, repaired on load.
    for (const [run_id, flow, line, seq] of lines) this.mirror!.enqueue(run_id, flow, line, seq);
    this.afterCommit();
  }

  private afterCommit(): void {
    this.checkpointer?.afterCommit();
    if (this.queue.length > 0) setImmediate(() => this.commitQueued());
  }

  /** Writes one route (inside the batch transaction, in its own savepoint) and returns its hash. */
  private write(record: RouteRecord, state: RunState, prev: string): string {
    // The rows and the chain hash are built as the PostgreSQL ledger builds them (append-write.ts): same bytes.
    const { write, hash } = buildAppendWrite(record, state, prev);
    this.#sql.append(write);
    return hash;
  }

  private head(run_id: string): string {
    let h = this.heads.get(run_id);
    if (h === undefined) {
      const b = this.#sql.headHash(run_id);
      h = b ? b.toString('hex') : GENESIS_HASH;
    }
    return h;
  }

  /** Settles every queued append and writes every queued decisions.jsonl line. */
  async flush(): Promise<void> {
    while (this.queue.length > 0) this.commitQueued();
    await this.mirror?.flush();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    await this.mirror?.close();
    this.mirrorLock?.close();
    // The checkpointer's connection first: the routing connection, closed last, checkpoints the WAL away as before.
    await this.checkpointer?.close();
    this.#sql.close();
  }

  /** What the WAL checkpointer did (undefined with `walCheckpoint: 'inline'` or in memory). */
  walCheckpointStats(): Promise<WalCheckpointStats> | undefined {
    return this.checkpointer?.stats();
  }

  /** Stops the WAL checkpointer's thread early (what a crashed thread looks like): the routing connection's cap remains. */
  stopWalCheckpointThread(): Promise<void> {
    return this.checkpointer?.stopThread() ?? Promise.resolve();
  }

  // ---- RunReader, StatsReader, EscalationStore -----------------------------------------------------------------------------------

  /** Writes stored rows as they are (a copy: `navkernel migrate`), in one transaction, as PostgresLedger does. */
  importWrites(writes: readonly AppendWrite[]): Promise<void> {
    const sql = this.#sql;
    sql.batch(() => {
      for (const w of writes) sql.append(w);
    });
    return Promise.resolve();
  }

  run(run_id: string): Promise<StoredRun | undefined> {
    return Promise.resolve(this.#sql.run(run_id));
  }
  runs(): Promise<StoredRun[]> {
    return Promise.resolve(this.#sql.runs());
  }
  runPage(query: RunPageQuery): Promise<RunPage> {
    const { runs, total, more } = this.#sql.runPage(query);
    const last = runs[runs.length - 1];
    return Promise.resolve({ runs, total, next: more && last ? { created_ts: last.created_ts, run_id: last.run_id } : null });
  }
  ledgerTotals(): Promise<LedgerTotals> {
    return Promise.resolve(this.#sql.ledgerTotals());
  }
  ledgerTierRuleCounts(): Promise<{ tier: number; rule: string; decision: string; count: number }[]> {
    return Promise.resolve(this.#sql.ledgerTierRuleCounts());
  }
  costBuckets(width_ms: number): Promise<CostBucket[]> {
    return Promise.resolve(this.#sql.costBuckets(width_ms));
  }
  runIds(): Promise<string[]> {
    return Promise.resolve(this.#sql.allRunIds());
  }
  routes(run_id: string, afterSeq: number, limit: number): Promise<StoredRoute[]> {
    return Promise.resolve(this.#sql.routesPage(run_id, afterSeq, limit));
  }
  replayRows(run_id: string, afterSeq: number, limit: number): Promise<ReplayRow[]> {
    return Promise.resolve(this.#sql.replayPage(run_id, afterSeq, limit));
  }
  async *replayChunks(run_id: string, afterSeq: number, chunk: number): AsyncIterable<ReplayTuple[]> {
    // Keyset pages of `.raw()` rows rather than one `.iterate()`: an open iterator keeps the connection busy, and
    // replay reads LLM calls between chunks. A page of 4,096 rows costs one statement step, not 4,096 objects.
    for (let after = afterSeq; ; ) {
      const rows = this.#sql.replayRaw(run_id, after, chunk);
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < chunk) return;
      after = rows[rows.length - 1]![0];
    }
  }
  llmCalls(run_id: string, fromSeq: number, toSeq: number): Promise<StoredLlmCall[]> {
    return Promise.resolve(this.#sql.llmCalls(run_id, fromSeq, toSeq));
  }
  offroadRows(run_id: string): Promise<OffroadRow[]> {
    return Promise.resolve(this.#sql.offroadRows(run_id));
  }
  runFlows(run_id: string): Promise<string[]> {
    return Promise.resolve(this.#sql.runFlows(run_id));
  }
  runFlowsHashes(run_id: string): Promise<string[]> {
    return Promise.resolve(this.#sql.runFlowsHashes(run_id));
  }
  arbiterFootprint(run_id: string): Promise<boolean> {
    return Promise.resolve(this.#sql.arbiterFootprint(run_id));
  }
  tierRuleCounts(run_id: string): Promise<{ tier: number; rule: string; decision: string; count: number }[]> {
    return Promise.resolve(this.#sql.tierRuleCounts(run_id));
  }
  openEscalationCount(run_id: string): Promise<number> {
    return Promise.resolve(this.#sql.openEscalationCount(run_id));
  }
  escalation(escalation_id: string): Promise<StoredEscalation | undefined> {
    return Promise.resolve(this.#sql.escalation(escalation_id));
  }
  runEscalations(run_id: string): Promise<StoredEscalation[]> {
    return Promise.resolve(this.#sql.runEscalations(run_id));
  }
  routeHash(run_id: string, seq: number): Promise<string | undefined> {
    return Promise.resolve(this.#sql.routeHash(run_id, seq));
  }
  runRegister(): Promise<StoredRunEntry[]> {
    return Promise.resolve(this.#sql.runRegister());
  }
  resolveEscalation(escalation_id: string, resolution_json: string, by: string, ts: string, resolution_hash: string): Promise<boolean> {
    return Promise.resolve(this.#sql.resolveEscalation(escalation_id, resolution_json, by, ts, Buffer.from(resolution_hash, 'hex')));
  }
}

