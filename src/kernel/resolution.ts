import type { EscalationResolution } from '../contracts/ledger.js';
import type { RunPosition, StoredEscalation } from '../contracts/ports.js';

/** A person's resolution of an escalation, and the step that escalated. */
export interface ResolvedEscalation {
  escalated: RunPosition;
  resolution: Pick<EscalationResolution, 'decision' | 'next_step_id' | 'inject_flow'>;
}

/** The resolution of a stored escalation, or undefined while it is open (or unknown). */
export function resolutionOf(row: StoredEscalation | undefined): ResolvedEscalation | undefined {
  if (!row || row.status !== 'resolved' || row.resolution === null) return undefined;
  const r = JSON.parse(row.resolution) as EscalationResolution;
  return { escalated: { flow: row.flow, step: row.step }, resolution: r };
}
