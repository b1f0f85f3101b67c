import type { RouteWork, TierResult } from '../route-work.js';
import { decide } from '../route-work.js';

/**
 * Tier 1: obvious cases that need no judgment (seed 003). Returns nothing when none applies.
 * Order: injected node, terminal step, utility return, explicit legal next step, branch, loop exit, linear success.
 */
export function fastPath(w: RouteWork): TierResult | undefined {
  const top = w.state.returns[w.state.returns.length - 1];
  const stepId = w.request.step_completed;

  if (w.node) {
    const { point, index } = w.node;
    const following = point.nodes![index + 1];
    if (following) return { decision: decide(w, 'CONTINUE', 1, 'injected_node', `injected node ${stepId} done; next injected node ${following.id}`, { next_step_id: following.id, confidence: 1 }) };
    return { decision: decide(w, 'CONTINUE', 1, 'injected_nodes_done', `last injected node ${stepId} done; returning to ${point.step}`, { next_step_id: point.step, confidence: 1 }) };
  }
  const step = w.step!;

  if (step.def.terminal) {
    if (top?.via === 'flow' && top.target === w.flow.id)
      return { decision: decide(w, 'CONTINUE', 1, 'injected_flow_done', `injected flow ${w.flow.id} finished; returning to ${top.flow}/${top.step}`, { next_step_id: top.step, confidence: 1, extra: { next_flow: top.flow } }) };
    return { decision: decide(w, 'TERMINATE', 1, 'terminal_step', `${stepId} is a terminal step of flow ${w.flow.id}`, { confidence: 1 }) };
  }

  // The step a DETOUR sent the run to returns to where the detour said (its return_to), `returns: true` or not (a
  // person's DETOUR may name any step): a decision never says one thing and does another.
  if (top?.via === 'step' && top.target === stepId && top.flow === w.flow.id)
    return { decision: decide(w, 'CONTINUE', 1, 'utility_return', `utility step ${stepId} done; returning to ${top.step}, which detoured here`, { next_step_id: top.step, confidence: 1 }) };

  const explicit = w.request.envelope?.next_step_id;
  // A loop target is not fast-path: whether looping is still allowed is tier 2's question.
  if (explicit && step.edges.has(explicit) && (explicit !== step.loopTo || explicit === step.def.next || [...step.branches.values()].includes(explicit)))
    return { decision: decide(w, 'CONTINUE', 1, 'explicit_next', `envelope names ${explicit}, a legal edge from ${stepId}`, { next_step_id: explicit, confidence: 0.95 }) };

  if (step.branched) {
    const target = step.branches.get(w.status);
    if (target) return { decision: decide(w, 'CONTINUE', 1, 'branch', `status ${w.request.status} selects branch ${target}`, { next_step_id: target, confidence: 1 }) };
    if (step.def.next) {
      if (!step.failure.has(w.status))
        return { decision: decide(w, 'CONTINUE', 1, 'branch_default', `status ${w.request.status} matches no branch of ${stepId}; taking its default ${step.def.next}`, { next_step_id: step.def.next, confidence: 0.8 }) };
      // A failure falling to the default: flagged for a person, or (on_failure_default: off) left to the later tiers.
      if (step.failureDefault === 'warn') {
        const warning = `${stepId} reported ${w.request.status}, a failure, which matches no branch; taking its default ${step.def.next} (add a branch for ${w.request.status}, or on_failure_default: off to let the later tiers decide)`;
        return { decision: decide(w, 'CONTINUE', 1, 'branch_default', `status ${w.request.status} matches no branch of ${stepId}; taking its default ${step.def.next}`, { next_step_id: step.def.next, confidence: 0.5, needs_human: true, warnings: [warning] }) };
      }
    }
  }

  if (step.loopTo) {
    if (step.exitWhen.has(w.status)) {
      if (step.def.next)
        return { decision: decide(w, 'CONTINUE', 1, 'loop_exit', `status ${w.request.status} meets the exit condition of the ${stepId} microloop`, { next_step_id: step.def.next, confidence: 1 }) };
      return { decision: decide(w, 'TERMINATE', 1, 'loop_exit_end', `status ${w.request.status} meets the exit condition of ${stepId}, which has no next step`, { confidence: 1 }) };
    }
    return undefined;
  }

  if (!step.branched && step.success.has(w.status)) {
    if (step.def.next) return { decision: decide(w, 'CONTINUE', 1, 'success', `${stepId} reported ${w.request.status}`, { next_step_id: step.def.next, confidence: 1 }) };
    return { decision: decide(w, 'TERMINATE', 1, 'success_end', `${stepId} reported ${w.request.status} and has no next step`, { confidence: 1 }) };
  }
  return undefined;
}
