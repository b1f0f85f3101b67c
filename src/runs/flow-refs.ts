// Naming a flow version on the command line (docs/changing-flows.md): a folder or file of flows, or `ledger:HASH`, a
// version the ledger keeps, by its hash or a unique prefix of at least 6 hex digits.
import { NavkernelError } from '../contracts/errors.js';
import type { VersionStore } from '../contracts/ports.js';
import { loadFlows, type FlowSet } from '../kernel/index.js';
import { flowSetFromDefinition } from '../kernel/flows/flow-version.js';

/** The prefix of a reference to a kept version. */
export const LEDGER_REF = 'ledger:';

/** The kept version `hashPrefix` names (unique prefix, 6 to 64 lowercase hex digits), compiled. */
export async function keptVersion(ledger: Pick<VersionStore, 'flowVersions'>, hashPrefix: string): Promise<FlowSet> {
  const p = hashPrefix.trim().toLowerCase();
  if (!/^[0-9a-f]{6,64}$/.test(p)) throw new NavkernelError('INVALID_OPTION', `a flow version is named by 6 to 64 hex digits of its hash, got ${JSON.stringify(hashPrefix.slice(0, 80))}`);
  const all = await ledger.flowVersions();
  const hits = all.filter((v) => v.hash.startsWith(p));
  if (hits.length === 0) throw new NavkernelError('FLOW_VERSION_UNKNOWN', `no flow version ${p} is kept in the ledger (kept: ${all.map((v) => v.hash.slice(0, 12)).join(', ') || 'none'})`);
  if (hits.length > 1) throw new NavkernelError('INVALID_OPTION', `flow version ${p} is ambiguous: ${hits.map((v) => v.hash.slice(0, 12)).join(', ')}; give more digits`);
  return flowSetFromDefinition(hits[0]!.hash, hits[0]!.definition);
}

/** A flow set named by a folder or file of flows, or by `ledger:HASH` (which needs `ledger`). */
export async function flowsByRef(ref: string, ledger?: Pick<VersionStore, 'flowVersions'>): Promise<FlowSet> {
  if (!ref.startsWith(LEDGER_REF)) return loadFlows(ref);
  if (!ledger) throw new NavkernelError('INVALID_OPTION', `${ref} names a version kept in a ledger: pass --ledger PATH`);
  return keptVersion(ledger, ref.slice(LEDGER_REF.length));
}
