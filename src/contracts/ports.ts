import type { CandidateMove } from './candidate.js';
import type { Charter } from './flow.js';
import type { Decision, ProposedNode, RejectedMove } from './decision.js';
import type { LlmCallRecord } from './llm-call.js';
import type { RouteRequest } from './route-request.js';

/** What tier 3 is given: measurements, the charter and the closed list of legal moves. Nothing else. */
export interface NavigatorInput {
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
export interface NavigatorAnswer {
  proposal?: { candidate_id: string; reason: string; confidence?: number; inject_nodes?: ProposedNode[] };
  /** Answers refused along the way (out-of-vocabulary, unknown candidate, charter violation, …). */
  rejected: Omit<RejectedMove, 'tier'>[];
  /** Set when tier 3 did not call a model at all (e.g. rule `budget_exceeded`). */
  skipped?: { rule: string; reason: string };
  /** Every model call made, for the ledger. */
  calls: LlmCallRecord[];
  cost_usd: number;
}

/** Tier 3 as a port: `createKernel({ navigator })`. */
export type NavigatorPort = (input: NavigatorInput) => Promise<NavigatorAnswer>;

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
  request: RouteRequest;
  decision: Decision;
  latency_us: number;
  cost_usd: number;
  kernel_version: string;
  /** sha256 of the canonical JSON of every flow definition the kernel had loaded. */
  flows_hash: string;
  /** ISO time from the kernel's clock. */
  ts: string;
  llm_calls: LlmCallRecord[];
}

/**
 * Where a kernel keeps its runs. The SQLite ledger implements it; a server database could too.
 * Methods are synchronous on purpose: route() stays on one tick, and better-sqlite3 is synchronous.
 */
export interface KernelStore {
  /** The persisted state of a run, or undefined for a run never seen. */
  loadRun(run_id: string): RunState | undefined;
  /** The decision already recorded for this idempotency key, if any. */
  findByRequestId(run_id: string, request_id: string): Decision | undefined;
  /** Records the route and the run's new state atomically (one transaction). */
  append(record: RouteRecord, state: RunState): void;
  close(): void;
}
