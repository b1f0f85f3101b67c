import type { Decision, ReturnPoint, RunState } from '../contracts/index.js';
import type { RouteWork, TierResult } from './route-work.js';
import { signatureFacts } from './signature-facts.js';

/** The state of a run never seen before. */
export function emptyRunState(run_id: string): RunState {
  return { v: 1, run_id, seq: 0, loops: {}, signatures: {}, returns: [], spent_usd: 0 };
}

/**
 * The run's state after a decision: a new object (the old one may be a persisted snapshot).
 * Loop counters reset when the step is left by CONTINUE, so a later pass through the same loop gets its full
 * budget; signature sightings are kept for the whole run.
 */
export function nextRunState(w: RouteWork, result: TierResult, cost_usd: number): RunState {
  const prev = w.state;
  const d: Decision = result.decision;
  const loopKey = w.loopKey;
  let loops = prev.loops;
  if (d.decision === 'LOOP') loops = { ...loops, [loopKey]: (loops[loopKey] ?? 0) + 1 };
  else if (d.decision === 'CONTINUE' && loops[loopKey] !== undefined) {
    loops = { ...loops };
    delete loops[loopKey];
  }
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

  return { v: 1, run_id: prev.run_id, seq: w.seq, loops, signatures, returns, spent_usd: prev.spent_usd + cost_usd };
}
