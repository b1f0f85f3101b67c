import { ARBITER_ERROR, ARBITER_RULE } from '../../contracts/arbiter-rules.js';
import type { ArbiterAnswer, ProposedNode } from '../../contracts/index.js';
import type { RouteWork, TierResult } from '../route-work.js';
import { decisionForCandidate } from './candidates.js';
import { decisionTarget, goalMisalignment } from './goal-alignment.js';

/** Why a set of proposed nodes is not acceptable in this flow, or undefined when it is. */
export function checkProposedNodes(w: RouteWork, nodes: readonly ProposedNode[] | undefined): string | undefined {
  const rules = w.flow.def.inject_nodes;
  if (!rules.allowed) return `flow ${w.flow.id} does not allow INJECT_NODES`;
  if (!nodes?.length) return 'INJECT_NODES without nodes';
  if (nodes.length > rules.max_nodes) return `${nodes.length} nodes proposed, at most ${rules.max_nodes} allowed`;
  const ids = new Set<string>();
  for (const n of nodes) {
    if (ids.has(n.id)) return `node id ${n.id} is proposed twice`;
    if (w.flow.steps.has(n.id)) return `node id ${n.id} collides with a step of flow ${w.flow.id}`;
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(n.id)) return `node id ${JSON.stringify(n.id)} is not a valid step id`;
    if (!w.flow.roster.includes(n.agent)) return `agent ${n.agent} is not in the roster of flow ${w.flow.id}`;
    ids.add(n.id);
  }
  return undefined;
}

/**
 * Tier 3's answer, checked again by the kernel (defence in depth): the proposal must name a legal candidate,
 * and injected nodes must be valid. Whatever is refused lands in `rejected` and the next tiers decide.
 */
export function acceptArbiterAnswer(w: RouteWork, answer: ArbiterAnswer | undefined, failure?: string): TierResult | undefined {
  if (failure !== undefined) {
    w.skipped.push({ tier: 3, rule: ARBITER_ERROR, reason: failure });
    return undefined;
  }
  if (!answer) return undefined;
  for (const r of answer.rejected) w.rejected.push({ ...r, tier: 3 });
  if (answer.skipped) w.skipped.push({ tier: 3, ...answer.skipped });
  const p = answer.proposal;
  if (!p) return undefined;
  const confidence = Math.min(1, Math.max(0, p.confidence ?? 0.75));
  const decision = decisionForCandidate(w, p.candidate_id, 3, ARBITER_RULE, p.reason, confidence);
  if (!decision) {
    w.rejected.push({ tier: 3, rule: ARBITER_RULE, decision: p.candidate_id, target: null, why: `${p.candidate_id} is not a legal candidate move` });
    return undefined;
  }
  if (decision.decision === 'INJECT_NODES') {
    const bad = checkProposedNodes(w, p.inject_nodes);
    if (bad) {
      w.rejected.push({ tier: 3, rule: ARBITER_RULE, decision: 'INJECT_NODES', target: null, why: bad });
      return undefined;
    }
    decision.inject_nodes = p.inject_nodes!.map((n) => ({ ...n }));
    decision.next_step_id = p.inject_nodes![0]!.id;
  }
  const drift = goalMisalignment(w, decision, { reason: p.reason, nodes: p.inject_nodes });
  if (drift) {
    w.rejected.push({ tier: 3, rule: 'goal_alignment', decision: decision.decision, target: decisionTarget(decision), why: drift });
    return undefined;
  }
  return { decision };
}
