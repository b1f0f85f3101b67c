import { sha256 } from '../../contracts/canonical-json.js';
import type { Flow } from '../../contracts/flow.js';
import { DEFAULT_BOUNDS } from '../../contracts/flow-bounds.js';
import { buildSignatureTable, canonicalSignature } from '../signatures.js';
import { FAILURE_STATUSES, SUCCESS_STATUSES } from '../statuses.js';
import { DEFAULT_MAX_ATTEMPTS, type CompiledFlow, type CompiledStep, type FlowSet, type ResolvedDetour } from './compiled-flow.js';

const lower = (s: string) => s.trim().toLowerCase();

/** Precomputes the lookups routing needs. Assumes the flow passed the graph check. */
export function compileFlow(def: Flow): CompiledFlow {
  const statedBounds = def.bounds ?? {};
  const bounds = { ...DEFAULT_BOUNDS, ...statedBounds };
  const steps = new Map<string, CompiledStep>();
  for (const s of def.steps) {
    const branches = new Map(Object.entries(s.branches ?? {}).map(([k, v]) => [lower(k), v] as const));
    const loopTo = s.loop ? (s.loop.to ?? s.id) : undefined;
    const edges = new Set<string>();
    if (s.next) edges.add(s.next);
    for (const t of branches.values()) edges.add(t);
    if (loopTo) edges.add(loopTo);
    steps.set(s.id, {
      def: s,
      id: s.id,
      key: `${def.flow}/${s.id}`,
      branches,
      // An empty table is no table, but next stays its default: `branches: {}` with a next routes like any branch table.
      branched: branches.size > 0 || (s.branches !== undefined && s.next !== undefined),
      exitWhen: new Set((s.loop?.exit_when ?? []).map(lower)),
      loopTo,
      edges,
      success: s.success?.length ? new Set([...SUCCESS_STATUSES, ...s.success.map(lower)]) : SUCCESS_STATUSES,
      failure: s.failure?.length ? new Set([...FAILURE_STATUSES, ...s.failure.map(lower)]) : FAILURE_STATUSES,
      failureDefault: s.on_failure_default ?? def.on_failure_default ?? 'warn',
      onExhausted: s.loop?.on_exhausted ?? def.on_exhausted ?? 'advance',
      onOpenConcern: s.loop?.on_open_concern ?? def.on_open_concern ?? 'escalate',
      maxVisits: s.max_visits ?? bounds.max_visits,
    });
  }
  const detours = new Map<string, ResolvedDetour>();
  for (const [name, target] of Object.entries(def.detours)) {
    const sig = canonicalSignature(name);
    if (typeof target === 'string') detours.set(sig, { kind: 'step', step: target, max_attempts: DEFAULT_MAX_ATTEMPTS });
    else if (target.flow) detours.set(sig, { kind: 'flow', flow: target.flow, max_attempts: target.max_attempts ?? DEFAULT_MAX_ATTEMPTS });
    else if (target.step) detours.set(sig, { kind: 'step', step: target.step, max_attempts: target.max_attempts ?? DEFAULT_MAX_ATTEMPTS });
  }
  const firstStep = def.steps[0]!.id;
  const roster = [...new Set(def.steps.map((s) => s.agent))].sort();
  return { id: def.flow, def, charter: def.charter, firstStep, steps, detours, injectFlows: def.inject_flows, signatures: buildSignatureTable(def.signatures), roster, bounds, statedBounds };
}

/** A FlowSet from validated flow definitions. */
export function makeFlowSet(defs: readonly Flow[]): FlowSet {
  const sorted = [...defs].sort((a, b) => (a.flow < b.flow ? -1 : a.flow > b.flow ? 1 : 0));
  const flows = new Map(sorted.map((d) => [d.flow, compileFlow(d)] as const));
  return { flows, hash: sha256(sorted), get: (id) => flows.get(id) };
}
