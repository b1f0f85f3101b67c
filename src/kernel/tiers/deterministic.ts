import { signatureFacts } from '../signature-facts.js';
import type { RouteWork, TierResult } from '../route-work.js';
import { decide } from '../route-work.js';
import { decisionForCandidate } from './candidates.js';
import { candidateId } from '../../contracts/candidate-id.js';
import { iterationCap } from './iteration-cap.js';

/**
 * Tier 2: rules computed without judgment, in order: iteration cap, repeated failure signature, microloop.
 * A proposed move that breaks the graph is recorded in `rejected` and the next tiers decide.
 */
export function deterministic(w: RouteWork): TierResult | undefined {
  const step = w.step;
  if (!step) return undefined;
  const stepId = step.id;

  if (w.max !== null && w.iteration >= w.max && step.def.next) {
    const capped = iterationCap(w, stepId);
    if (capped) return capped;
    const warning = `${stepId} ran ${w.iteration} of at most ${w.max} iterations without meeting its exit condition; continuing to ${step.def.next} for a person to review`;
    return { decision: decide(w, 'CONTINUE', 2, 'max_iterations', warning, { next_step_id: step.def.next, confidence: 0.7, needs_human: true, warnings: [warning] }) };
  }

  const sig = signatureFacts(w);
  if (sig && sig.seen >= 2) {
    const fix = w.flow.detours.get(sig.id);
    if (fix) {
      if (sig.detours >= fix.max_attempts)
        return {
          decision: decide(w, 'ESCALATE', 2, 'signature_exhausted', `failure signature ${sig.id} seen ${sig.seen} times at ${stepId}; its ${fix.max_attempts} allowed detour(s) did not fix it`, {
            confidence: 0.9,
            extra: { signature: sig.id },
          }),
        };
      const target = fix.kind === 'step' ? candidateId('DETOUR', fix.step) : candidateId('INJECT_FLOW', fix.flow);
      const decision = decisionForCandidate(w, target, 2, 'signature_detour', `failure signature ${sig.id} seen ${sig.seen} times at ${stepId}; known fix is ${fix.kind === 'step' ? fix.step : `flow ${fix.flow}`} (attempt ${sig.detours + 1} of ${fix.max_attempts})`, 0.9);
      if (decision) {
        decision.signature = sig.id;
        return { decision, detourForSignature: true };
      }
    }
  }

  if (step.loopTo && futileVerdict(w)) {
    const said = `the critic says further iteration cannot help (can_further_iteration_help: no, in the ${futileVerdict(w)})`;
    if (step.def.loop?.exit_required)
      return { decision: decide(w, 'ESCALATE', 2, 'loop_futile', `${said}; ${stepId} has not met its exit condition (${[...step.exitWhen].join(', ').toUpperCase()}) and its flow requires it`, { confidence: 0.9 }) };
    const warning = `${stepId} left its microloop at iteration ${w.iteration} with status ${w.request.status}: ${said}`;
    if (step.def.next) return { decision: decide(w, 'CONTINUE', 2, 'loop_futile', `${said}; leaving the ${stepId} microloop for ${step.def.next}`, { next_step_id: step.def.next, confidence: 0.85, warnings: [warning] }) };
    return { decision: decide(w, 'TERMINATE', 2, 'loop_futile', `${said}; ${stepId} has no next step`, { confidence: 0.85, warnings: [warning] }) };
  }

  if (step.loopTo && w.max !== null && w.iteration < w.max)
    return { decision: decide(w, 'LOOP', 2, 'microloop', `${stepId} did not meet its exit condition (${[...step.exitWhen].join(', ').toUpperCase()}); iteration ${w.iteration} of ${w.max}`, { next_step_id: step.loopTo, confidence: 0.9 }) };

  const proposed = w.request.envelope?.next_step_id;
  // A proposal that is no edge at all was recorded when the work was built (buildRouteWork).
  if (proposed && step.edges.has(proposed) && proposed === step.loopTo) {
    w.rejected.push({ tier: 2, rule: 'graph_constraint', decision: 'LOOP', target: proposed, why: `loop of ${stepId} has used its ${w.max ?? '?'} iterations` });
  }
  return undefined;
}

/** Where the critic's "further iteration cannot help" verdict came from (forensics first), or undefined. */
function futileVerdict(w: RouteWork): 'forensics' | 'envelope' | undefined {
  const no = (v: unknown) => v === false || (typeof v === 'string' && v.trim().toLowerCase() === 'no');
  if (no(w.request.forensics?.can_further_iteration_help)) return 'forensics';
  if (no(w.request.envelope?.can_further_iteration_help)) return 'envelope';
  return undefined;
}
