import { goalMisalignment as misalignment, type StatedPurpose } from '../../contracts/charter-terms.js';
import type { Decision } from '../../contracts/index.js';
import type { RouteWork } from '../route-work.js';
import { signatureFacts } from '../signature-facts.js';

/** What an off-road decision goes to, for a rejected-move record. */
export function decisionTarget(d: Decision): string | null {
  return d.detour_target ?? d.inject_flow ?? d.inject_nodes?.map((n) => n.id).join(',') ?? d.next_step_id;
}

/** The failure signature this route's decision would be the flow's declared fix (`detours:`) for, if any. */
export function declaredFixFor(w: RouteWork, kind: Decision['decision'], target: string | null | undefined): string | undefined {
  const sig = signatureFacts(w);
  const fix = sig ? w.flow.detours.get(sig.id) : undefined;
  if (!fix || !target) return undefined;
  const hit = fix.kind === 'step' ? kind === 'DETOUR' && target === fix.step : kind === 'INJECT_FLOW' && target === fix.flow;
  return hit ? sig!.id : undefined;
}

/**
 * Goal alignment (seed 003) for a decision tier 3 or the envelope proposes: see `goalMisalignment` in
 * src/contracts/charter-terms.ts. Tier 2's signature detours are declared fixes and are not checked.
 */
export function goalMisalignment(w: RouteWork, d: Decision, purpose: StatedPurpose): string | undefined {
  const target = d.decision === 'DETOUR' ? d.detour_target : d.inject_flow;
  return misalignment(d.decision, declaredFixFor(w, d.decision, target) !== undefined, w.flow.charter, purpose);
}
