import type { Escalation, EscalationResolution } from '../contracts/ledger.js';
import type { RunReader, StoredEscalation, StoredRoute, StoredRun } from '../contracts/ports.js';
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
export async function requireRun(ledger: Pick<RunReader, 'run' | 'location'>, run_id: string): Promise<StoredRun> {
  const run = await ledger.run(run_id);
  if (!run) throw new UnknownRunError(run_id, ledger.location);
  return run;
}

/**
 * A stored route's kernel time in microseconds, whatever unit it was stored in: routes written before schema
 * version 5 hold milliseconds (`latency_unit` 'ms'; kept as written because the hash chain covers them).
 */
export function routeLatencyUs(row: Pick<StoredRoute, 'latency_us' | 'latency_unit'>): number {
  return row.latency_unit === 'ms' ? Math.round(row.latency_us * 1000) : row.latency_us;
}
