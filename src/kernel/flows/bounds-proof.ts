import { DEFAULT_BOUNDS } from '../../contracts/flow-bounds.js';
import type { CompiledFlow, CompiledStep, FlowSet } from './compiled-flow.js';
import { components, cyclic, shortestCycle } from './cycles.js';
import type { CycleBound, ProofEdgeKind, ProofNode, WitnessEdge } from './proof-types.js';
import type { IssuePath } from '../../contracts/errors.js';

/**
 * The termination proof `navkernel flows validate` prints (docs/bounds.md): every cycle a run can take, grouped by
 * strongly connected component, and the counter that bounds it — a counter nothing inside the cycle resets.
 *
 * The graph's nodes are the steps of every flow (`flow/step`). Its edges are the moves a run can make from a step:
 * `next`, a branch, the microloop's LOOP, and the side trips that come back to the step they left (a detour to a
 * utility step and its return, an injected flow run to its end and its return, injected nodes). A side trip is one
 * edge from the step to itself that passes through its target, so two steps detouring to one utility step do not
 * seem to reach each other through it.
 *
 * Counters: a step's visit count (never reset) bounds every cycle through the step; a microloop's iteration count
 * bounds a cycle through its LOOP edge only when the loop's step has no other way to go on inside the component
 * (leaving the loop by CONTINUE resets its counter); the run's route count bounds everything. A side trip is
 * bounded by the visit count of the step and of its target, not by the signature's max_attempts: the runner's
 * envelope or the navigator may choose a side trip at any route, and only the signature rule counts attempts.
 */

/** How a run moves along an edge. */
export type { CycleBound, ProofEdgeKind, ProofNode, WitnessEdge } from './proof-types.js';

/** A strongly connected part of a flow's graph, and what bounds the cycles in it. */
export interface BoundedCycle {
  flow: string;
  /** The steps of the component, in flow order (steps of other flows as `flow/step`). */
  steps: string[];
  /** One shortest cycle of the component (for an unbounded one: a cycle no stated bound covers). */
  witness: WitnessEdge[];
  /** The witness as text: `build-review -BOUNCE-> build-step-3 -VERIFIED-> build-review`. */
  text: string;
  bound: CycleBound;
  /** Whether the cycle is only side trips from its step(s) and back (no next, branch or LOOP of the flow itself). */
  sideTrip: boolean;
  /** Where the witness's first step is in its flow file (`['steps', 2]`). */
  path: IssuePath;
}

/** The most routes one run started in a flow can take, and what gives that figure. */
export interface RouteBound {
  flow: string;
  routes: number;
  /** `max_routes`: the route budget is the tighter; `visits`: the visit caps of every step the run can reach are. */
  by: 'max_routes' | 'visits';
  stated: boolean;
}

/** The longest a flow set can route before it terminates or escalates, with a witness path (proveBounds). */
export interface BoundsProof {
  /** Components whose every cycle a stated bound covers. */
  bounded: BoundedCycle[];
  /**
   * Components with a cycle only a default the flow does not state bounds: each is a warning. Single steps whose
   * only cycle is a side trip are one entry per flow (its `steps` name them all).
   */
  unstated: BoundedCycle[];
  /** Per flow, the worst case of routes of a run started there. */
  routes: RouteBound[];
  /** Per flow, the deepest nesting of side trips a run started there can reach, beside its max_depth. */
  depth: { flow: string; depth: number; max_depth: number }[];
}

interface Edge {
  from: number;
  to: number;
  kind: ProofEdgeKind;
  label: string;
  /** A side trip's target (detour step, injected flow's first step); -1 for injected nodes. */
  via?: number;
  /** The injected flow, for an `inject` edge. */
  flow?: string;
}

interface Graph {
  nodes: ProofNode[];
  steps: CompiledStep[];
  flows: CompiledFlow[];
  /** Index of each step within its flow's steps list. */
  order: number[];
  out: Edge[][];
  index: Map<string, number>;
}

const key = (flow: string, step: string) => `${flow}\u0000${step}`;

/** A label for the `next` edge: the status that takes it. */
function nextLabel(step: CompiledStep): string {
  if (step.branched) return '(other)';
  if (step.def.loop) return step.def.loop.exit_when[0] ?? 'VERIFIED';
  return step.def.success?.[0] ?? 'VERIFIED';
}

function buildGraph(set: FlowSet): Graph {
  const nodes: ProofNode[] = [];
  const steps: CompiledStep[] = [];
  const flows: CompiledFlow[] = [];
  const order: number[] = [];
  const index = new Map<string, number>();
  for (const flow of set.flows.values())
    flow.def.steps.forEach((def, i) => {
      const step = flow.steps.get(def.id)!;
      if (index.has(key(flow.id, def.id))) return; // a duplicate id: the graph check refuses the flow
      index.set(key(flow.id, def.id), nodes.length);
      nodes.push({ flow: flow.id, step: def.id });
      steps.push(step);
      flows.push(flow);
      order.push(i);
    });
  const out: Edge[][] = nodes.map(() => []);
  nodes.forEach((_, from) => {
    const step = steps[from]!;
    const flow = flows[from]!;
    const at = (s: string) => index.get(key(flow.id, s));
    const add = (e: Omit<Edge, 'from'>) => out[from]!.push({ from, ...e });
    if (step.def.terminal) return;
    if (step.def.next !== undefined && at(step.def.next) !== undefined) add({ to: at(step.def.next)!, kind: 'next', label: nextLabel(step) });
    for (const [status, target] of Object.entries(step.def.branches ?? {})) if (at(target) !== undefined) add({ to: at(target)!, kind: 'branch', label: status });
    if (step.loopTo !== undefined && at(step.loopTo) !== undefined) add({ to: at(step.loopTo)!, kind: 'loop', label: 'LOOP' });
    if (step.def.returns) return; // a utility step goes back where it came from; it takes no side trip itself
    for (const [sig, target] of Object.entries(flow.def.detours)) {
      const t = typeof target === 'string' ? target : target.step;
      if (t !== undefined && at(t) !== undefined) add({ to: from, kind: 'detour', label: `DETOUR ${sig}`, via: at(t)! });
    }
    for (const g of flow.injectFlows) {
      const first = set.get(g)?.firstStep;
      const via = first === undefined ? undefined : index.get(key(g, first));
      if (via !== undefined) add({ to: from, kind: 'inject', label: `INJECT ${g}`, via, flow: g });
    }
    if (flow.def.inject_nodes.allowed) add({ to: from, kind: 'nodes', label: 'INJECT_NODES', via: -1 });
  });
  return { nodes, steps, flows, order, out, index };
}

/** The shortest path inside an injected flow from its first step to a terminal step (the flow runs to its end). */
function runToEnd(g: Graph, first: number): Edge[] {
  const flow = g.nodes[first]!.flow;
  const via = new Map<number, Edge>();
  const queue = [first];
  for (let qi = 0; qi < queue.length; qi++) {
    const n = queue[qi]!;
    if (g.steps[n]!.def.terminal) {
      const path: Edge[] = [];
      for (let m = n; m !== first; ) {
        const e = via.get(m)!;
        path.unshift(e);
        m = e.from;
      }
      return path;
    }
    for (const e of g.out[n]!) if (e.to !== n && g.nodes[e.to]!.flow === flow && e.to !== first && !via.has(e.to)) via.set(e.to, e), queue.push(e.to);
  }
  return [];
}

/** A cycle's edges as witness moves: each side trip spelt out to its target and back. */
function expand(g: Graph, cycle: readonly Edge[]): WitnessEdge[] {
  const out: WitnessEdge[] = [];
  const move = (from: number, to: number, kind: ProofEdgeKind, label: string) => out.push({ from: g.nodes[from]!, to: g.nodes[to]!, kind, label });
  for (const e of cycle) {
    if (e.kind === 'detour') {
      move(e.from, e.via!, 'detour', e.label);
      move(e.via!, e.from, 'return', 'RETURN');
    } else if (e.kind === 'inject') {
      move(e.from, e.via!, 'inject', e.label);
      const inside = runToEnd(g, e.via!);
      for (const i of inside) move(i.from, i.to, i.kind, i.label);
      move(inside.length ? inside[inside.length - 1]!.to : e.via!, e.from, 'return', 'RETURN');
    } else out.push({ from: g.nodes[e.from]!, to: g.nodes[e.to]!, kind: e.kind, label: e.label });
  }
  return out;
}

/** `a -X-> b -Y-> a`, naming steps of other flows as `flow/step`. */
export function witnessText(flow: string, witness: readonly WitnessEdge[]): string {
  const name = (n: ProofNode) => (n.flow === flow ? n.step : `${n.flow}/${n.step}`);
  if (!witness.length) return '';
  return [name(witness[0]!.from), ...witness.map((e) => `-${e.label}-> ${name(e.to)}`)].join(' ');
}

/** Rotates a cycle to start at its step latest in flow order (where a back edge starts), for a stable witness. */
function rotate(g: Graph, cycle: Edge[]): Edge[] {
  let at = 0;
  cycle.forEach((e, i) => {
    if (g.order[e.from]! > g.order[cycle[at]!.from]!) at = i;
  });
  return [...cycle.slice(at), ...cycle.slice(0, at)];
}

/**
 * Proves that every cycle a run can take in `set` is bounded, and names each component whose cycles only a default
 * bounds, with a shortest witness cycle. Deterministic: components in flow order, witnesses by shortest length then
 * flow order.
 */
export function proveBounds(set: FlowSet): BoundsProof {
  const g = buildGraph(set);
  const all = g.nodes.map((_, i) => i);
  const outOf = (n: number) => g.out[n]!;
  const statedVisits = (n: number) => g.steps[n]!.def.max_visits !== undefined || g.flows[n]!.statedBounds.max_visits !== undefined;
  const bounded: BoundedCycle[] = [];
  const unstated: BoundedCycle[] = [];
  const finding = (comp: readonly number[], cycle: Edge[], bound: CycleBound): BoundedCycle => {
    const c = rotate(g, cycle);
    const first = c[0]!.from;
    const flow = g.nodes[first]!.flow;
    const witness = expand(g, c);
    const steps = [...comp].sort((a, b) => a - b).map((n) => (g.nodes[n]!.flow === flow ? g.nodes[n]!.step : `${g.nodes[n]!.flow}/${g.nodes[n]!.step}`));
    const sideTrip = c.every((e) => e.kind === 'detour' || e.kind === 'inject' || e.kind === 'nodes');
    return { flow, steps, witness, text: witnessText(flow, witness), bound, sideTrip, path: ['steps', g.order[first]!] };
  };
  for (const comp of components(all, outOf).sort((a, b) => a[0]! - b[0]!)) {
    if (!cyclic(comp, outOf)) continue;
    const flowOf = g.flows[comp[0]!]!;
    const members = new Set(comp);
    // The part no stated visit cap covers: steps without a stated cap, side trips whose target has none either.
    const free = comp.filter((n) => !statedVisits(n));
    const keep = (e: Edge) => members.has(e.to) && (e.via === undefined || e.via < 0 || !statedVisits(e.via));
    let edges = new Map(free.map((n) => [n, g.out[n]!.filter(keep)] as const));
    // A microloop bounds its LOOP edge unless its step can leave the loop by CONTINUE inside the same part.
    let parts: number[][] = [];
    for (;;) {
      const view = (n: number) => edges.get(n) ?? [];
      parts = components(free, view).filter((p) => cyclic(p, view));
      const partOf = new Map<number, number>();
      parts.forEach((p, i) => p.forEach((n) => partOf.set(n, i)));
      let changed = false;
      const next = new Map<number, Edge[]>();
      for (const [n, es] of edges) {
        const kept = es.filter((e) => {
          if (e.kind !== 'loop') return partOf.get(e.to) !== undefined && partOf.get(e.to) === partOf.get(n);
          const resets = es.some((o) => (o.kind === 'next' || o.kind === 'branch') && partOf.get(o.to) !== undefined && partOf.get(o.to) === partOf.get(n));
          return resets && partOf.get(e.to) === partOf.get(n);
        });
        if (kept.length !== es.length) changed = true;
        next.set(n, kept);
      }
      edges = next;
      if (!changed) break;
    }
    const view = (n: number) => edges.get(n) ?? [];
    const routes = flowOf.statedBounds.max_routes;
    // The witness shows the graph's own cycle first (next and branches), then one with a LOOP edge, then a side
    // trip: a loop alone is bounded, so the cycle that leaves and resets it is the one to show.
    const pick = (within: readonly number[], view: (n: number) => readonly Edge[]) => {
      // Each view's edge lists made once: the searches below walk them once per member.
      const only = (kinds: readonly ProofEdgeKind[]) => {
        const lists = new Map(within.map((n) => [n, view(n).filter((e) => kinds.includes(e.kind))] as const));
        return (n: number) => lists.get(n) ?? [];
      };
      const all = new Map(within.map((n) => [n, view(n)] as const));
      return shortestCycle(within, only(['next', 'branch'])) ?? shortestCycle(within, only(['next', 'branch', 'loop'])) ?? shortestCycle(within, (n) => all.get(n) ?? [])!;
    };
    if (!parts.length || routes !== undefined) {
      // Bounded by what the flow states: a visit cap on the way, a microloop, or the flow's route budget.
      const cycle = pick(comp, (n) => g.out[n]!.filter((e) => members.has(e.to)));
      bounded.push(finding(comp, cycle, parts.length ? { kind: 'routes', value: routes!, stated: true } : tightestBound(g, comp, cycle, statedVisits)));
      continue;
    }
    for (const part of parts) {
      const cycle = pick(part, view);
      unstated.push(finding(part, cycle, { kind: 'visits', value: Math.min(...part.map((n) => g.steps[n]!.maxVisits)), stated: false }));
    }
  }
  return { bounded, unstated: groupSideTrips(unstated), routes: routeBounds(set), depth: depths(set) };
}

/**
 * Side trips from single steps (a step detouring and coming back, and nothing else cycling there) are one finding
 * per flow, naming every such step with the first one's witness: one warning per step would bury the others.
 */
function groupSideTrips(found: BoundedCycle[]): BoundedCycle[] {
  const out: BoundedCycle[] = [];
  const byFlow = new Map<string, BoundedCycle>();
  for (const c of found) {
    if (!(c.sideTrip && c.steps.length === 1)) {
      out.push(c);
      continue;
    }
    const first = byFlow.get(c.flow);
    if (first) first.steps.push(...c.steps);
    else {
      const copy = { ...c, steps: [...c.steps] };
      byFlow.set(c.flow, copy);
      out.push(copy);
    }
  }
  return out;
}

/**
 * The tightest stated bound on a witness cycle of a bounded component: a stated visit cap of a step on it (or of a
 * side trip's target), or its microloop's max_iterations when the loop's step cannot go on inside the component.
 */
function tightestBound(g: Graph, comp: readonly number[], cycle: readonly Edge[], statedVisits: (n: number) => boolean): CycleBound {
  const members = new Set(comp);
  const options: CycleBound[] = [];
  for (const e of cycle) {
    for (const n of [e.from, ...(e.via !== undefined && e.via >= 0 ? [e.via] : [])])
      if (statedVisits(n)) options.push({ kind: 'visits', value: g.steps[n]!.maxVisits, stated: true, step: g.nodes[n]!.flow === g.nodes[cycle[0]!.from]!.flow ? g.nodes[n]!.step : `${g.nodes[n]!.flow}/${g.nodes[n]!.step}` });
    if (e.kind === 'loop' && !g.out[e.from]!.some((o) => (o.kind === 'next' || o.kind === 'branch') && members.has(o.to)))
      options.push({ kind: 'microloop', value: g.steps[e.from]!.def.loop!.max_iterations, stated: true, step: g.nodes[e.from]!.step });
  }
  // Every cycle of a bounded component has one of these; the witness is one of its cycles, so options is not empty.
  return options.sort((a, b) => a.value - b.value)[0] ?? { kind: 'visits', value: Math.min(...comp.map((n) => g.steps[n]!.maxVisits)), stated: true };
}

/** Flows a run started in `root` can enter: itself and what it injects, transitively. */
function reachableFlows(set: FlowSet, root: string): CompiledFlow[] {
  const seen = new Set<string>([root]);
  const queue = [root];
  for (let i = 0; i < queue.length; i++) for (const g of set.get(queue[i]!)?.injectFlows ?? []) if (!seen.has(g) && set.get(g)) seen.add(g), queue.push(g);
  return queue.map((id) => set.get(id)!).filter(Boolean);
}

/**
 * Every route reports a step the kernel sent the run to (or an injected node), so the visit caps of every step the
 * run can reach, plus the injected nodes each visit may add, bound its routes; the route budget may be tighter.
 */
function routeBounds(set: FlowSet): RouteBound[] {
  return [...set.flows.values()].map((root) => {
    let visits = 0;
    let stated = true;
    for (const f of reachableFlows(set, root.id)) {
      for (const s of f.steps.values()) visits += s.maxVisits * (f.def.inject_nodes.allowed && !s.def.terminal ? 1 + f.def.inject_nodes.max_nodes : 1);
      stated &&= f.statedBounds.max_visits !== undefined || f.def.steps.every((s) => s.max_visits !== undefined);
    }
    const budget = root.bounds.max_routes;
    return visits < budget ? { flow: root.id, routes: visits, by: 'visits', stated } : { flow: root.id, routes: budget, by: 'max_routes', stated: root.statedBounds.max_routes !== undefined };
  });
}

/** How deeply side trips can nest in a run started in each flow (injected flows' own side trips included). */
function depths(set: FlowSet): { flow: string; depth: number; max_depth: number }[] {
  const memo = new Map<string, number>();
  const depthOf = (id: string, path: Set<string>): number => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const f = set.get(id);
    if (!f || path.has(id)) return 0; // an injection cycle: refused by the graph check
    path.add(id);
    const own = f.detours.size > 0 || f.def.inject_nodes.allowed ? 1 : 0;
    let d = own;
    for (const g of f.injectFlows) d = Math.max(d, 1 + depthOf(g, path));
    path.delete(id);
    memo.set(id, d);
    return d;
  };
  return [...set.flows.values()].map((f) => ({ flow: f.id, depth: depthOf(f.id, new Set()), max_depth: f.bounds.max_depth }));
}

/** The kernel's default visit cap, for messages. */
export const DEFAULT_MAX_VISITS = DEFAULT_BOUNDS.max_visits;
