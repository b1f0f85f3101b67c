import type { RunReader } from '../contracts/ports.js';
import { requireRun } from './stored-rows.js';
import { expectedLines } from './jsonl-mirror.js';

/**
 * A run's seed-shaped decisions.jsonl lines (newline included), by flow, derived from the ledger: the same bytes the SQLite ledger's
 * mirror writes into `<run>/<flow>/routing/decisions.jsonl`, from either store. UnknownRunError for a run it lacks.
 */
export async function exportJsonl(reader: RunReader, run_id: string): Promise<Map<string, string[]>> {
  await requireRun(reader, run_id);
  return expectedLines(await reader.offroadRows(run_id));
}
