import type { Decision, ReturnPoint, RunPosition, RunState } from '../contracts/index.js';
import type { EscalationResolution } from '../contracts/ledger.js';
import type { RouteWork, TierResult } from './route-work.js';
import { signatureFacts } from './signature-facts.js';
import { destinationFacts, destinationOf, TRAIL_LENGTH, visitKey } from './bounds.js';

/** The state of a run never seen before: routing, and any step of its flow may report first. */
export function emptyRunState(run_id: string): RunState {
  return { v: 1, run_id, seq: 0, loops: {}, signatures: {}, returns: [], spent_usd: 0, lifecycle: 'routing', at: null };
}

/** `record` without `key`, as a new object (no `delete`: it would turn the copy into a slow dictionary object). */
function without(record: Record<string, number>, key: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k in record) if (k !== key && Object.hasOwn(record, k)) out[k] = record[k]!;
  return out;
}

/** `state` with the run sent to the step of key `key`: its visit counted and its trail extended. */
function sentTo(visits: Record<string, number> | undefined, trail: string[] | undefined, key: string): { visits: Record<string, number>; trail: string[] } {
  const t = trail ?? [];
  return {
    visits: { ...visits, [key]: (visits?.[key] ?? 0) + 1 },
    trail: t.length >= TRAIL_LENGTH ? [...t.slice(t.length - TRAIL_LENGTH + 1), key] : [...t, key],
  };
}

/**
 * The run's state after a decision: a new object (the old one may be a persisted snapshot).
 * Loop counters reset when the step is left by CONTINUE, so a later pass through the same loop gets its full
 * budget; signature sightings and step visits are kept for the whole run. Where the decision sends the run becomes
 * the step the next report must come from (`at`); ESCALATE leaves it to a person, TERMINATE ends it.
 */
export function nextRunState(w: RouteWork, result: TierResult, cost_usd: number): RunState {
  const prev = w.state;
  const d: Decision = result.decision;
  const loopKey = w.loopKey;
  let loops = prev.loops;
  if (d.decision === 'LOOP') loops = { ...loops, [loopKey]: (loops[loopKey] ?? 0) + 1 };
  else if (d.decision === 'CONTINUE' && loops[loopKey] !== undefined) loops = without(loops, loopKey);
  let signatures = prev.signatures;
  // Computed here too when tier 1 (or the iteration cap) decided before tier 2 looked: every sighting counts.
  const sig = signatureFacts(w);
  if (sig) signatures = { ...signatures, [sig.key]: { seen: sig.seen, detours: sig.detours + (result.detourForSignature ? 1 : 0) } };

  let returns = prev.returns;
  const rule = d.rule;
  if (rule === 'utility_return' || rule === 'injected_flow_done' || rule === 'injected_nodes_done') returns = returns.slice(0, -1);
  const here = { flow: w.flow.id, step: w.request.step_completed };
  let push: ReturnPoint | undefined;
  if (d.decision === 'DETOUR') push = { ...here, via: 'step', target: d.detour_target! };
  else if (d.decision === 'INJECT_FLOW') push = { ...here, via: 'flow', target: d.inject_flow! };
  else if (d.decision === 'INJECT_NODES') push = { ...here, via: 'nodes', target: d.inject_nodes![0]!.id, nodes: d.inject_nodes! };
  if (push) returns = [...returns, push];

  const next: RunState = { v: 1, run_id: prev.run_id, seq: w.seq, loops, signatures, returns, spent_usd: prev.spent_usd + cost_usd, lifecycle: 'routing', at: null };
  const to = destinationOf(d, w.flow.id);
  if (to) {
    // After a LOOP back to another step, the looping step may report too (its runner ran the loop's steps quietly).
    next.at = d.decision === 'LOOP' && to.step !== w.request.step_completed && to.flow === w.flow.id ? { ...to, loop: w.request.step_completed } : to;
    Object.assign(next, sentTo(prev.visits, prev.trail, destinationFacts(w, to).key));
  } else {
    if (prev.visits) next.visits = prev.visits;
    if (prev.trail) next.trail = prev.trail;
    if (d.decision === 'TERMINATE') next.lifecycle = 'ended';
    else {
      next.lifecycle = 'awaiting_person';
      next.escalation_id = d.escalation_id!;
    }
  }
  next.started_in = prev.started_in ?? w.flow.id;
  // The flow version the run routed with: pinned from its first route (a run recorded before versions, from its next).
  next.flows = w.flows.hash;
  return next;
}

/**
 * The run's state after a person resolved its open escalation (`navkernel runs resolve`, POST /v1/escalations/{id}/resolve):
 * where the resolution sends the run becomes the step the next report must come from; a DETOUR or INJECT_FLOW
 * pushes its return point (back to the escalated step), TERMINATE ends the run. The escalated step is `escalated`.
 */
export function resolvedRunState(prev: RunState, escalated: RunPosition, resolution: Pick<EscalationResolution, 'decision' | 'next_step_id' | 'inject_flow'>): RunState {
  const next: RunState = { ...prev, lifecycle: 'routing', at: null };
  delete next.escalation_id;
  if (resolution.decision === 'TERMINATE' || resolution.next_step_id === null) {
    next.lifecycle = 'ended';
    return next;
  }
  let to: RunPosition = { flow: escalated.flow, step: resolution.next_step_id };
  if (resolution.decision === 'DETOUR') next.returns = [...prev.returns, { ...escalated, via: 'step', target: resolution.next_step_id }];
  else if (resolution.decision === 'INJECT_FLOW' && resolution.inject_flow) {
    next.returns = [...prev.returns, { ...escalated, via: 'flow', target: resolution.inject_flow }];
    to = { flow: resolution.inject_flow, step: resolution.next_step_id };
  }
  next.at = to;
  Object.assign(next, sentTo(prev.visits, prev.trail, visitKey(to)));
  return next;
}
