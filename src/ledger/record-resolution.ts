import { canonicalJson } from '../contracts/canonical-json.js';
import type { Escalation, EscalationResolution } from '../contracts/ledger.js';
import type { EscalationStore, RunReader, StoredEscalation } from '../contracts/ports.js';
import { resolutionHash } from './chain.js';
import { escalationAlreadyResolved } from './errors.js';
import { toEscalation } from './stored-rows.js';

/**
 * Stores a person's resolution of an open escalation, bound to the ESCALATE row's hash so that `verify` notices if
 * it is edited. The move is checked against the flow by the caller (`resolveEscalation`); this only records it.
 * Two resolvers racing: the second gets escalationAlreadyResolved naming the first.
 */
export async function recordResolution(ledger: Pick<EscalationStore, 'escalation' | 'resolveEscalation'> & Pick<RunReader, 'routeHash'>, row: StoredEscalation, resolution: EscalationResolution): Promise<Escalation> {
  const json = canonicalJson(resolution);
  const routeHash = await ledger.routeHash(row.run_id, row.seq);
  const hash = resolutionHash(routeHash ?? '', row.escalation_id, json);
  if (!(await ledger.resolveEscalation(row.escalation_id, json, resolution.by, resolution.ts, hash))) {
    const again = (await ledger.escalation(row.escalation_id))!;
    throw escalationAlreadyResolved(row.escalation_id, again.resolved_by ?? '?', again.resolved_ts ?? '?');
  }
  return toEscalation((await ledger.escalation(row.escalation_id))!);
}
