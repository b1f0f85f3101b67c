import type { CandidateMove } from './candidate.js';
import type { Charter } from './flow.js';
import type { Decision, ProposedNode, RejectedMove } from './decision.js';
import type { JsonlRepair } from './ledger.js';
import type { LlmCallRecord } from './llm-call.js';
import type { RouteRequest } from './route-request.js';

/** What tier 3 is given: measurements, the charter and the closed list of legal moves. Nothing else. */
export interface ArbiterInput {
  run_id: string;
  /** Sequence number this route will get within its run (1-based). */
  seq: number;
  flow: string;
  step: string;
  /** The validated request. The port must only show whitelisted forensic fields to a model. */
  request: RouteRequest;
  charter: Charter;
  iteration: { current: number; max: number | null };
  candidates: CandidateMove[];
  inject_nodes: { allowed: boolean; max_nodes: number; roster: string[] };
  /** USD already spent on tier 3 in this run (from the run's persisted state). */
  run_spent_usd: number;
  signal: AbortSignal;
}

/** What tier 3 answers. A missing `proposal` means "fall through to tier 4". It never throws for model trouble. */
export interface ArbiterAnswer {
  proposal?: { candidate_id: string; reason: string; confidence?: number; inject_nodes?: ProposedNode[] };
  /** Answers refused along the way (out-of-vocabulary, unknown candidate, charter violation, …). */
  rejected: Omit<RejectedMove, 'tier'>[];
  /** Set when tier 3 did not call a model at all (e.g. rule `budget_exceeded`). */
  skipped?: { rule: string; reason: string };
  /** Every model call made, for the ledger. */
  calls: LlmCallRecord[];
  cost_usd: number;
}

/** Tier 3, the arbiter, as a port: `createKernel({ arbiter })`. */
export type ArbiterPort = (input: ArbiterInput) => Promise<ArbiterAnswer>;


/** The per-run state that survives restarts: loop counters, signature attempts, detour return points. */
export interface RunState {
  v: 1;
  run_id: string;
  /** Routes recorded so far in this run (the last seq). */
  seq: number;
  /** `<flow>/<step>` -> LOOPs decided back into this step's loop in this run. */
  loops: Record<string, number>;
  /** `<flow>/<step>:<signature>` -> times seen and detours taken. */
  signatures: Record<string, { seen: number; detours: number }>;
  /** Stack of places to return to after a utility step or an injected flow: innermost last. */
  returns: ReturnPoint[];
  /** USD spent on tier 3 in this run. */
  spent_usd: number;
  /**
   * Where the run stands (docs/run-states.md): `routing` (the kernel expects a report from `at`), `awaiting_person`
   * (an escalation is open: `escalation_id`), `ended` (TERMINATE). Absent in states recorded before navkernel 0.2:
   * such a run is `routing` with no expected step, and is held from its next route on.
   */
  lifecycle?: RunLifecycle;
  /** The step the kernel sent the run to, from which it expects the next report; null or absent: any step of the run's flow (a new run). */
  at?: RunPosition | null;
  /** The open escalation while `lifecycle` is `awaiting_person`. */
  escalation_id?: string;
  /** `<flow>/<step>` -> times the kernel sent the run there over the whole run (never reset; bounded by max_visits). */
  visits?: Record<string, number>;
  /** The last steps the kernel sent the run to (`<flow>/<step>`, oldest first, at most 6): names the cycle at a visit cap. */
  trail?: string[];
  /** The flow of the run's first route, whose `bounds.max_routes` caps the run. */
  started_in?: string;
  /**
   * The flow version the run is pinned to (docs/changing-flows.md): the hash of the flow set it started with (or was
   * upgraded to), whose definition the ledger keeps (`KernelStore.flowVersion`). Absent in states recorded before
   * flow versions: such a run takes the kernel's current flows at its next route and is pinned from then on.
   */
  flows?: string;
}

/** What a run is doing (docs/run-states.md). */
export type RunLifecycle = 'routing' | 'awaiting_person' | 'ended';

/** A step of a flow: where the kernel sent a run. */
export interface RunPosition {
  flow: string;
  step: string;
  /** Set when a LOOP sent the run back to `step`: the step that loops, whose report is accepted too (docs/run-states.md). */
  loop?: string;
}

/**
 * Where control goes back after a detour: `via: 'step'` a utility step (`target`), `via: 'flow'` an injected
 * flow (`target` is its id), `via: 'nodes'` ad-hoc nodes injected by tier 3 (run in order, then return).
 */
export interface ReturnPoint {
  flow: string;
  step: string;
  via: 'step' | 'flow' | 'nodes';
  target: string;
  nodes?: ProposedNode[];
}

/** One `route()` call as recorded by a store. */
export interface RouteRecord {
  run_id: string;
  seq: number;
  flow: string;
  step: string;
  request_id: string | null;
  /** sha256 (hex) of the canonical JSON of the validated request; what an idempotent retry is compared with. */
  request_hash: string;
  request: RouteRequest;
  decision: Decision;
  /** The kernel's time for this route, in whole microseconds. */
  latency_us: number;
  cost_usd: number;
  kernel_version: string;
  /** sha256 of the canonical JSON of every flow definition the kernel had loaded. */
  flows_hash: string;
  /** ISO time from the kernel's clock. */
  ts: string;
  llm_calls: LlmCallRecord[];
  /**
   * Who sent the route: the authenticated principal (`navkernel serve` passes the name its bearer token belongs to),
   * from `kernel.route(request, { principal })`, never from the request. Absent or null: nobody was recorded.
   */
  principal?: string | null;
}

/**
 * Where a kernel keeps its runs (the write side). The SQLite ledger, the PostgreSQL ledger and the in-memory
 * store implement it; `tests/store-conformance` is the executable specification every store must pass.
 *
 * Asynchronous so that a server database can implement it and so that a store can group-commit: concurrent
 * appends of different runs may share one transaction, each promise resolving only after that commit.
 *
 * Concurrency contract: a kernel keeps a run's state in memory between routes, validated optimistically.
 * `append` checks, atomically with the insert, that the run's head seq is `record.seq - 1`; when another writer
 * (another kernel, another process, another host) got there first it rejects with a `LedgerConflictError`
 * (code `LEDGER_CONFLICT`), records nothing, and the kernel reloads the run with `loadRun` and routes again.
 */
export interface KernelStore {
  /** The run's persisted state (its `seq` is the head seq), or undefined for a run never seen. */
  loadRun(run_id: string): Promise<RunState | undefined>;
  /** What was recorded for this idempotency key: the decision and the sha256 of the canonical request. */
  findByRequestId(run_id: string, request_id: string): Promise<{ decision: Decision; request_hash: string } | undefined>;
  /**
   * Records the route and the run's new state atomically. Resolves only after the commit is durable at the
   * store's durability. Rejects with LedgerConflictError (code LEDGER_CONFLICT) when the run's head seq is
   * not record.seq - 1 (another writer got there first), and, in a store that keeps upgrades, when the run was
   * upgraded after its head to a version other than record.flows_hash (the route was decided on the old version): the
   * kernel then reloads the run (`loadRun` returns the upgraded state) and re-routes.
   */
  append(record: RouteRecord, state: RunState): Promise<void>;
  /** Waits for pending appends (and any derived files) and releases the store. */
  close(): Promise<void>;
  /**
   * The escalation as stored, for stores that keep escalations (the ledgers, MemoryStore): the kernel asks it when a
   * run awaiting a person is routed again, to learn whether a person resolved it and where the run goes.
   */
  escalation?(escalation_id: string): Promise<StoredEscalation | undefined>;
  /**
   * Keeps a flow version (content-addressed: `hash` is the sha256 of `definition`, the canonical JSON of the flow set's
   * definitions sorted by flow id). Idempotent. The kernel calls it once per flow set before the first route with it.
   */
  saveFlowVersion?(hash: string, definition: string): Promise<void>;
  /** The definition of a kept flow version (canonical JSON), or undefined. */
  flowVersion?(hash: string): Promise<string | undefined>;
  /**
   * The last upgrade of a run recorded after its route `seq` (docs/changing-flows.md), or undefined. The kernel does not
   * ask it per route (an upgrade reaches a live run as a conflict on append; see `append`).
   */
  lastUpgrade?(run_id: string, seq: number): Promise<StoredUpgrade | undefined>;
}

/**
 * A run moved to another flow version by a person (`navkernel runs upgrade`): recorded like a resolution, chained to
 * the run's route `seq` (or the upgrade before it at the same seq) by `prev_hash`, so verify notices an edit.
 */
export interface StoredUpgrade {
  run_id: string;
  /** The run's head seq when it was upgraded: the upgrade applies before route seq + 1. */
  seq: number;
  /** 0 for the first upgrade after route `seq`, then 1, 2, … */
  idx: number;
  from_flows: string;
  to_flows: string;
  /** Canonical JSON of the step mapping used (`{"flow/old": "flow/new"}`), `{}` when none was needed. */
  map: string;
  /** Canonical JSON of the run's state after the upgrade (what the kernel routes the next report from). */
  state: string;
  by: string;
  reason: string;
  ts: string;
  prev_hash: string;
  hash: string;
}

/** The write side of flow versions and upgrades (both ledgers): what `runs upgrade`, archive and restore use. */
export interface VersionStore {
  /** Every kept flow version, by hash. */
  flowVersions(): Promise<{ hash: string; definition: string }[]>;
  /** A run's upgrades by seq, then idx. */
  runUpgrades(run_id: string): Promise<StoredUpgrade[]>;
  /**
   * Records an upgrade atomically with a check that the run's head seq is still `seq` (false, nothing recorded, when
   * the run moved on meanwhile); computes idx, prev_hash and hash (src/ledger/upgrade-chain.ts).
   */
  recordUpgrade(u: Omit<StoredUpgrade, 'idx' | 'prev_hash' | 'hash'>): Promise<StoredUpgrade | false>;
  saveFlowVersion(hash: string, definition: string): Promise<void>;
  flowVersion(hash: string): Promise<string | undefined>;
}

// ---------------------------------------------------------------------------------------------------------
// The read side: what `runs`, `audit`, `verify`, `replay`, `resolve` and `export` read. Rows are given as
// stored: JSON columns as their stored text (the hash chain covers that text), hashes as lowercase hex.
// ---------------------------------------------------------------------------------------------------------

/** A route row as stored. */
export interface StoredRoute {
  run_id: string;
  seq: number;
  flow: string;
  step: string;
  request_id: string | null;
  /** sha256 hex of the canonical request (see RouteRecord.request_hash); '' where the store derives it on lookup. */
  request_hash: string;
  /** Per-field fingerprints of the hashed fields (src/ledger/chain.ts `fieldSums`), so verify can name an edited field; null when not kept. */
  field_sums: string | null;
  /** Queryable copies of fields of `decision_json` (verify checks they agree with it). */
  decision: string;
  next_step: string | null;
  tier: number;
  rule: string;
  request: string;
  decision_json: string;
  state: string;
  /** The route's kernel time as stored, in the unit `latency_unit` names (read it with `routeLatencyUs`). */
  latency_us: number;
  /**
   * The unit `latency_us` was written in: 'us' (microseconds, schema version 5 on), or 'ms' for routes written before
   * (navkernel 0.1.0 stored milliseconds in this column; the hash chain covers the stored number, so they stay as written).
   */
  latency_unit: 'us' | 'ms';
  cost_usd: number;
  llm_calls: number;
  kernel_version: string;
  flows_hash: string;
  ts: string;
  /** Who sent the route (schema version 7; hashed when set), or null: see RouteRecord.principal. */
  principal: string | null;
  prev_hash: string;
  hash: string;
}

/** The columns replay reads, per route. */
export interface ReplayRow {
  seq: number;
  request: string;
  decision_json: string;
  ts: string;
  llm_calls: number;
}

/**
 * One route as replay reads it in bulk: the ReplayRow columns as an array, [seq, request, decision_json, ts, llm_calls],
 * then the flows_hash it was routed with (so a replay that reads every route learns the run's flow definitions, as
 * `runFlowsHashes` gives them, without scanning the run a second time).
 */
export type ReplayTuple = [seq: number, request: string, decision_json: string, ts: string, llm_calls: number, flows_hash: string];

/** An LLM call row as stored; `record` is the canonical JSON of the LlmCallRecord (what the chain hashes). */
export interface StoredLlmCall {
  run_id: string;
  seq: number;
  idx: number;
  provider: string;
  model: string;
  purpose: string;
  attempt: number;
  prompt_hash: string;
  raw_answer: string | null;
  outcome: string;
  input_tokens: number;
  output_tokens: number;
  usd: number;
  latency_ms: number;
  record: string;
}

/** A run's summary row (maintained with each append; verify recomputes it from the routes). */
export interface StoredRun {
  run_id: string;
  flow: string;
  created_ts: string;
  updated_ts: string;
  last_seq: number;
  head_hash: string;
  offroad: number;
  llm_calls: number;
  cost_usd: number;
  last_decision: string;
  last_step: string;
}

/** An escalation as a store keeps it: where it opened, and its resolution once resolved. */
export interface StoredEscalation {
  escalation_id: string;
  run_id: string;
  seq: number;
  flow: string;
  step: string;
  reason: string;
  opened_ts: string;
  status: 'open' | 'resolved';
  resolution: string | null;
  resolved_by: string | null;
  resolved_ts: string | null;
  resolution_hash: string | null;
}

/** An off-road route (anything but CONTINUE): what a decisions.jsonl line is derived from. */
export interface OffroadRow {
  seq: number;
  flow: string;
  step: string;
  decision_json: string;
  ts: string;
}

/**
 * One entry of the ledger-wide run register: every run gets one when its first route is recorded, chained
 * to the previous entry, so that a run deleted whole (routes, summary, calls, escalations) is still noticed.
 */
export interface StoredRunEntry {
  ordinal: number;
  run_id: string;
  /** Hash of the run's first route. */
  first_hash: string;
  prev_hash: string;
  hash: string;
}

/** A run's status as listings show it (see `RunPageQuery.status`). */
export type RunStatus = 'active' | 'escalated' | 'terminated';

/** Where a run listing resumes: the sort key of the last run of the previous page. */
export interface RunPageKey {
  created_ts: string;
  run_id: string;
}

/** A page of the run listing: runs oldest first (created_ts, then run_id), filtered, done by the store. */
export interface RunPageQuery {
  /**
   * Only runs with this status: `terminated` when the last decision is TERMINATE, or is an ESCALATE whose (resolved)
   * escalation at that seq was resolved with TERMINATE; else `escalated` when the run has an open escalation; else
   * `active`.
   */
  status?: RunStatus;
  /** Only runs that routed at least once in this flow (injected flows included). */
  flow?: string;
  /** Only runs with (true) or without (false) an open escalation. */
  has_open_escalation?: boolean;
  /** Most runs on the page (at least 1). */
  limit: number;
  /** Keyset: only runs after this one in the listing's order. */
  after?: RunPageKey;
  /** Skips this many matching runs first (the former offset cursors); ignored when `after` is given. */
  offset?: number;
}

/** A run's summary row with what a listing adds to it, computed by the store in the page's query. */
export interface StoredRunListing extends StoredRun {
  /** Distinct flows the run routed in, sorted (as `runFlows`). */
  flows: string[];
  /** Open escalations of the run (as `openEscalationCount`). */
  open_escalations: number;
  /** Routes whose decision has needs_human: true. */
  needs_human: number;
  status: RunStatus;
}

/** One page of runs (`StatsReader.runPage`). */
export interface RunPage {
  runs: StoredRunListing[];
  /** Runs matching the filters, on every page. */
  total: number;
  /** Pass as `after` for the next page; null when this page is the last. */
  next: RunPageKey | null;
}

/** Ledger-wide totals (`StatsReader.ledgerTotals`). */
export interface LedgerTotals {
  runs: number;
  /** Sum of the runs' last seq (routes recorded). */
  routes: number;
  /** Earliest run creation time (ms since the epoch), null when no run has a readable one. */
  first_ms: number | null;
  /** Latest run update time (ms since the epoch), null when no run has a readable one. */
  last_ms: number | null;
}

/** Routes, LLM calls and USD of the routes whose `ts` falls in one time bucket (`StatsReader.costBuckets`). */
export interface CostBucket {
  /** Start of the bucket, ms since the epoch (0 for routes whose ts does not parse). */
  bucket_ms: number;
  routes: number;
  llm_calls: number;
  usd: number;
}

// The read side is split by who uses it (issue 22.11): the run reader (audit, replay, verify, export, migrate), the
// ledger-wide statistics (the run listing, /v1/stats, the UI) and escalations (audit, the UI, resolve). Each caller takes
// only the part it uses; every store implements every part (`Ledger`). Every method reads committed data only.

/** What every part names: where the ledger is, for messages (a file path, or a URL without its password). */
export interface LedgerLocation {
  readonly location: string;
}

/** The run reader: one run's recorded routes and LLM calls, as audit, replay, verify, export and `migrate` read them. */
export interface RunReader extends LedgerLocation {
  /** The run's summary row, or undefined. */
  run(run_id: string): Promise<StoredRun | undefined>;
  /** Run ids known to the summary rows, the routes or the run register (they differ only in a damaged ledger), sorted. */
  runIds(): Promise<string[]>;
  /** Up to `limit` routes of a run with seq > afterSeq, in seq order. */
  routes(run_id: string, afterSeq: number, limit: number): Promise<StoredRoute[]>;
  /** The same range, only the columns replay needs. */
  replayRows(run_id: string, afterSeq: number, limit: number): Promise<ReplayRow[]>;
  /**
   * The bulk read replay uses: every route of a run with seq > afterSeq, in seq order, in chunks of up to `chunk`
   * rows, only the columns replay needs, as arrays (no per-row objects). Other reads may run between chunks.
   */
  replayChunks(run_id: string, afterSeq: number, chunk: number): AsyncIterable<ReplayTuple[]>;
  /** LLM call rows of a run with fromSeq <= seq <= toSeq, by seq then idx. */
  llmCalls(run_id: string, fromSeq: number, toSeq: number): Promise<StoredLlmCall[]>;
  /** The run's off-road routes in seq order. */
  offroadRows(run_id: string): Promise<OffroadRow[]>;
  /** Distinct flows a run routed in, sorted. */
  runFlows(run_id: string): Promise<string[]>;
  /** Distinct flows_hash values a run was routed with, in order of first use in the run (by seq). */
  runFlowsHashes(run_id: string): Promise<string[]>;
  /** Whether tier 3 ever ran in a run (a tier-3 decision, an LLM call, or a tier-3 rejection or skip other than `arbiter_unavailable` (or its former name `navigator_unavailable`)). */
  arbiterFootprint(run_id: string): Promise<boolean>;
  /** Routes per (tier, rule, decision), sorted by tier, rule, decision. */
  tierRuleCounts(run_id: string): Promise<{ tier: number; rule: string; decision: string; count: number }[]>;
  /** The stored hash of one route. */
  routeHash(run_id: string, seq: number): Promise<string | undefined>;
  /**
   * The run register in ordinal order (see StoredRunEntry): one entry per run ever created, chained, so that
   * verify notices a run deleted whole.
   */
  runRegister(): Promise<StoredRunEntry[]>;
}

/** Ledger-wide statistics: the run listing (the CLI's `runs`, the UI) and the totals of `/v1/stats`. */
export interface StatsReader extends LedgerLocation {
  /** Every run's summary row, oldest first (created_ts, then run_id). */
  runs(): Promise<StoredRun[]>;
  /**
   * One page of the run listing, filtered and paged by the store: one query for the page (status, flows and open
   * escalations included) and one for the total. Same order as `runs()`.
   */
  runPage(query: RunPageQuery): Promise<RunPage>;
  /** Run count, routes recorded, and the time span of the runs, in one query. */
  ledgerTotals(): Promise<LedgerTotals>;
  /** Routes per (tier, rule, decision) over the whole ledger, sorted by tier, rule, decision. */
  ledgerTierRuleCounts(): Promise<{ tier: number; rule: string; decision: string; count: number }[]>;
  /** Routes per bucket of `width_ms` (a whole number of seconds) of their `ts`, sorted by bucket. */
  costBuckets(width_ms: number): Promise<CostBucket[]>;
}

/** Escalations as audit and the UI read them (appends open them: see KernelStore.append). */
export interface EscalationReader extends LedgerLocation {
  openEscalationCount(run_id: string): Promise<number>;
  escalation(escalation_id: string): Promise<StoredEscalation | undefined>;
  /** A run's escalations by seq. */
  runEscalations(run_id: string): Promise<StoredEscalation[]>;
}

/** Escalations and their resolution by a person: the store's one write besides `KernelStore.append`. */
export interface EscalationStore extends EscalationReader {
  /** Marks an open escalation resolved; false when it was not open any more (resolved meanwhile by someone else). */
  resolveEscalation(escalation_id: string, resolution_json: string, by: string, ts: string, resolution_hash: string): Promise<boolean>;
}


/**
 * A ledger's decisions.jsonl mirror, when it writes one: files derived from the store, never the truth.
 * `verify` checks the files against `offroadRows` and repairs them through this.
 */
export interface DecisionsMirror {
  /** RUN_BASE: the folder holding `<run>/<flow>/routing/decisions.jsonl`. */
  readonly runBase: string;
  /** The file of a run's flow. */
  fileFor(run_id: string, flow: string): string;
  /** Waits until every line of an acknowledged decision queued so far has been written (or has failed and been noted for repair). */
  flush(): Promise<void>;
  /** Rebuilds missing lines (and cuts a torn last line) of a run's files, or of every run's, from the store. */
  repair(run_id?: string): Promise<JsonlRepair[]>;
}

/** A full ledger: every part (the kernel's store, the run reader, statistics, escalations), and optionally a decisions.jsonl mirror. */
export interface Ledger extends KernelStore, RunReader, StatsReader, EscalationStore, VersionStore {
  readonly mirror: DecisionsMirror | undefined;
  escalation(escalation_id: string): Promise<StoredEscalation | undefined>;
  saveFlowVersion(hash: string, definition: string): Promise<void>;
  flowVersion(hash: string): Promise<string | undefined>;
  lastUpgrade(run_id: string, seq: number): Promise<StoredUpgrade | undefined>;
}
