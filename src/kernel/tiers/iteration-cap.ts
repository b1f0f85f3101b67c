import type { Concern } from '../../contracts/route-request.js';
import type { RouteWork, TierResult } from '../route-work.js';
import { decide } from '../route-work.js';

/** The first HIGH or CRITICAL concern of the route not marked `addressed: true`, if any. */
export function openSevereConcern(w: RouteWork): Concern | undefined {
  const concerns = w.request.forensics?.concerns;
  if (!concerns) return undefined;
  for (const c of concerns) if ((c.severity === 'HIGH' || c.severity === 'CRITICAL') && c.addressed !== true) return c;
  return undefined;
}

/**
 * Tier 2 at the iteration cap, before the default "advance with a warning" (seed 003): an unaddressed HIGH or
 * CRITICAL concern escalates (rule `iteration_cap_open_concern`, unless the loop or flow says
 * `on_open_concern: advance`), and a loop or flow with `on_exhausted: escalate` escalates (rule
 * `iteration_cap_escalate`). Undefined when the default applies.
 */
export function iterationCap(w: RouteWork, stepId: string): TierResult | undefined {
  const step = w.step!;
  const ran = `${stepId} ran ${w.iteration} of at most ${w.max} iterations without meeting its exit condition`;
  if (step.onOpenConcern === 'escalate') {
    const c = openSevereConcern(w);
    if (c)
      return {
        decision: decide(w, 'ESCALATE', 2, 'iteration_cap_open_concern', `${ran}, and a ${c.severity} concern is not addressed (${JSON.stringify(c.description)}); a person decides (resolve the escalation; on_open_concern: advance in the flow turns this off)`, {
          confidence: 0.9,
        }),
      };
  }
  if (step.onExhausted === 'escalate')
    return { decision: decide(w, 'ESCALATE', 2, 'iteration_cap_escalate', `${ran}; the flow says on_exhausted: escalate, so a person decides whether to go on to ${step.def.next}`, { confidence: 0.9 }) };
  return undefined;
}
