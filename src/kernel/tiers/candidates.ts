import type { CandidateMove, Decision, Tier } from '../../contracts/index.js';
import type { RouteWork } from '../route-work.js';
import { decide } from '../route-work.js';
import { declaredFixFor } from './goal-alignment.js';
import { candidateId } from '../../contracts/candidate-id.js';

/** The step a LOOP from the completed step would go back to, if looping is legal now. */
function loopTarget(w: RouteWork): string | undefined {
  const step = w.step;
  if (!step) return undefined;
  const target = step.loopTo ?? (w.max !== null ? step.id : undefined);
  if (!target) return undefined;
  return w.max === null || w.iteration < w.max ? target : undefined;
}

/**
 * The closed list of legal moves from the completed step, with stable ids. Tier 3 must pick one of these;
 * tier 4 maps the envelope onto one of these. Order is stable (graph order, then detours, flows, fallbacks).
 */
export function buildCandidates(w: RouteWork): CandidateMove[] {
  return (w.candidates ??= legalMoves(w));
}

function legalMoves(w: RouteWork): CandidateMove[] {
  const step = w.step;
  const out: CandidateMove[] = [];
  const ids = new Set<string>();
  const add = (c: CandidateMove) => {
    if (!ids.has(c.id)) (ids.add(c.id), out.push(c));
  };
  if (step) {
    if (step.def.next) add({ id: candidateId('CONTINUE', step.def.next), decision: 'CONTINUE', target: step.def.next, description: `advance to the next step ${step.def.next}` });
    for (const [status, t] of step.branches) add({ id: candidateId('CONTINUE', t), decision: 'CONTINUE', target: t, description: `take the ${status.toUpperCase()} branch to ${t}` });
    const loop = loopTarget(w);
    if (loop) add({ id: candidateId('LOOP', loop), decision: 'LOOP', target: loop, description: `iterate again from ${loop} (iteration ${w.iteration} of ${w.max ?? 'unbounded'})` });
    if (!step.def.returns) {
      // The flow's declared fix for this route's failure signature is marked: it needs no other purpose (goal alignment).
      const fixing = (kind: CandidateMove['decision'], target: string) => {
        const sig = declaredFixFor(w, kind, target);
        return sig ? { fixes: sig } : {};
      };
      for (const [sig, fix] of w.flow.detours)
        if (fix.kind === 'step')
          add({ id: candidateId('DETOUR', fix.step), decision: 'DETOUR', target: fix.step, description: `detour to ${fix.step} (known fix for ${sig}), then return to ${step.id}`, ...fixing('DETOUR', fix.step) });
      for (const f of w.flow.injectFlows) add({ id: candidateId('INJECT_FLOW', f), decision: 'INJECT_FLOW', target: f, description: `run flow ${f}, then return to ${step.id}`, ...fixing('INJECT_FLOW', f) });
      if (w.flow.def.inject_nodes.allowed)
        add({ id: 'inject_nodes', decision: 'INJECT_NODES', target: null, description: `insert up to ${w.flow.def.inject_nodes.max_nodes} ad-hoc steps run by agents of this flow, then return to ${step.id}` });
    }
  }
  add({ id: 'escalate', decision: 'ESCALATE', target: null, description: 'stop and ask a person to decide' });
  // Ending the flow is a legal move only where the graph lets it end: a step with nowhere else to go.
  if (!step || (!step.def.next && step.branches.size === 0)) add({ id: 'terminate', decision: 'TERMINATE', target: null, description: 'end the flow now' });
  return out;
}

/**
 * The Decision a legal candidate id leads to, or undefined when the id is not a legal move here.
 * Injected nodes are added by the caller (tier 3) after validating them.
 */
export function decisionForCandidate(w: RouteWork, id: string, tier: Tier, rule: string, reason: string, confidence: number): Decision | undefined {
  const cand = buildCandidates(w).find((c) => c.id === id);
  if (!cand) return undefined;
  const here = w.request.step_completed;
  switch (cand.decision) {
    case 'CONTINUE':
    case 'LOOP':
      return decide(w, cand.decision, tier, rule, reason, { next_step_id: cand.target, confidence });
    case 'DETOUR':
      return decide(w, 'DETOUR', tier, rule, reason, { next_step_id: cand.target, confidence, extra: { detour_target: cand.target!, return_to: here } });
    case 'INJECT_FLOW': {
      const flow = w.flows.get(cand.target!)!;
      return decide(w, 'INJECT_FLOW', tier, rule, reason, { next_step_id: flow.firstStep, confidence, extra: { inject_flow: flow.id, next_flow: flow.id, return_to: here } });
    }
    case 'INJECT_NODES':
      return decide(w, 'INJECT_NODES', tier, rule, reason, { next_step_id: null, confidence, extra: { return_to: here } });
    case 'ESCALATE':
    case 'TERMINATE':
      return decide(w, cand.decision, tier, rule, reason, { confidence });
  }
}
