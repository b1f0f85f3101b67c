import type { Escalation, EscalationResolution } from '../contracts/ledger.js';
import type { LedgerReader, StoredEscalation, StoredRun } from '../contracts/ports.js';
import { UnknownRunError } from './errors.js';

/** A stored escalation row as the API shows it (the resolution parsed). */
export function toEscalation(row: StoredEscalation): Escalation {
  return {
    escalation_id: row.escalation_id,
    run_id: row.run_id,
    seq: row.seq,
    flow: row.flow,
    step: row.step,
    reason: row.reason,
    opened_ts: row.opened_ts,
    status: row.status,
    resolution: row.resolution === null ? null : (JSON.parse(row.resolution) as EscalationResolution),
  };
}

/** The run's summary row, or UnknownRunError naming the ledger. */
export async function requireRun(ledger: LedgerReader, run_id: string): Promise<StoredRun> {
  const run = await ledger.run(run_id);
  if (!run) throw new UnknownRunError(run_id, ledger.location);
  return run;
}
