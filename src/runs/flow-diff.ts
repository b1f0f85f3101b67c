// What changed between two flow versions (`navkernel flows diff`, docs/changing-flows.md): flows and steps added,
// removed or renamed, edges and bounds changed. Pure: two flow sets in, a report out.
import { canonicalJson } from '../contracts/canonical-json.js';
import type { CompiledFlow, CompiledStep, FlowSet } from '../kernel/index.js';

export interface StepChange {
  flow: string;
  step: string;
  change: 'added' | 'removed' | 'renamed';
  /** For a rename: the new name. */
  to?: string;
}

export interface EdgeChange {
  flow: string;
  /** The step in the new version (the old name when it was removed). */
  step: string;
  added: string[];
  removed: string[];
}

export interface BoundChange {
  flow: string;
  /** null for a flow-wide bound. */
  step: string | null;
  bound: 'max_iterations' | 'max_visits' | 'max_routes' | 'max_depth';
  from: number | null;
  to: number | null;
}

export interface FlowDiff {
  from: string;
  to: string;
  flows_added: string[];
  flows_removed: string[];
  steps: StepChange[];
  edges: EdgeChange[];
  bounds: BoundChange[];
  /** Flows whose definition changed at all (charter, agents, statuses, … included), sorted. */
  flows_changed: string[];
}

const sorted = (xs: Iterable<string>) => [...xs].sort();

/** Steps pointing at `id` in `flow` (next, branches, loop target), as a sorted key. */
function predecessors(flow: CompiledFlow, id: string): string {
  return sorted([...flow.steps.values()].filter((s) => s.id !== id && s.edges.has(id)).map((s) => s.id)).join(',');
}

/**
 * Renames: a removed step and an added step of the same flow are one step renamed when they have the same agent and
 * either the same predecessors (the steps that lead to them) or the same edges (where they lead), after the other
 * renames are applied. Each step pairs at most once, in step order.
 */
function findRenames(a: CompiledFlow, b: CompiledFlow, removed: string[], added: string[]): Map<string, string> {
  const renames = new Map<string, string>();
  const free = new Set(added);
  for (const r of removed) {
    const old = a.steps.get(r)!;
    for (const n of added) {
      if (!free.has(n)) continue;
      const now = b.steps.get(n)!;
      if (old.def.agent !== now.def.agent) continue;
      const sameBefore = predecessors(a, r) === predecessors(b, n);
      const edgesOld = sorted([...old.edges].map((e) => (e === r ? n : e))).join(',');
      const edgesNew = sorted(now.edges).join(',');
      if (sameBefore || edgesOld === edgesNew) {
        renames.set(r, n);
        free.delete(n);
        break;
      }
    }
  }
  return renames;
}

function stepBounds(flow: string, step: string, a: CompiledStep | undefined, b: CompiledStep | undefined, out: BoundChange[]): void {
  const ai = a?.def.loop?.max_iterations ?? null;
  const bi = b?.def.loop?.max_iterations ?? null;
  if (a && b && ai !== bi) out.push({ flow, step, bound: 'max_iterations', from: ai, to: bi });
  if (a && b && a.maxVisits !== b.maxVisits) out.push({ flow, step, bound: 'max_visits', from: a.maxVisits, to: b.maxVisits });
}

/** What changed from `a` to `b`. */
export function diffFlows(a: FlowSet, b: FlowSet): FlowDiff {
  const diff: FlowDiff = { from: a.hash, to: b.hash, flows_added: [], flows_removed: [], steps: [], edges: [], bounds: [], flows_changed: [] };
  for (const id of sorted(b.flows.keys())) if (!a.get(id)) diff.flows_added.push(id);
  for (const id of sorted(a.flows.keys())) if (!b.get(id)) diff.flows_removed.push(id);
  for (const id of sorted(a.flows.keys())) {
    const fa = a.get(id)!;
    const fb = b.get(id);
    if (!fb) continue;
    // Canonical JSON: a version read back from the ledger has its keys sorted, one loaded from a file in written order.
    if (canonicalJson(fa.def) !== canonicalJson(fb.def)) diff.flows_changed.push(id);
    const removed = [...fa.steps.keys()].filter((s) => !fb.steps.has(s));
    const added = [...fb.steps.keys()].filter((s) => !fa.steps.has(s));
    const renames = findRenames(fa, fb, removed, added);
    const renamedTo = new Set(renames.values());
    for (const s of removed) diff.steps.push(renames.has(s) ? { flow: id, step: s, change: 'renamed', to: renames.get(s)! } : { flow: id, step: s, change: 'removed' });
    for (const s of added) if (!renamedTo.has(s)) diff.steps.push({ flow: id, step: s, change: 'added' });
    // Edges of each step present in both (a renamed step compared under its new name; renamed targets count as the same).
    const rename = (s: string) => renames.get(s) ?? s;
    for (const [sid, sa] of fa.steps) {
      const nid = rename(sid);
      const sb = fb.steps.get(nid);
      if (!sb) continue;
      const ea = new Set([...sa.edges].map(rename));
      const addedEdges = sorted([...sb.edges].filter((e) => !ea.has(e)));
      const removedEdges = sorted([...ea].filter((e) => !sb.edges.has(e)));
      if (addedEdges.length || removedEdges.length) diff.edges.push({ flow: id, step: nid, added: addedEdges, removed: removedEdges });
      stepBounds(id, nid, sa, sb, diff.bounds);
    }
    for (const bound of ['max_visits', 'max_routes', 'max_depth'] as const) {
      if (fa.bounds[bound] !== fb.bounds[bound]) diff.bounds.push({ flow: id, step: null, bound, from: fa.bounds[bound], to: fb.bounds[bound] });
    }
  }
  return diff;
}

/** The rename map of a diff: `flow/old` → new step name. */
export function renamesOf(diff: FlowDiff): Map<string, string> {
  return new Map(diff.steps.filter((s) => s.change === 'renamed').map((s) => [`${s.flow}/${s.step}`, s.to!]));
}
