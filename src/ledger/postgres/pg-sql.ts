// Every SQL statement of the PostgreSQL ledger: the same surface as the SQLite ledger's LedgerSql (src/ledger/sql.ts),
// asynchronous, and with a batched append (group commit).
import type pg from 'pg';
import { PgVersions } from './pg-versions.js';
import type {
  CostBucket,
  LedgerTotals,
  OffroadRow,
  ReplayRow,
  ReplayTuple,
  RunPageQuery,
  StoredEscalation,
  StoredLlmCall,
  StoredRoute,
  StoredRun,
  StoredRunEntry,
  StoredRunListing,
} from '../../contracts/ports.js';
import type { AppendWrite } from '../sql.js';
import { isConnectionError } from './errors.js';
import { GENESIS_HASH } from '../chain.js';
import { REGISTER_HEAD_SQL, REGISTER_LOCK_SQL, insertRegisterEntries, registerEntriesSql, registerHead } from './schema.js';

const ROUTE_COLUMNS =
  'run_id, seq, flow, step, request_id, decision, next_step, tier, rule, request, decision_json, state, latency_us, cost_usd, llm_calls, ' +
  'kernel_version, flows_hash, ts, prev_hash, hash, latency_unit, principal';
// Read back as the SQLite ledger gives them (RunReader): hashes as lowercase hex, request_hash as it does.
const ROUTE_SELECT =
  "run_id, seq, flow, step, request_id, '' AS request_hash, field_sums, decision, next_step, tier, rule, request, decision_json, state, latency_us, latency_unit, cost_usd, " +
  "llm_calls, kernel_version, flows_hash, ts, principal, encode(prev_hash, 'hex') AS prev_hash, encode(hash, 'hex') AS hash";
const RUN_SELECT =
  "run_id, flow, created_ts, updated_ts, last_seq, encode(head_hash, 'hex') AS head_hash, offroad, llm_calls, cost_usd, last_decision, last_step";
const ESCALATION_SELECT =
  "escalation_id, run_id, seq, flow, step, reason, opened_ts, status, resolution, resolved_by, resolved_ts, encode(resolution_hash, 'hex') AS resolution_hash";

// The run listing (runPage), as the SQLite ledger's (src/ledger/sql.ts): open escalations, and the run's status as
// src/runs/audit.ts defines it (terminated: last decision TERMINATE, or an ESCALATE resolved with TERMINATE).
const OPEN_ESCALATIONS = "(SELECT count(*) FROM escalations e WHERE e.run_id = u.run_id AND e.status = 'open')";
const RUN_STATUS =
  `CASE WHEN u.last_decision = 'TERMINATE' THEN 'terminated' WHEN ${OPEN_ESCALATIONS} > 0 THEN 'escalated' ` +
  "WHEN u.last_decision = 'ESCALATE' AND (SELECT CASE WHEN e.resolution IS NULL OR e.resolution = '' THEN NULL ELSE e.resolution::jsonb ->> 'decision' END " +
  "FROM escalations e WHERE e.run_id = u.run_id AND e.seq = u.last_seq ORDER BY e.escalation_id LIMIT 1) = 'TERMINATE' THEN 'terminated' ELSE 'active' END";
// Routes whose decision needs a person (escalations, the iteration cap, a failure taking a branch default): the
// decision JSON is JSON.stringify's, so `"needs_human":true` appears exactly there (never inside an escaped string).
const NEEDS_HUMAN = "(SELECT count(*) FROM routes r WHERE r.run_id = u.run_id AND strpos(r.decision_json, '\"needs_human\":true') > 0)";
const LISTING_COLUMNS =
  "u.run_id, u.flow, u.created_ts, u.updated_ts, u.last_seq, encode(u.head_hash, 'hex') AS head_hash, u.offroad, u.llm_calls, u.cost_usd, " +
  `u.last_decision, u.last_step, ${OPEN_ESCALATIONS}::int AS open_escalations, ${NEEDS_HUMAN}::int AS needs_human, ${RUN_STATUS} AS status, ` +
  'ARRAY(SELECT DISTINCT r.flow FROM routes r WHERE r.run_id = u.run_id ORDER BY r.flow) AS flows';
// A route time PostgreSQL can read as a timestamp (the kernel writes toISOString()); anything else counts as unreadable
// (bucket 0, left out of the span), where a cast would fail the whole statement.
const ISO_TS = "'^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})$'";
const epochMs = (col: string) => `CASE WHEN ${col} ~ ${ISO_TS} THEN extract(epoch FROM ${col}::timestamptz) * 1000 END`;

const LLM_COLUMNS =
  'run_id, seq, idx, provider, model, purpose, attempt, prompt_hash, raw_answer, outcome, input_tokens, output_tokens, usd, latency_ms, record';

/**
 * Appends a batch of routes (at most one per run, sorted by run_id) in ONE statement, so one commit:
 *
 * - `head` upserts each run's head row. ON CONFLICT DO UPDATE takes the row lock (a second writer on the run waits
 *   for the first to commit, then re-checks against the committed row, READ COMMITTED), and its WHERE accepts the
 *   route only when it follows the head: `last_seq = seq - 1` and `head_hash = prev_hash`, and, when a person upgraded
 *   the run after its head (`runs upgrade`), only when the route was decided on the upgrade's version (else it is stale:
 *   a conflict, and the kernel reloads the run, upgraded, and routes again). A new run is inserted only
 *   for seq 1. Rows are locked in run_id order, so two batches never deadlock.
 * - the route, its LLM calls and its escalation are inserted only for the runs `head` accepted.
 *
 * Returns the run_ids whose route was recorded; the others are conflicts (another writer got there first).
 */
const APPEND_SQL = `
WITH i AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::text[],
                       $10::text[], $11::text[], $12::text[], $13::float8[], $14::float8[], $15::int[], $16::text[], $17::text[],
                       $18::text[], $19::bytea[], $20::bytea[], $21::int[], $44::text[], $45::text[], $46::text[])
    AS t(run_id, seq, flow, step, request_id, decision, next_step, tier, rule, request, decision_json, state, latency_us, cost_usd,
         llm_calls, kernel_version, flows_hash, ts, prev_hash, hash, offroad, field_sums, latency_unit, principal)
),
head AS (
  INSERT INTO runs AS u (run_id, flow, created_ts, updated_ts, last_seq, head_hash, offroad, llm_calls, cost_usd, last_decision, last_step)
  SELECT run_id, flow, ts, ts, seq, hash, offroad, llm_calls, cost_usd, decision, step FROM i
   WHERE i.seq = 1 OR EXISTS (SELECT 1 FROM runs x WHERE x.run_id = i.run_id)
   ORDER BY run_id
  ON CONFLICT (run_id) DO UPDATE SET
    updated_ts = EXCLUDED.updated_ts, last_seq = EXCLUDED.last_seq, head_hash = EXCLUDED.head_hash,
    offroad = u.offroad + EXCLUDED.offroad, llm_calls = u.llm_calls + EXCLUDED.llm_calls, cost_usd = u.cost_usd + EXCLUDED.cost_usd,
    last_decision = EXCLUDED.last_decision, last_step = EXCLUDED.last_step
  WHERE u.last_seq = EXCLUDED.last_seq - 1 AND u.head_hash = (SELECT prev_hash FROM i WHERE i.run_id = u.run_id)
    AND coalesce((SELECT g.to_flows FROM run_upgrades g WHERE g.run_id = u.run_id AND g.seq = u.last_seq ORDER BY g.idx DESC LIMIT 1),
                 (SELECT flows_hash FROM i WHERE i.run_id = u.run_id)) = (SELECT flows_hash FROM i WHERE i.run_id = u.run_id)
  RETURNING u.run_id
),
ins_route AS (
  INSERT INTO routes (${ROUTE_COLUMNS}, field_sums)
  SELECT i.run_id, i.seq, i.flow, i.step, i.request_id, i.decision, i.next_step, i.tier, i.rule, i.request, i.decision_json, i.state,
         i.latency_us, i.cost_usd, i.llm_calls, i.kernel_version, i.flows_hash, i.ts, i.prev_hash, i.hash, i.latency_unit, i.principal, i.field_sums
    FROM i JOIN head h ON h.run_id = i.run_id
),
ins_calls AS (
  INSERT INTO llm_calls (${LLM_COLUMNS})
  SELECT c.* FROM unnest($22::text[], $23::int[], $24::int[], $25::text[], $26::text[], $27::text[], $28::int[], $29::text[], $30::text[],
                         $31::text[], $32::int[], $33::int[], $34::float8[], $35::float8[], $36::text[])
    AS c(run_id, seq, idx, provider, model, purpose, attempt, prompt_hash, raw_answer, outcome, input_tokens, output_tokens, usd, latency_ms, record)
    JOIN head h ON h.run_id = c.run_id
),
ins_esc AS (
  INSERT INTO escalations (escalation_id, run_id, seq, flow, step, reason, opened_ts, status)
  SELECT e.escalation_id, e.run_id, e.seq, e.flow, e.step, e.reason, e.opened_ts, 'open'
    FROM unnest($37::text[], $38::text[], $39::int[], $40::text[], $41::text[], $42::text[], $43::text[])
      AS e(escalation_id, run_id, seq, flow, step, reason, opened_ts)
    JOIN head h ON h.run_id = e.run_id
)
SELECT run_id FROM head`;

function appendParams(batch: readonly AppendWrite[]): unknown[] {
  const cols: unknown[][] = Array.from({ length: 46 }, () => []);
  for (const w of batch) {
    const r = w.route;
    const v = [
      r.run_id, r.seq, r.flow, r.step, r.request_id, r.decision, r.next_step, r.tier, r.rule, r.request, r.decision_json, r.state,
      r.latency_us, r.cost_usd, r.llm_calls, r.kernel_version, r.flows_hash, r.ts, r.prev_hash, r.hash, w.offroad ? 1 : 0,
    ];
    for (let k = 0; k < v.length; k++) cols[k]!.push(v[k]);
    cols[43]!.push(r.field_sums);
    cols[44]!.push(r.latency_unit);
    cols[45]!.push(r.principal ?? null);
    for (const c of w.llmCalls) {
      const cv = [
        c.run_id, c.seq, c.idx, c.provider, c.model, c.purpose, c.attempt, c.prompt_hash, c.raw_answer, c.outcome, c.input_tokens,
        c.output_tokens, c.usd, c.latency_ms, c.record,
      ];
      for (let k = 0; k < cv.length; k++) cols[21 + k]!.push(cv[k]);
    }
    const e = w.escalation;
    if (e) {
      const ev = [e.escalation_id, e.run_id, e.seq, e.flow, e.step, e.reason, e.opened_ts];
      for (let k = 0; k < ev.length; k++) cols[36 + k]!.push(ev[k]);
    }
  }
  return cols;
}

/** The runs a batch created (its seq-1 routes that were recorded), in run_id order: their register entries. */
function createdBy(batch: readonly AppendWrite[], recorded: Set<string>): { run_id: string; first_hash: Buffer }[] {
  return batch
    .filter((w) => w.route.seq === 1 && recorded.has(w.route.run_id))
    .sort((a, b) => (a.route.run_id < b.route.run_id ? -1 : a.route.run_id > b.route.run_id ? 1 : 0))
    .map((w) => ({ run_id: w.route.run_id, first_hash: w.route.hash }));
}

/** The ledger's SQL surface on PostgreSQL. Each method is one statement (one round trip) on the pool. */
export class PgLedgerSql {
  readonly pool: pg.Pool;
  /** Flow versions and run upgrades (docs/changing-flows.md). */
  readonly versions: PgVersions;

  constructor(pool: pg.Pool) {
    this.pool = pool;
    this.versions = new PgVersions(pool);
  }

  private async rows<R extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<R[]> {
    return (await this.pool.query<R>({ name, text, values })).rows;
  }

  /**
   * Records a batch of routes in one statement and one commit (see APPEND_SQL). `batch` holds at most one write per
   * run. Resolves with the run_ids recorded; a write whose run is missing from it was a conflict. Rejects when the
   * statement failed (nothing of the batch was recorded), or when the connection failed (outcome unknown: ask
   * `committed()`).
   */
  async appendBatch(batch: readonly AppendWrite[], client?: pg.ClientBase): Promise<Set<string>> {
    const sorted = [...batch].sort((a, b) => (a.route.run_id < b.route.run_id ? -1 : a.route.run_id > b.route.run_id ? 1 : 0));
    const q = { name: 'nk_append', text: APPEND_SQL, values: appendParams(sorted) };
    const res = await (client ?? this.pool).query<{ run_id: string }>(q);
    return new Set(res.rows.map((r) => r.run_id));
  }

  /**
   * appendBatch, and for the runs it creates (seq 1) their run register entries, in the same transaction. A batch
   * that creates no run is the single statement. One that does takes the register lock (so the register is one
   * chain whatever the number of writers) in three round trips: `BEGIN`, the lock and the register's head read
   * (a later statement than the lock, so it sees the last committed entry) in one simple query; the append; the
   * new entries chained on that head and `COMMIT` in one simple query. Same outcomes as appendBatch.
   */
  async appendRegistering(batch: readonly AppendWrite[]): Promise<Set<string>> {
    if (!batch.some((w) => w.route.seq === 1)) return this.appendBatch(batch);
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      const opened = (await client.query(`BEGIN; ${REGISTER_LOCK_SQL}; ${REGISTER_HEAD_SQL}`)) as unknown as pg.QueryResult<{ hash: string }>[];
      const head = opened[2]?.rows[0]?.hash ?? GENESIS_HASH;
      const recorded = await this.appendBatch(batch, client);
      await client.query(`${registerEntriesSql(head, createdBy(batch, recorded), (s) => client.escapeLiteral(s))} COMMIT`);
      return recorded;
    } catch (err) {
      if (isConnectionError(err)) broken = err as Error;
      else await client.query('ROLLBACK').catch((e: unknown) => void (broken = e as Error));
      throw err;
    } finally {
      client.release(broken);
    }
  }

  /**
   * Inside a transaction that holds REGISTER_LOCK_SQL: appends the batch, then enters the runs it created in the run
   * register (in run_id order within the batch).
   */
  async registering(batch: readonly AppendWrite[], client: pg.ClientBase): Promise<Set<string>> {
    const recorded = await this.appendBatch(batch, client);
    const created = createdBy(batch, recorded);
    if (created.length > 0) await insertRegisterEntries(client, await registerHead(client), created);
    return recorded;
  }

  /** The run register in ordinal order. */
  runRegister(): Promise<StoredRunEntry[]> {
    return this.rows<StoredRunEntry>(
      'nk_run_register',
      "SELECT ordinal::float8 AS ordinal, run_id, encode(first_hash, 'hex') AS first_hash, encode(prev_hash, 'hex') AS prev_hash, encode(hash, 'hex') AS hash FROM run_register ORDER BY ordinal",
      [],
    );
  }

  /** Which of these routes are in the ledger with exactly this hash (after a connection died mid-commit). */
  async committed(writes: readonly { run_id: string; seq: number; hash: Buffer }[]): Promise<boolean[]> {
    const rows = await this.rows<{ run_id: string; seq: number; hash: Buffer }>(
      'nk_committed',
      'SELECT r.run_id, r.seq, r.hash FROM routes r JOIN unnest($1::text[], $2::int[]) AS w(run_id, seq) ON r.run_id = w.run_id AND r.seq = w.seq',
      [writes.map((w) => w.run_id), writes.map((w) => w.seq)],
    );
    const found = new Map(rows.map((r) => [`${r.seq}\u0000${r.run_id}`, r.hash]));
    return writes.map((w) => found.get(`${w.seq}\u0000${w.run_id}`)?.equals(w.hash) ?? false);
  }

  /** The run's latest state with its head (seq and hash), read in one statement so they belong together. */
  async lastState(runId: string): Promise<{ state: string; seq: number; head_hash: string } | undefined> {
    const rows = await this.rows<{ state: string; seq: number; head_hash: string }>(
      'nk_last_state',
      "SELECT r.state, r.seq, encode(u.head_hash, 'hex') AS head_hash FROM runs u JOIN routes r ON r.run_id = u.run_id AND r.seq = u.last_seq WHERE u.run_id = $1",
      [runId],
    );
    return rows[0];
  }

  async head(runId: string): Promise<{ seq: number; head_hash: string } | undefined> {
    const rows = await this.rows<{ seq: number; head_hash: string }>('nk_head', "SELECT last_seq AS seq, encode(head_hash, 'hex') AS head_hash FROM runs WHERE run_id = $1", [runId]);
    return rows[0];
  }

  async decisionByRequestId(runId: string, requestId: string): Promise<{ decision_json: string; request: string } | undefined> {
    const rows = await this.rows<{ decision_json: string; request: string }>(
      'nk_by_request_id',
      'SELECT decision_json, request FROM routes WHERE run_id = $1 AND request_id = $2',
      [runId, requestId],
    );
    return rows[0];
  }

  routesPage(runId: string, afterSeq: number, limit: number): Promise<StoredRoute[]> {
    return this.rows<StoredRoute>('nk_routes_page', `SELECT ${ROUTE_SELECT} FROM routes WHERE run_id = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3::bigint`, [runId, afterSeq, limit]);
  }

  replayPage(runId: string, afterSeq: number, limit: number): Promise<ReplayRow[]> {
    return this.rows('nk_replay_page', 'SELECT seq, request, decision_json, ts, llm_calls FROM routes WHERE run_id = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3::bigint', [
      runId, afterSeq, limit,
    ]);
  }

  /**
   * A run's replay columns through one server-side cursor (one query, FETCHed `chunk` rows at a time, rows as
   * arrays) in a read-only transaction on a client of its own, so the rows are one consistent snapshot.
   */
  async *replayChunks(runId: string, afterSeq: number, chunk: number): AsyncIterable<ReplayTuple[]> {
    const client = await this.pool.connect();
    let ok = false;
    try {
      await client.query('BEGIN READ ONLY');
      await client.query({
        text: 'DECLARE nk_replay NO SCROLL CURSOR FOR SELECT seq, request, decision_json, ts, llm_calls, flows_hash FROM routes WHERE run_id = $1 AND seq > $2::bigint ORDER BY seq',
        values: [runId, afterSeq],
      });
      const fetch = `FETCH FORWARD ${Math.max(1, Math.floor(chunk))} FROM nk_replay`;
      for (;;) {
        const res = await client.query<ReplayTuple>({ text: fetch, rowMode: 'array' });
        if (res.rows.length > 0) yield res.rows;
        if (res.rows.length < chunk) break;
      }
      ok = true;
    } finally {
      // A consumer that stops early (or an error) ends here too: roll back, and drop a client left mid-transaction.
      try {
        await client.query(ok ? 'COMMIT' : 'ROLLBACK');
        client.release();
      } catch (err) {
        client.release(err instanceof Error ? err : true);
      }
    }
  }

  llmCalls(runId: string, fromSeq: number, toSeq: number): Promise<StoredLlmCall[]> {
    return this.rows<StoredLlmCall>('nk_llm_calls_range', `SELECT ${LLM_COLUMNS} FROM llm_calls WHERE run_id = $1 AND seq >= $2::bigint AND seq <= $3::bigint ORDER BY seq, idx`, [
      runId, fromSeq, toSeq,
    ]);
  }

  runLlmCalls(runId: string): Promise<StoredLlmCall[]> {
    return this.rows<StoredLlmCall>('nk_run_llm_calls', `SELECT ${LLM_COLUMNS} FROM llm_calls WHERE run_id = $1 ORDER BY seq, idx`, [runId]);
  }

  offroadRows(runId: string): Promise<OffroadRow[]> {
    return this.rows('nk_offroad', "SELECT seq, flow, step, decision_json, ts FROM routes WHERE run_id = $1 AND decision <> 'CONTINUE' ORDER BY seq", [runId]);
  }

  /** Whether tier 3 ever ran in a run (same definition as the SQLite ledger's). */
  async arbiterFootprint(runId: string): Promise<boolean> {
    const rows = await this.rows<{ x: boolean }>(
      'nk_nav_footprint',
      "SELECT EXISTS (SELECT 1 FROM routes WHERE run_id = $1 AND tier >= 3 AND (tier = 3 OR llm_calls > 0 OR (strpos(decision_json, '\"tier\":3') > 0 AND strpos(decision_json, 'navigator_unavailable') = 0 AND strpos(decision_json, 'arbiter_unavailable') = 0))) AS x",
      [runId],
    );
    return rows[0]!.x;
  }

  async runFlows(runId: string): Promise<string[]> {
    return (await this.rows<{ flow: string }>('nk_run_flows', 'SELECT DISTINCT flow FROM routes WHERE run_id = $1 ORDER BY flow', [runId])).map((r) => r.flow);
  }

  /** Distinct flow definitions (their hashes) a run was routed with, in order of first use. */
  async runFlowsHashes(runId: string): Promise<string[]> {
    const rows = await this.rows<{ flows_hash: string }>(
      'nk_run_flows_hashes',
      'SELECT flows_hash FROM routes WHERE run_id = $1 GROUP BY flows_hash ORDER BY min(seq)',
      [runId],
    );
    return rows.map((r) => r.flows_hash);
  }

  async run(runId: string): Promise<StoredRun | undefined> {
    return (await this.rows<StoredRun>('nk_run', `SELECT ${RUN_SELECT} FROM runs WHERE run_id = $1`, [runId]))[0];
  }

  runs(): Promise<StoredRun[]> {
    return this.rows<StoredRun>('nk_runs', `SELECT ${RUN_SELECT} FROM runs ORDER BY created_ts, run_id`, []);
  }

  /** Run ids known to the runs table, the routes table or the run register (they differ only in a tampered ledger). */
  async allRunIds(): Promise<string[]> {
    const rows = await this.rows<{ run_id: string }>(
      'nk_all_run_ids',
      'SELECT run_id FROM runs UNION SELECT DISTINCT run_id FROM routes UNION SELECT run_id FROM run_register',
      [],
    );
    return rows.map((r) => r.run_id).sort();
  }

  async openEscalationCount(runId: string): Promise<number> {
    return (await this.rows<{ n: number }>('nk_open_esc', "SELECT count(*)::int AS n FROM escalations WHERE run_id = $1 AND status = 'open'", [runId]))[0]!.n;
  }

  async escalation(id: string): Promise<StoredEscalation | undefined> {
    return (await this.rows<StoredEscalation>('nk_escalation', `SELECT ${ESCALATION_SELECT} FROM escalations WHERE escalation_id = $1`, [id]))[0];
  }

  runEscalations(runId: string): Promise<StoredEscalation[]> {
    return this.rows<StoredEscalation>('nk_run_escalations', `SELECT ${ESCALATION_SELECT} FROM escalations WHERE run_id = $1 ORDER BY seq`, [runId]);
  }

  /** Marks an open escalation resolved; false when it was not open (resolved meanwhile by someone else). */
  async resolveEscalation(id: string, resolutionJson: string, by: string, ts: string, hashHex: string): Promise<boolean> {
    const res = await this.pool.query({
      name: 'nk_resolve',
      text: "UPDATE escalations SET status = 'resolved', resolution = $1, resolved_by = $2, resolved_ts = $3, resolution_hash = decode($4, 'hex') WHERE escalation_id = $5 AND status = 'open'",
      values: [resolutionJson, by, ts, hashHex, id],
    });
    return res.rowCount === 1;
  }

  async routeHash(runId: string, seq: number): Promise<string | undefined> {
    return (await this.rows<{ hash: string }>('nk_route_hash', "SELECT encode(hash, 'hex') AS hash FROM routes WHERE run_id = $1 AND seq = $2", [runId, seq]))[0]?.hash;
  }

  tierRuleCounts(runId: string): Promise<{ tier: number; rule: string; decision: string; count: number }[]> {
    return this.rows(
      'nk_tier_rule_counts',
      'SELECT tier, rule, decision, count(*)::int AS count FROM routes WHERE run_id = $1 GROUP BY tier, rule, decision ORDER BY tier, rule, decision',
      [runId],
    );
  }

  /**
   * One page of the run listing (walks index runs_created in order, stops after the page) and the number of runs
   * matching its filters, as two statements sent at once.
   */
  async runPage(q: RunPageQuery): Promise<{ runs: StoredRunListing[]; total: number; more: boolean }> {
    const values: unknown[] = [];
    const where: string[] = [];
    if (q.status !== undefined) where.push(`(${RUN_STATUS}) = $${values.push(q.status)}`);
    if (q.flow !== undefined) where.push(`EXISTS (SELECT 1 FROM routes r WHERE r.run_id = u.run_id AND r.flow = $${values.push(q.flow)})`);
    if (q.has_open_escalation !== undefined) where.push(`${q.has_open_escalation ? '' : 'NOT '}EXISTS (SELECT 1 FROM escalations e WHERE e.run_id = u.run_id AND e.status = 'open')`);
    const filters = `${q.status !== undefined ? 's' : ''}${q.flow !== undefined ? 'f' : ''}${q.has_open_escalation === undefined ? '' : q.has_open_escalation ? 'o' : 'n'}`;
    const countSql = `SELECT count(*)::float8 AS n FROM runs u${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
    const countValues = [...values];
    let tail = '';
    if (q.after !== undefined) where.push(`(u.created_ts, u.run_id) > ($${values.push(q.after.created_ts)}, $${values.push(q.after.run_id)})`);
    else if (q.offset) tail = ` OFFSET $${values.push(q.offset)}::bigint`;
    const pageSql = `SELECT ${LISTING_COLUMNS} FROM runs u${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY u.created_ts, u.run_id LIMIT $${values.push(q.limit + 1)}::bigint${tail}`;
    const mode = q.after !== undefined ? 'a' : q.offset ? 'o' : '';
    const [rows, count] = await Promise.all([
      this.rows<StoredRunListing>(`nk_run_page_${filters}_${mode}`, pageSql, values),
      this.rows<{ n: number }>(`nk_run_count_${filters}`, countSql, countValues),
    ]);
    const more = rows.length > q.limit;
    if (more) rows.length = q.limit;
    return { runs: rows, total: count[0]!.n, more };
  }

  /** Routes per (tier, rule, decision) over every run. */
  ledgerTierRuleCounts(): Promise<{ tier: number; rule: string; decision: string; count: number }[]> {
    return this.rows('nk_ledger_tier_rule_counts', 'SELECT tier, rule, decision, count(*)::float8 AS count FROM routes GROUP BY tier, rule, decision ORDER BY tier, rule, decision', []);
  }

  async ledgerTotals(): Promise<LedgerTotals> {
    const rows = await this.rows<LedgerTotals>(
      'nk_ledger_totals',
      `SELECT count(*)::float8 AS runs, coalesce(sum(last_seq), 0)::float8 AS routes, min(${epochMs('created_ts')})::float8 AS first_ms, max(${epochMs('updated_ts')})::float8 AS last_ms FROM runs`,
      [],
    );
    return rows[0]!;
  }

  /** Routes, LLM calls and USD per bucket of `widthMs` (a whole number of seconds) of route time. */
  costBuckets(widthMs: number): Promise<CostBucket[]> {
    return this.rows(
      'nk_cost_buckets',
      'SELECT b::float8 * 1000 AS bucket_ms, count(*)::float8 AS routes, sum(llm_calls)::float8 AS llm_calls, sum(cost_usd)::float8 AS usd ' +
        `FROM (SELECT coalesce(floor(${epochMs('ts')} / 1000 / $1::bigint) * $1::bigint, 0) AS b, llm_calls, cost_usd FROM routes) x GROUP BY b ORDER BY b`,
      [Math.max(1, Math.round(widthMs / 1000))],
    );
  }

  async routeCount(): Promise<number> {
    return (await this.rows<{ n: number }>('nk_count_routes', 'SELECT count(*)::int AS n FROM routes', []))[0]!.n;
  }

  /** Bytes the ledger's tables and indexes take on the server. */
  async databaseBytes(): Promise<number> {
    const rows = await this.rows<{ n: string }>(
      'nk_db_bytes',
      "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'",
      [],
    );
    return Number(rows[0]!.n);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
