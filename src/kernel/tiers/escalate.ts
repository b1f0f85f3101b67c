import type { RouteWork, TierResult } from '../route-work.js';
import { decide } from '../route-work.js';

/** Tier 5: nothing else could decide — ESCALATE to a person, with an escalation id. Always decides. */
export function escalate(w: RouteWork): TierResult {
  const why = w.rejected.length ? `; rejected: ${w.rejected.map((r) => `${r.decision}${r.target ? ` ${r.target}` : ''} (${r.why})`).join('; ')}` : '';
  return { decision: decide(w, 'ESCALATE', 5, 'no_rule_applies', `no tier could decide for ${w.request.step_completed} with status ${w.request.status}${why}${howToRoute(w)}`, { confidence: 0, needs_human: true }) };
}

/** For a status no rule of the step knows (and that is no failure): how the flow could make it route. */
function howToRoute(w: RouteWork): string {
  const step = w.step;
  if (!step || step.failure.has(w.status) || step.def.terminal) return '';
  // A blank status matches nothing a flow can declare (validate refuses blank statuses): the runner must send a word.
  if (w.status === '') return `; the status is empty: the runner must report a status word (VERIFIED, FAILED, or one the step declares)`;
  const s = JSON.stringify(w.request.status);
  if (step.loopTo) return `; to leave the ${step.id} microloop on ${s}, add it to the loop's exit_when`;
  if (step.branched) return `; to route ${s} from ${step.id}, add a branch for it (branches: {${s}: <step>}) or a next step as the default`;
  if (!step.def.next) return `; to end the flow on ${s}, declare it a success of ${step.id} (success: [${s}])`;
  return `; to route ${s} from ${step.id}, declare it a success of the step (success: [${s}]) or add a branch for it (branches: {${s}: <step>})`;
}
