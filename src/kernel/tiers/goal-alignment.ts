import { sharedStems } from '../../contracts/charter-terms.js';
import type { Decision, ProposedNode } from '../../contracts/index.js';
import type { RouteWork } from '../route-work.js';
import { signatureFacts } from '../signature-facts.js';

/** The off-road moves whose purpose must serve the charter's goal when tier 3 or the envelope proposes them. */
const CHECKED = new Set<Decision['decision']>(['DETOUR', 'INJECT_FLOW', 'INJECT_NODES']);

function quote(s: string, max = 120): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return JSON.stringify(line.length <= max ? line : `${line.slice(0, max - 1)}…`);
}

/** What an off-road decision goes to, for a rejected-move record. */
export function decisionTarget(d: Decision): string | null {
  return d.detour_target ?? d.inject_flow ?? d.inject_nodes?.map((n) => n.id).join(',') ?? d.next_step_id;
}

/** Whether the decision is the flow's declared fix (its `detours:` table) for this route's failure signature. */
function isDeclaredFix(w: RouteWork, d: Decision): boolean {
  const sig = signatureFacts(w);
  const fix = sig ? w.flow.detours.get(sig.id) : undefined;
  if (!fix) return false;
  return fix.kind === 'step' ? d.decision === 'DETOUR' && d.detour_target === fix.step : d.decision === 'INJECT_FLOW' && d.inject_flow === fix.flow;
}

/**
 * The goal-alignment test of seed 003 ("does this decision serve the flow's objective?"), deterministic: a DETOUR,
 * INJECT_FLOW or INJECT_NODES proposed by tier 3 or the envelope passes when it is the flow's declared fix for this
 * route's failure signature, or when its stated purpose shares at least one significant word (stemmed, function
 * words and generic words like "step" ignored) with the charter's `goal` or `key_question`. The stated purpose is
 * tier 3's `reason` (for INJECT_NODES: each node's `purpose`, else its id: every node must pass) and the
 * envelope's `purpose` (none stated shares nothing). Returns why the move is refused, or undefined.
 */
export function goalMisalignment(w: RouteWork, d: Decision, purpose: { reason?: string | undefined; nodes?: readonly ProposedNode[] | undefined }): string | undefined {
  if (!CHECKED.has(d.decision)) return undefined;
  if (d.decision !== 'INJECT_NODES' && isDeclaredFix(w, d)) return undefined;
  const charter = w.flow.charter;
  const reference = `${charter.goal}\n${charter.key_question}`;
  const goal = `the charter's goal ${quote(charter.goal)} or key question ${quote(charter.key_question)}`;
  if (d.decision === 'INJECT_NODES') {
    for (const n of purpose.nodes ?? []) {
      const stated = n.purpose?.trim() ? n.purpose : n.id;
      if (sharedStems(stated, reference).length === 0) return `injected node ${n.id}'s purpose ${quote(stated)} shares nothing with ${goal}`;
    }
    return undefined;
  }
  const stated = purpose.reason?.trim() ?? '';
  if (stated === '') return `${d.decision} states no purpose, and it is not the flow's declared fix for this failure; nothing ties it to ${goal}`;
  if (sharedStems(stated, reference).length === 0) return `its stated purpose ${quote(stated)} shares nothing with ${goal}`;
  return undefined;
}
