import type { DecisionKind } from '../../contracts/decision.js';
import { DECISION_KINDS } from '../../contracts/decision-kinds.js';
import type { RouteWork, TierResult } from '../route-work.js';
import { buildCandidates, decisionForCandidate } from './candidates.js';
import { decisionTarget, goalMisalignment } from './goal-alignment.js';
import { candidateId } from '../../contracts/candidate-id.js';

/** The candidate id the agent's envelope asks for, or why it cannot name one. */
function envelopeCandidate(w: RouteWork, kind: DecisionKind, next: string | undefined): { id: string } | { why: string } {
  const step = w.step;
  switch (kind) {
    case 'CONTINUE': {
      const t = next ?? step?.def.next;
      return t ? { id: candidateId('CONTINUE', t) } : { why: `${w.request.step_completed} has no next step to continue to` };
    }
    case 'LOOP':
      return { id: candidateId('LOOP', next ?? step?.loopTo ?? w.request.step_completed) };
    case 'DETOUR': {
      if (next) return { id: candidateId('DETOUR', next) };
      const sig = w.signature ? w.flow.detours.get(w.signature.id) : undefined;
      return sig?.kind === 'step' ? { id: candidateId('DETOUR', sig.step) } : { why: 'DETOUR without a target, and no known fix for this failure' };
    }
    case 'INJECT_FLOW': {
      if (next) return { id: candidateId('INJECT_FLOW', next) };
      return w.flow.injectFlows.length === 1 ? { id: candidateId('INJECT_FLOW', w.flow.injectFlows[0]) } : { why: 'INJECT_FLOW without naming the flow' };
    }
    case 'INJECT_NODES':
      return { why: 'an envelope cannot propose nodes; only tier 3 can, validated' };
    case 'ESCALATE':
      return { id: 'escalate' };
    case 'TERMINATE':
      return { id: 'terminate' };
  }
}

/** Tier 4: the agent's own envelope (`recommendation` / `next_step_id`), when it names a legal move. */
export function envelopeFallback(w: RouteWork): TierResult | undefined {
  const env = w.request.envelope;
  if (!env) return undefined;
  const rec = env.recommendation?.trim().toUpperCase();
  const next = env.next_step_id ?? undefined;
  if (!rec && !next) return undefined;
  let kind: DecisionKind;
  if (rec) {
    if (!(DECISION_KINDS as readonly string[]).includes(rec)) {
      w.rejected.push({ tier: 4, rule: 'envelope', decision: env.recommendation!, target: next ?? null, why: `"${env.recommendation}" is not in the decision vocabulary` });
      return undefined;
    }
    kind = rec as DecisionKind;
  } else {
    kind = next === w.step?.loopTo ? 'LOOP' : 'CONTINUE';
  }
  const pick = envelopeCandidate(w, kind, next);
  if ('why' in pick) {
    w.rejected.push({ tier: 4, rule: 'envelope', decision: kind, target: next ?? null, why: pick.why });
    return undefined;
  }
  const decision = decisionForCandidate(w, pick.id, 4, 'envelope', `the agent's envelope recommends ${kind}${next ? ` to ${next}` : ''}, a legal move`, 0.6);
  if (!decision) {
    const legal = buildCandidates(w).map((c) => c.id).join(', ');
    w.rejected.push({ tier: 4, rule: 'envelope', decision: kind, target: next ?? null, why: `${pick.id} is not a legal move here (legal: ${legal})` });
    return undefined;
  }
  const drift = goalMisalignment(w, decision, { reason: env.purpose });
  if (drift) {
    w.rejected.push({ tier: 4, rule: 'goal_alignment', decision: kind, target: decisionTarget(decision), why: drift });
    return undefined;
  }
  return { decision };
}
