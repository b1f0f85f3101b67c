// Issue 36 item 1, as properties: on generated flows with cycles of every edge kind (next, branches, loops, detours
// and their returns, injected flows and their returns), every witness path proveBounds gives is a real path of the
// compiled graph, and every cycle of the flow is covered by a stated bound or lies in a component it warns about.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FlowInput } from '../../../src/contracts/index.js';
import { defineFlows, proveBounds, type CompiledFlow, type FlowSet, type WitnessEdge } from '../../../src/kernel/index.js';

const charter = { goal: 'g', key_question: 'q' };

/** A bound stated one time in four: most generated flows leave most bounds to the defaults. */
const rarely = (a: fc.Arbitrary<number>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: a, weight: 1 });

/** A spine s0 -> s1 -> … -> end (so every step is reachable), extra edges anywhere, utility steps, an injected flow. */
const flowsArb = fc
  .record({
    n: fc.integer({ min: 2, max: 6 }),
    extra: fc.array(fc.record({ from: fc.nat(), to: fc.nat(), kind: fc.constantFrom('branch', 'loop', 'next') }), { maxLength: 6 }),
    caps: fc.array(rarely(fc.integer({ min: 1, max: 5 })), { minLength: 8, maxLength: 8 }),
    flowCap: rarely(fc.integer({ min: 1, max: 9 })),
    routes: rarely(fc.integer({ min: 1, max: 99 })),
    utility: fc.boolean(),
    utilityCap: rarely(fc.integer({ min: 1, max: 5 })),
    inject: fc.boolean(),
    injectedCap: rarely(fc.integer({ min: 1, max: 5 })),
    injectedLoop: fc.boolean(),
    nodes: fc.boolean(),
  })
  .map((g): FlowInput[] => {
    const ids = Array.from({ length: g.n }, (_, i) => `s${i}`);
    const steps: FlowInput['steps'] = ids.map((id, i) => ({ id, agent: 'a', next: ids[i + 1] ?? 'end', ...(g.caps[i] !== undefined ? { max_visits: g.caps[i] } : {}) }));
    for (const e of g.extra) {
      const from = steps[e.from % g.n]!;
      const to = ids[e.to % g.n]!;
      if (e.kind === 'branch') from.branches = { ...from.branches, [`ST${Object.keys(from.branches ?? {}).length}`]: to };
      else if (e.kind === 'loop') from.loop = { to, max_iterations: 1 + (e.to % 3) };
      else if (!from.branches?.FWD) {
        // next goes back; the spine stays as a branch, so every step stays reachable.
        from.branches = { ...from.branches, FWD: from.next! };
        from.next = to;
      }
    }
    steps.push({ id: 'end', agent: 'a', terminal: true });
    if (g.utility) steps.push({ id: 'fixer', agent: 'f', returns: true, ...(g.utilityCap !== undefined ? { max_visits: g.utilityCap } : {}) });
    const main: FlowInput = {
      flow: 'main',
      charter,
      steps,
      detours: { ...(g.utility ? { lint_errors: 'fixer' } : {}), ...(g.inject ? { upstream_diverged: { flow: 'side' } } : {}) },
      inject_flows: g.inject ? ['side'] : [],
      inject_nodes: { allowed: g.nodes, max_nodes: 2 },
      ...(g.flowCap !== undefined || g.routes !== undefined ? { bounds: { ...(g.flowCap !== undefined ? { max_visits: g.flowCap } : {}), ...(g.routes !== undefined ? { max_routes: g.routes } : {}) } } : {}),
    };
    const side: FlowInput = {
      flow: 'side',
      charter,
      steps: [
        { id: 'x1', agent: 'a', next: 'x2', ...(g.injectedCap !== undefined ? { max_visits: g.injectedCap } : {}) },
        { id: 'x2', agent: 'a', next: 'x3', ...(g.injectedLoop ? { branches: { AGAIN: 'x1' } } : {}) },
        { id: 'x3', agent: 'a', terminal: true },
      ],
    };
    return [main, side];
  });

/** Whether a witness is a real cycle of the compiled graph: each move an edge the kernel can take, in order. */
function legalWitness(set: FlowSet, witness: readonly WitnessEdge[]): string | undefined {
  const stack: { flow: string; step: string }[] = [];
  for (let i = 0; i < witness.length; i++) {
    const e = witness[i]!;
    const next = witness[(i + 1) % witness.length]!;
    if (e.to.flow !== next.from.flow || e.to.step !== next.from.step) return `move ${i} ends where move ${i + 1} does not start`;
    const flow = set.get(e.from.flow) as CompiledFlow;
    const step = flow.steps.get(e.from.step)!;
    const sameFlow = e.to.flow === e.from.flow;
    switch (e.kind) {
      case 'next':
        if (!sameFlow || step.def.next !== e.to.step) return `${e.from.step} has no next ${e.to.step}`;
        break;
      case 'branch':
        if (!sameFlow || step.def.branches?.[e.label] !== e.to.step) return `${e.from.step} has no branch ${e.label} -> ${e.to.step}`;
        break;
      case 'loop':
        if (!sameFlow || step.loopTo !== e.to.step) return `${e.from.step} does not loop to ${e.to.step}`;
        break;
      case 'detour': {
        const sig = e.label.replace(/^DETOUR /, '');
        const d = flow.detours.get(sig);
        if (step.def.terminal || step.def.returns || !d || d.kind !== 'step' || d.step !== e.to.step) return `${e.from.step} cannot detour ${sig} to ${e.to.step}`;
        stack.push(e.from);
        break;
      }
      case 'inject': {
        const target = set.get(e.to.flow);
        if (step.def.terminal || step.def.returns || !flow.injectFlows.includes(e.to.flow) || target?.firstStep !== e.to.step) return `${e.from.step} cannot inject ${e.to.flow}`;
        stack.push(e.from);
        break;
      }
      case 'nodes':
        if (!flow.def.inject_nodes.allowed || e.from.step !== e.to.step) return `${e.from.step} cannot inject nodes`;
        break;
      case 'return': {
        const back = stack.pop();
        if (!back || back.flow !== e.to.flow || back.step !== e.to.step) return `return to ${e.to.step} without a side trip from it`;
        if (!(step.def.returns || step.def.terminal)) return `${e.from.step} neither returns nor ends its flow`;
        break;
      }
    }
  }
  return stack.length ? 'a side trip that never returns' : undefined;
}

/** Every elementary cycle of the main flow over next, branch and loop edges, plus each side trip from a step to itself. */
function elementaryCycles(flow: CompiledFlow): { nodes: string[]; loops: string[]; via?: string }[] {
  const ids = flow.def.steps.map((s) => s.id);
  const out: { nodes: string[]; loops: string[]; via?: string }[] = [];
  const edges = (id: string) => {
    const s = flow.steps.get(id)!;
    if (s.def.terminal) return [];
    return [
      ...(s.def.next ? [{ to: s.def.next, loop: false }] : []),
      ...Object.values(s.def.branches ?? {}).map((to) => ({ to, loop: false })),
      ...(s.loopTo ? [{ to: s.loopTo, loop: true }] : []),
    ];
  };
  ids.forEach((start, si) => {
    const walk = (at: string, path: string[], loops: string[]) => {
      for (const e of edges(at)) {
        const l = e.loop ? [...loops, at] : loops;
        if (e.to === start) out.push({ nodes: path, loops: l });
        else if (ids.indexOf(e.to) > si && !path.includes(e.to)) walk(e.to, [...path, e.to], l);
      }
    };
    walk(start, [start], []);
    const s = flow.steps.get(start)!;
    if (!s.def.terminal && !s.def.returns) {
      for (const d of flow.detours.values()) out.push({ nodes: [start], loops: [], via: d.kind === 'step' ? `main/${d.step}` : `${d.flow}/x1` });
      if (flow.def.inject_nodes.allowed) out.push({ nodes: [start], loops: [], via: '' });
    }
  });
  return out;
}

describe('proveBounds on generated flows', () => {
  it('every witness is a real path of the compiled graph, and every cycle is covered by a stated bound or warned about', () => {
    let warnedRuns = 0;
    fc.assert(
      fc.property(flowsArb, (flows) => {
        const set = defineFlows(flows);
        const proof = proveBounds(set);
        for (const c of [...proof.bounded, ...proof.unstated]) {
          expect(c.witness.length).toBeGreaterThan(0);
          expect(legalWitness(set, c.witness), c.text).toBeUndefined();
        }
        if (proof.unstated.length) warnedRuns++;
        const main = set.get('main')!;
        const stated = (ref: string) => {
          const [f, s] = ref.split('/') as [string, string];
          const flow = set.get(f)!;
          return flow.steps.get(s)!.def.max_visits !== undefined || flow.statedBounds.max_visits !== undefined;
        };
        const warned = new Set(proof.unstated.filter((c) => c.flow === 'main').flatMap((c) => c.steps));
        for (const cycle of elementaryCycles(main)) {
          const covered =
            main.statedBounds.max_routes !== undefined ||
            cycle.nodes.some((n) => stated(`main/${n}`)) ||
            (cycle.via !== undefined && cycle.via !== '' && stated(cycle.via)) ||
            cycle.loops.length > 0; // a LOOP edge: bounded by its microloop when the cycle is repeated alone
          if (!covered) expect(cycle.nodes.every((n) => warned.has(n)), `cycle ${cycle.nodes.join(' ')}${cycle.via !== undefined ? ` via ${cycle.via || 'nodes'}` : ''} is neither bounded nor warned about`).toBe(true);
        }
        // And no warning is spurious: its witness passes no step with a stated cap, in a flow without a stated budget.
        for (const c of proof.unstated) {
          expect(set.get(c.flow)!.statedBounds.max_routes).toBeUndefined();
          for (const e of c.witness) if (e.kind !== 'return' && e.kind !== 'inject') expect(stated(`${e.from.flow}/${e.from.step}`), c.text).toBe(false);
        }
      }),
      { numRuns: 300, seed: 36 },
    );
    // The generator makes flows both with and without warnings, so both halves of the property are exercised.
    expect(warnedRuns).toBeGreaterThan(30);
    expect(warnedRuns).toBeLessThan(300);
  });
});
