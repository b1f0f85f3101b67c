import type { CandidateMove, Decision, DecisionKind, RejectedMove, ReturnPoint, RouteRequest, RunState, SkippedTier, Tier } from '../contracts/index.js';
import type { CompiledFlow, CompiledStep, FlowSet } from './flows/compiled-flow.js';

export { SUCCESS_STATUSES } from './statuses.js';

/** The signature facts of one route, computed once (`signatureFacts`) and applied to the run state afterwards. */
export interface SignatureFacts {
  id: string;
  key: string;
  /** Times seen for this step, this one included. */
  seen: number;
  /** Detours already taken for it before this route. */
  detours: number;
}

/** A decision some tier reached, before it is committed to the run state. */
export interface TierResult {
  decision: Decision;
  /** Set when the decision detours because of `signature` (counts against its max_attempts). */
  detourForSignature?: boolean;
}

/**
 * Everything the tiers need for one route: the request, resolved flow and step, the run state before it, and
 * what earlier tiers found. Tiers read it and return a TierResult or nothing; only `rejected`/`skipped`
 * accumulate. Built fresh for every route.
 */
export interface RouteWork {
  request: RouteRequest;
  flows: FlowSet;
  flow: CompiledFlow;
  /** The step of the flow that completed; undefined when it is an injected ad-hoc node. */
  step: CompiledStep | undefined;
  /** When the completed step is an injected node: the return point that holds it, and its index. */
  node?: { point: ReturnPoint; index: number };
  /** `<flow>/<step>`: the key of the completed step's loop counter. */
  loopKey: string;
  /** `status`, trimmed and lower-cased. */
  status: string;
  seq: number;
  /** Which run of this step just finished: max(request's count, kernel's count). */
  iteration: number;
  /** The step's max iterations (flow first, then the request), or null when there is none. */
  max: number | null;
  state: RunState;
  ts: string;
  rejected: RejectedMove[];
  skipped: SkippedTier[];
  signature?: SignatureFacts | null;
  /** The legal moves from the completed step, built once (tiers 2, 3 and 4 all consult them). */
  candidates?: CandidateMove[];
  /** Warnings about the request itself (a repaired free-text field), added to whatever decision is made. */
  notes?: string[];
  /** Memo of each tier's answer, so a guard and its action compute it once. */
  memo: Partial<Record<Tier, TierResult | null>>;
}

export interface DecisionFields {
  next_step_id?: string | null;
  confidence: number;
  needs_human?: boolean;
  warnings?: string[];
  extra?: Partial<Decision>;
}

/** Builds a Decision carrying the rejected moves and skipped tiers gathered so far. */
export function decide(w: RouteWork, kind: DecisionKind, tier: Tier, rule: string, reason: string, f: DecisionFields): Decision {
  const d: Decision = {
    decision: kind,
    next_step_id: f.next_step_id ?? null,
    tier,
    rule,
    reason,
    confidence: f.confidence,
    needs_human: f.needs_human ?? false,
    warnings: w.notes ? [...w.notes, ...(f.warnings ?? [])] : (f.warnings ?? []),
    rejected: w.rejected.slice(),
    ...f.extra,
    iteration: w.iteration,
    seq: w.seq,
    ts: w.ts,
  };
  // Skipped tiers matter only to decisions made after them.
  if (w.skipped.length && tier >= 3) d.skipped = w.skipped.slice();
  if (kind === 'ESCALATE') {
    d.needs_human = true;
    d.escalation_id ??= `esc-${w.request.run_id}-${w.seq}`;
  }
  return d;
}
