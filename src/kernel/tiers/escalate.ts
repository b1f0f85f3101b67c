import type { RouteWork, TierResult } from '../route-work.js';
import { decide } from '../route-work.js';

/** Tier 5: nothing else could decide — ESCALATE to a person, with an escalation id. Always decides. */
export function escalate(w: RouteWork): TierResult {
  const why = w.rejected.length ? `; rejected: ${w.rejected.map((r) => `${r.decision}${r.target ? ` ${r.target}` : ''} (${r.why})`).join('; ')}` : '';
  return { decision: decide(w, 'ESCALATE', 5, 'no_rule_applies', `no tier could decide for ${w.request.step_completed} with status ${w.request.status}${why}`, { confidence: 0, needs_human: true }) };
}
