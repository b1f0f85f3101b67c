// The store ports by name (src/contracts/ports.ts), so the conformance kit can check at run time that a store
// implements every part it claims. Each list must name every method of its port: `exhaustive` fails the typecheck
// otherwise.
import type { EscalationReader, EscalationStore, KernelStore, RunReader, StatsReader } from '../contracts/ports.js';

type Methods<T> = { [K in keyof T]-?: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T] & string;

/** The method names of port T, all of them (a missing or unknown name is a type error). */
function exhaustive<T>() {
  return <const L extends readonly Methods<T>[]>(names: L & ([Exclude<Methods<T>, L[number]>] extends [never] ? unknown : { missing: Exclude<Methods<T>, L[number]> })): L => names;
}

/** Each part of a store, by who uses it, and the methods it holds. */
export const STORE_PORTS = {
  /** The kernel's store (createKernel({ store })). */
  KernelStore: exhaustive<KernelStore>()(['loadRun', 'findByRequestId', 'append', 'close']),
  /** The run reader (audit, replay, verify, export, migrate). */
  RunReader: exhaustive<RunReader>()([
    'run', 'runIds', 'routes', 'replayRows', 'replayChunks', 'llmCalls', 'offroadRows', 'runFlows', 'runFlowsHashes', 'arbiterFootprint',
    'tierRuleCounts', 'routeHash', 'runRegister',
  ]),
  /** Ledger-wide statistics (the run listing, /v1/stats, the UI). */
  StatsReader: exhaustive<StatsReader>()(['runs', 'runPage', 'ledgerTotals', 'ledgerTierRuleCounts', 'costBuckets']),
  /** Escalations, with their resolution (the one write besides append). */
  EscalationStore: exhaustive<EscalationStore>()(['openEscalationCount', 'escalation', 'runEscalations', 'resolveEscalation']),
} as const;

/** A part of the store port the kit checks on its own. */
export type StorePart = keyof typeof STORE_PORTS;

/** The escalation reader is the escalation store without its write. */
export const ESCALATION_READER: readonly Methods<EscalationReader>[] = ['openEscalationCount', 'escalation', 'runEscalations'];
