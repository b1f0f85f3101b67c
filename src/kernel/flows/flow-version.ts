// A flow version (docs/changing-flows.md): a flow set's definitions as canonical JSON, addressed by their sha256 (the
// `flows_hash` every route records). The ledger keeps each version once; a run is pinned to the version it started with.
import { canonicalJson, sha256 } from '../../contracts/canonical-json.js';
import { NavkernelError } from '../../contracts/errors.js';
import type { Flow } from '../../contracts/flow.js';
import { makeFlowSet } from './compile-flow.js';
import type { FlowSet } from './compiled-flow.js';

/** The canonical JSON of a flow set's definitions, sorted by flow id: its sha256 is the set's hash. */
export function flowsDefinition(set: FlowSet): string {
  return canonicalJson([...set.flows.values()].map((f) => f.def));
}

/** A run pinned to a flow version this kernel never loaded and its store does not keep (code FLOW_VERSION_UNKNOWN). */
export class FlowVersionUnknownError extends NavkernelError {
  constructor(
    readonly hash: string,
    where: string,
  ) {
    super('FLOW_VERSION_UNKNOWN', `flow version ${hash.slice(0, 12)} is not kept ${where}: it was recorded before navkernel kept flow versions, or its row was removed; pass --flows DIR with the flows it was routed with`);
    this.name = 'FlowVersionUnknownError';
  }
}

/**
 * The flow set of a kept definition, checked against its hash (a definition whose sha256 is not `hash` was edited:
 * FLOW_VERSION_UNKNOWN rather than routing with flows the run never had). The definitions were validated when they
 * were first loaded; they are compiled again, not re-validated.
 */
export function flowSetFromDefinition(hash: string, definition: string, where = 'in the ledger'): FlowSet {
  if (sha256(definition) !== hash) throw new FlowVersionUnknownError(hash, `${where} (its kept definition does not hash to it)`);
  const set = makeFlowSet(JSON.parse(definition) as Flow[]);
  if (set.hash !== hash) throw new FlowVersionUnknownError(hash, `${where} (its kept definition does not compile to it)`);
  return set;
}

/** Where a flow version comes from, for messages: the first 12 hex digits. */
export const shortHash = (hash: string): string => hash.slice(0, 12);
