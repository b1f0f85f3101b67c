// Copying a ledger into another (`navkernel ledger migrate`): every route, LLM call and escalation as stored, hashes
// included, so the copy's chains verify. Either end may be SQLite or PostgreSQL.
import type { EscalationReader, Ledger, RunReader, StoredEscalation, StoredLlmCall, StoredRoute, StoredUpgrade, VersionStore } from '../contracts/ports.js';
import { isOffroad } from '../contracts/decision-kinds.js';
import { NavkernelError } from '../contracts/errors.js';
import { PostgresLedger } from './postgres/postgres-ledger.js';
import type { AppendWrite } from './sql.js';
import { SqliteLedger } from './sqlite-ledger.js';

const PAGE = 2000;

/** The destination of a copy already holds runs (LEDGER_NOT_EMPTY): a copy goes into an empty ledger only. */
function ledgerNotEmpty(location: string, runs: number): NavkernelError {
  return new NavkernelError('LEDGER_NOT_EMPTY', `${location} already holds ${runs} run(s); navkernel ledger migrate copies into an empty ledger only`);
}

/** What copyLedger copied: runs, routes, escalations and model calls. */
export interface CopyReport {
  runs: number;
  routes: number;
  llm_calls: number;
  escalations: number;
  resolutions: number;
}

/** A stored route, its calls and its escalation, as the rows to write again. */
export function storedToWrite(route: StoredRoute, calls: StoredLlmCall[], escalation: StoredEscalation | undefined): AppendWrite {
  const { request_hash: _unused, prev_hash, hash, field_sums, ...rest } = route;
  return {
    // field_sums copied as stored (NULL for routes written before fingerprints existed)
    route: { ...rest, prev_hash: Buffer.from(prev_hash, 'hex'), hash: Buffer.from(hash, 'hex'), field_sums: field_sums as string },
    llmCalls: calls,
    escalation: escalation
      ? { escalation_id: escalation.escalation_id, run_id: escalation.run_id, seq: escalation.seq, flow: escalation.flow, step: escalation.step, reason: escalation.reason, opened_ts: escalation.opened_ts }
      : null,
    offroad: isOffroad(route),
  };
}

/** Writes stored rows into a destination ledger, each run's routes in seq order (the run heads follow). */
async function writeRaw(to: Ledger, writes: AppendWrite[]): Promise<void> {
  if (to instanceof SqliteLedger || to instanceof PostgresLedger) return to.importWrites(writes);
  throw new TypeError('navkernel ledger migrate writes to a SQLite or a PostgreSQL ledger');
}

/** Writes a stored upgrade as it is. */
async function writeUpgrade(to: Ledger, u: StoredUpgrade): Promise<void> {
  if (to instanceof SqliteLedger) return to.versions.insert(u);
  if (to instanceof PostgresLedger) return to.importUpgrade(u);
  throw new TypeError('navkernel migrate writes to a SQLite or a PostgreSQL ledger');
}

/** Copies every run of `from` into the empty ledger `to`. */
export async function copyLedger(from: RunReader & EscalationReader, to: Ledger, onProgress?: (report: CopyReport) => void): Promise<CopyReport> {
  const existing = await to.runIds();
  if (existing.length > 0) throw ledgerNotEmpty(to.location, existing.length);
  const report: CopyReport = { runs: 0, routes: 0, llm_calls: 0, escalations: 0, resolutions: 0 };
  for (const run_id of await from.runIds()) {
    const escalations = await from.runEscalations(run_id);
    const bySeq = new Map(escalations.map((e) => [e.seq, e]));
    for (let after = 0; ; ) {
      const routes = await from.routes(run_id, after, PAGE);
      if (routes.length === 0) break;
      const last = routes[routes.length - 1]!.seq;
      const calls = await from.llmCalls(run_id, routes[0]!.seq, last);
      const callsBySeq = new Map<number, StoredLlmCall[]>();
      for (const c of calls) (callsBySeq.get(c.seq) ?? callsBySeq.set(c.seq, []).get(c.seq)!).push(c);
      await writeRaw(to, routes.map((r) => storedToWrite(r, callsBySeq.get(r.seq) ?? [], bySeq.get(r.seq))));
      report.routes += routes.length;
      report.llm_calls += calls.length;
      after = last;
    }
    for (const e of escalations) {
      report.escalations++;
      if (e.status === 'resolved' && e.resolution !== null && e.resolved_by !== null && e.resolved_ts !== null && e.resolution_hash !== null) {
        await to.resolveEscalation(e.escalation_id, e.resolution, e.resolved_by, e.resolved_ts, e.resolution_hash);
        report.resolutions++;
      }
    }
    // The run's upgrades, as stored (their hashes chain to the copied routes).
    const upgrades = (from as Partial<VersionStore>).runUpgrades;
    if (upgrades) for (const u of await upgrades.call(from, run_id)) await writeUpgrade(to, { ...u, seq: Number(u.seq), idx: Number(u.idx) });
    report.runs++;
    onProgress?.(report);
  }
  // Every kept flow version (content-addressed: the same rows on both ends).
  const versions = (from as Partial<VersionStore>).flowVersions;
  if (versions) for (const v of await versions.call(from)) await to.saveFlowVersion(v.hash, v.definition);
  return report;
}
