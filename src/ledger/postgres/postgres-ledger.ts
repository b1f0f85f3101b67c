import { canonicalJson, sha256 } from '../../contracts/canonical-json.js';
import type { Decision } from '../../contracts/decision.js';
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
} from '../../contracts/ports.js';
import { LedgerConflictError, RunArchivedError } from '../../contracts/store-errors.js';
import { buildAppendWrite } from '../append-write.js';
import { GENESIS_HASH } from '../chain.js';
import type { AppendWrite } from '../sql.js';
import { PostgresUnavailableError, causeText, isConnectionError, isDeadConnectionError } from './errors.js';
import { PgLedgerSql } from './pg-sql.js';
import { REGISTER_LOCK_SQL } from './schema.js';
import { type PostgresPoolOptions, openPostgresPool, wrapError } from './pool.js';
import { type PostgresTarget, parsePostgresUrl } from './url.js';

/** Options of a PostgreSQL ledger: the pool and its timeouts. */
export interface PostgresLedgerOptions extends PostgresPoolOptions {
  /**
   * Group commit (default true): appends that arrive while a commit is in flight wait and go together in the next
   * statement, one commit for all, each acknowledged only after that commit. `false`: one commit per append.
   */
  groupCommit?: boolean;
  /** Most routes in one group commit (default 256). */
  maxBatch?: number;
  /**
   * Group commits in flight at once, each on its own connection (default 4, at most poolSize - 1 so reads keep a
   * connection; with groupCommit false, poolSize).
   */
  maxInFlight?: number;
  /**
   * With group commits already in flight, the next is sent only once it can carry as many routes as they do on
   * average, up to this many (default 4); with none in flight, at once. Keeps pipelined commits full: each costs the
   * server (and this process) a statement and a WAL flush, so one-route commits beside full ones would spend CPU for
   * no throughput; with few runs (small batches in flight) the next still goes at once.
   */
  pipelineAt?: number;
}

interface Pending {
  write: AppendWrite;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * The PostgreSQL ledger: many kernels, on one host or many, share it. Each route is appended in one statement that
 * locks its run's head row, so a run's appends are serialised in the database; a kernel holding a stale run state
 * gets LedgerConflictError and re-routes from the fresh state. Acknowledged means committed (at the server's
 * `synchronous_commit`). No decisions.jsonl files are written (a run may move between hosts): `navkernel ledger export RUN
 * --jsonl` produces them from the ledger, byte for byte what the SQLite ledger writes.
 */
export class PostgresLedger implements Ledger {
  /** The PostgreSQL ledger writes no decisions.jsonl files: `navkernel ledger export RUN --jsonl` derives them. */
  readonly mirror = undefined;
  readonly target: PostgresTarget;
  /** The ledger's URL with the password hidden: what messages name. */
  readonly location: string;
  private sqlSurface: PgLedgerSql | undefined;
  private readonly opening: Promise<PgLedgerSql>;
  private readonly groupCommit: boolean;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly pipelineAt: number;
  private readonly poolSize: number;
  /** Cache of run heads, valid only when its seq is the one a route follows (checked again by the database). */
  private readonly heads = new Map<string, { seq: number; hash: string }>();
  private queue: Pending[] = [];
  private readonly busyRuns = new Set<string>();
  private inFlight = 0;
  private routesInFlight = 0;
  private readonly counts = { batches: 0, routes: 0, peakInFlight: 0 };
  /** A batch that creates runs is in flight (at most one at a time). */
  private creating = false;
  private idle: (() => void)[] = [];
  /** Runs whose last append here lost to another writer, and how many times in a row. */
  private readonly contended = new Map<string, number>();
  private closed = false;

  /**
   * Starts opening at once (connect, check the schema is ours, migrate, check the role may write); every method
   * waits for it, and `ready()` reports its typed error (StoreUnavailableError, NotALedgerError, LedgerTooNewError,
   * LEDGER_NOT_WRITABLE). Parsing the URL fails here, synchronously.
   */
  constructor(url: string, options: PostgresLedgerOptions = {}) {
    this.target = parsePostgresUrl(url);
    this.location = this.target.display;
    this.opening = openPostgresPool(url, options).then(({ pool }) => (this.sqlSurface = new PgLedgerSql(pool)));
    this.opening.catch(() => {}); // reported by ready() and by every call, not as an unhandled rejection
    this.poolSize = options.poolSize ?? 10;
    this.groupCommit = options.groupCommit ?? true;
    this.maxBatch = options.groupCommit === false ? 1 : Math.max(1, options.maxBatch ?? 256);
    this.pipelineAt = Math.max(1, Math.min(this.maxBatch, options.pipelineAt ?? 4));
    this.maxInFlight = Math.max(1, options.maxInFlight ?? (this.groupCommit ? Math.min(4, this.poolSize - 1) : this.poolSize));
  }

  /** Opens a ledger and waits until it is ready (or throws the open's typed error). */
  static async open(url: string, options: PostgresLedgerOptions = {}): Promise<PostgresLedger> {
    const ledger = new PostgresLedger(url, options);
    await ledger.ready();
    return ledger;
  }

  /** Resolves once the ledger is open and checked; rejects with the open's typed error. */
  async ready(): Promise<void> {
    await this.opening;
  }

  /** The SQL surface, once open. */
  get sql(): PgLedgerSql {
    if (!this.sqlSurface) throw new Error(`PostgreSQL ledger ${this.location} is not open yet: await ready()`);
    return this.sqlSurface;
  }

  /**
   * Runs a read once open, turning a lost server into StoreUnavailableError. A read whose pooled connection had died
   * (terminated by the server or an operator, reset by the network) is tried again on another one, as many times as
   * the pool could hold dead idle connections, so a server that is up again is not reported unavailable. `once`:
   * never retried (a write whose outcome would be unknown).
   */
  private async read<T>(fn: (sql: PgLedgerSql) => Promise<T>, once = false): Promise<T> {
    const sql = this.sqlSurface ?? (await this.opening);
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn(sql);
      } catch (err) {
        if (once || attempt >= this.poolSize || !isDeadConnectionError(err)) throw wrapError(this.target, err);
      }
    }
  }

  async loadRun(run_id: string): Promise<RunState | undefined> {
    // After a lost race on this run, wait a little (random, growing with each loss, at most 20 ms) before reading
    // it again: without it, kernels hammering one run can keep overtaking the same loser until it gives up.
    const lost = this.contended.get(run_id);
    if (lost !== undefined) await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, 0.25 * 2 ** lost)));
    const r = await this.read((sql) => sql.lastState(run_id));
    if (r === undefined) {
      // A new run: its first route follows the genesis hash (the database checks that again), no head read needed.
      this.heads.set(run_id, { seq: 0, hash: GENESIS_HASH });
      return undefined;
    }
    this.heads.set(run_id, { seq: r.seq, hash: r.head_hash });
    // A person upgraded the run after its last route: it goes on from the upgraded state.
    const upgraded = await this.read((sql) => sql.versions.lastUpgrade(run_id, r.seq));
    return JSON.parse(upgraded ? upgraded.state : r.state) as RunState;
  }

  // ---- Flow versions and upgrades (VersionStore) ----------------------------------------------------------------------

  saveFlowVersion(hash: string, definition: string): Promise<void> {
    return this.read((sql) => sql.versions.saveFlowVersion(hash, definition));
  }
  flowVersion(hash: string): Promise<string | undefined> {
    return this.read((sql) => sql.versions.flowVersion(hash));
  }
  flowVersions(): Promise<{ hash: string; definition: string }[]> {
    return this.read((sql) => sql.versions.flowVersions());
  }
  lastUpgrade(run_id: string, seq: number): Promise<StoredUpgrade | undefined> {
    return this.read((sql) => sql.versions.lastUpgrade(run_id, seq));
  }
  runUpgrades(run_id: string): Promise<StoredUpgrade[]> {
    return this.read((sql) => sql.versions.runUpgrades(run_id));
  }
  /** Writes a stored upgrade as it is (`navkernel migrate`). */
  importUpgrade(u: StoredUpgrade): Promise<void> {
    return this.read((sql) => sql.versions.insert(u), true);
  }
  recordUpgrade(u: Omit<StoredUpgrade, 'idx' | 'prev_hash' | 'hash'>): Promise<StoredUpgrade | false> {
    return this.read((sql) => sql.versions.recordUpgrade(u), true);
  }

  async findByRequestId(run_id: string, request_id: string): Promise<{ decision: Decision; request_hash: string } | undefined> {
    const r = await this.read((sql) => sql.decisionByRequestId(run_id, request_id));
    if (r === undefined) return undefined;
    return { decision: JSON.parse(r.decision_json) as Decision, request_hash: sha256(canonicalJson(JSON.parse(r.request))) };
  }

  async append(record: RouteRecord, state: RunState): Promise<void> {
    if (this.closed) throw new Error('PostgresLedger is closed');
    const { run_id, seq } = record;
    let head = this.heads.get(run_id);
    if (head === undefined || head.seq !== seq - 1) {
      const h = await this.read((sql) => sql.head(run_id));
      head = h ? { seq: h.seq, hash: h.head_hash } : { seq: 0, hash: GENESIS_HASH };
      // A state that does not follow the head is stale: another kernel routed this run since it was read.
      if (head.seq !== seq - 1) {
        this.heads.set(run_id, head);
        this.contended.set(run_id, (this.contended.get(run_id) ?? 0) + 1);
        throw new LedgerConflictError(run_id, seq);
      }
    }
    const { write, hash } = buildAppendWrite(record, state, head.hash);
    try {
      await this.enqueue(write);
    } catch (err) {
      this.heads.delete(run_id);
      if (err instanceof LedgerConflictError) this.contended.set(run_id, (this.contended.get(run_id) ?? 0) + 1);
      throw err;
    }
    this.contended.delete(run_id);
    this.heads.set(run_id, { seq, hash });
  }

  private enqueue(write: AppendWrite): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.pump();
    });
  }

  /**
   * Pipelined group commit: starts a batch whenever fewer than maxInFlight are in flight (each on its own pooled
   * connection) and, if some are in flight already, it can carry as many routes as they do on average (at most
   * pipelineAt): so the next batch gathers and is sent while the previous one commits (its fsync), and commits stay
   * full. Two rules keep
   * per-run order and the hash chain without any batch depending on another:
   * - a run with a route in an uncommitted batch is not put in another batch (it waits in the queue). A route's
   *   prev_hash comes from the in-memory head, which moves only when its batch has committed, so no batch is built
   *   on a route that might still fail; a failed batch fails exactly its routes and forgets their runs' heads.
   * - at most one batch in flight creates runs: those take the ledger-wide register lock in the database, and
   *   several would only wait there on each other while holding connections the other batches could use.
   */
  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch: Pending[] = [];
      const rest: Pending[] = [];
      const inBatch = new Set<string>();
      let creates = false;
      for (const p of this.queue) {
        const id = p.write.route.run_id;
        const first = p.write.route.seq === 1;
        if (batch.length < this.maxBatch && !inBatch.has(id) && !this.busyRuns.has(id) && !(first && this.creating)) {
          inBatch.add(id);
          batch.push(p);
          creates ||= first;
        } else rest.push(p);
      }
      // Not worth a commit of its own beside those in flight: it waits for one to finish (or for more routes).
      if (batch.length === 0 || (this.inFlight > 0 && batch.length < Math.min(this.pipelineAt, this.routesInFlight / this.inFlight))) break;
      this.queue = rest;
      this.inFlight++;
      this.routesInFlight += batch.length;
      this.counts.batches++;
      this.counts.routes += batch.length;
      if (this.inFlight > this.counts.peakInFlight) this.counts.peakInFlight = this.inFlight;
      if (creates) this.creating = true;
      for (const id of inBatch) this.busyRuns.add(id);
      void this.commit(batch).finally(() => {
        this.inFlight--;
        this.routesInFlight -= batch.length;
        if (creates) this.creating = false;
        for (const id of inBatch) this.busyRuns.delete(id);
        this.pump();
        if (this.inFlight === 0 && this.queue.length === 0) for (const f of this.idle.splice(0)) f();
      });
    }
  }

  /** One statement for the batch; each append settles only after it commits (or is known not to have). */
  private async commit(batch: Pending[], retried = false): Promise<void> {
    let recorded: Set<string>;
    try {
      recorded = await this.sql.appendRegistering(batch.map((p) => p.write));
    } catch (err) {
      if (isConnectionError(err)) return this.afterLostConnection(batch, err, retried);
      if (batch.length > 1) {
        // One bad route (or a deadlock with a foreign writer) must not fail the others: one by one.
        await Promise.all(batch.map((p) => this.commit([p], retried)));
        return;
      }
      // A new run whose id has a register entry already: an archived run (its tombstone), routed again.
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === 'run_register_run_id_key') {
        batch[0]!.reject(new RunArchivedError(batch[0]!.write.route.run_id, { cause: err }));
        return;
      }
      batch[0]!.reject(wrapError(this.target, err));
      return;
    }
    for (const p of batch) {
      if (recorded.has(p.write.route.run_id)) p.resolve();
      else p.reject(new LedgerConflictError(p.write.route.run_id, p.write.route.seq));
    }
  }

  /**
   * The connection died during the statement: it may or may not have committed. Ask the database (a new connection)
   * which routes are there with our hash: those are acknowledged; the others were not recorded and are tried once
   * more. If the server stays unreachable, each append fails with StoreUnavailableError (nothing is acknowledged that
   * is not committed; a retry with the same request_id is safe).
   */
  private async afterLostConnection(batch: Pending[], err: unknown, retried: boolean): Promise<void> {
    let there: boolean[];
    try {
      there = await this.read((sql) => sql.committed(batch.map((p) => ({ run_id: p.write.route.run_id, seq: p.write.route.seq, hash: p.write.route.hash }))));
    } catch (again) {
      const cause = again instanceof PostgresUnavailableError ? again.cause : again;
      const e = new PostgresUnavailableError(this.target, `${causeText(cause, undefined)}; whether the last route was recorded is unknown: retry it with the same request_id`, { cause: again });
      for (const p of batch) p.reject(e);
      return;
    }
    const missing: Pending[] = [];
    batch.forEach((p, k) => (there[k] ? p.resolve() : missing.push(p)));
    if (missing.length === 0) return;
    if (retried) {
      const e = wrapError(this.target, err);
      for (const p of missing) p.reject(e);
      return;
    }
    await this.commit(missing, true);
  }

  // ---- RunReader, StatsReader, EscalationStore: every read sees committed data only --------------------------------------------------

  run(run_id: string): Promise<StoredRun | undefined> {
    return this.read((sql) => sql.run(run_id));
  }
  runs(): Promise<StoredRun[]> {
    return this.read((sql) => sql.runs());
  }
  async runPage(query: RunPageQuery): Promise<RunPage> {
    const { runs, total, more } = await this.read((sql) => sql.runPage(query));
    const last = runs[runs.length - 1];
    return { runs, total, next: more && last ? { created_ts: last.created_ts, run_id: last.run_id } : null };
  }
  ledgerTotals(): Promise<LedgerTotals> {
    return this.read((sql) => sql.ledgerTotals());
  }
  ledgerTierRuleCounts(): Promise<{ tier: number; rule: string; decision: string; count: number }[]> {
    return this.read((sql) => sql.ledgerTierRuleCounts());
  }
  costBuckets(width_ms: number): Promise<CostBucket[]> {
    return this.read((sql) => sql.costBuckets(width_ms));
  }
  runIds(): Promise<string[]> {
    return this.read((sql) => sql.allRunIds());
  }
  routes(run_id: string, afterSeq: number, limit: number): Promise<StoredRoute[]> {
    return this.read((sql) => sql.routesPage(run_id, afterSeq, limit));
  }
  replayRows(run_id: string, afterSeq: number, limit: number): Promise<ReplayRow[]> {
    return this.read((sql) => sql.replayPage(run_id, afterSeq, limit));
  }
  async *replayChunks(run_id: string, afterSeq: number, chunk: number): AsyncIterable<ReplayTuple[]> {
    const sql = this.sqlSurface ?? (await this.opening);
    try {
      yield* sql.replayChunks(run_id, afterSeq, chunk);
    } catch (err) {
      throw wrapError(this.target, err);
    }
  }
  llmCalls(run_id: string, fromSeq: number, toSeq: number): Promise<StoredLlmCall[]> {
    return this.read((sql) => sql.llmCalls(run_id, fromSeq, toSeq));
  }
  offroadRows(run_id: string): Promise<OffroadRow[]> {
    return this.read((sql) => sql.offroadRows(run_id));
  }
  runFlows(run_id: string): Promise<string[]> {
    return this.read((sql) => sql.runFlows(run_id));
  }
  runFlowsHashes(run_id: string): Promise<string[]> {
    return this.read((sql) => sql.runFlowsHashes(run_id));
  }
  arbiterFootprint(run_id: string): Promise<boolean> {
    return this.read((sql) => sql.arbiterFootprint(run_id));
  }
  tierRuleCounts(run_id: string): Promise<{ tier: number; rule: string; decision: string; count: number }[]> {
    return this.read((sql) => sql.tierRuleCounts(run_id));
  }
  openEscalationCount(run_id: string): Promise<number> {
    return this.read((sql) => sql.openEscalationCount(run_id));
  }
  escalation(escalation_id: string): Promise<StoredEscalation | undefined> {
    return this.read((sql) => sql.escalation(escalation_id));
  }
  runEscalations(run_id: string): Promise<StoredEscalation[]> {
    return this.read((sql) => sql.runEscalations(run_id));
  }
  routeHash(run_id: string, seq: number): Promise<string | undefined> {
    return this.read((sql) => sql.routeHash(run_id, seq));
  }
  runRegister(): Promise<StoredRunEntry[]> {
    return this.read((sql) => sql.runRegister());
  }
  resolveEscalation(escalation_id: string, resolution_json: string, by: string, ts: string, resolution_hash: string): Promise<boolean> {
    return this.read((sql) => sql.resolveEscalation(escalation_id, resolution_json, by, ts, resolution_hash), true);
  }

  /**
   * Writes stored rows as they are (a copy: `navkernel ledger migrate`), in one transaction, through the same head-checked
   * statement as append, so a copy that does not follow a run's head fails whole.
   */
  async importWrites(writes: readonly AppendWrite[]): Promise<void> {
    const sql = this.sqlSurface ?? (await this.opening);
    const client = await sql.pool.connect().catch((err: unknown) => {
      throw wrapError(this.target, err);
    });
    try {
      await client.query(`BEGIN; ${REGISTER_LOCK_SQL}`);
      for (const w of writes) {
        const ok = await sql.registering([w], client);
        if (!ok.has(w.route.run_id)) throw new LedgerConflictError(w.route.run_id, w.route.seq);
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw wrapError(this.target, err);
    } finally {
      client.release();
    }
    for (const w of writes) this.heads.delete(w.route.run_id);
  }

  /** Group commits started so far, the routes they carried, and the most in flight at once (for the bench and tests). */
  get commitStats(): { batches: number; routes: number; peakInFlight: number } {
    return { ...this.counts };
  }

  /** Resolves when every append handed to the ledger has settled. */
  flush(): Promise<void> {
    if (this.inFlight === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flush();
    const sql = await this.opening.catch(() => undefined);
    await sql?.close();
  }
}
