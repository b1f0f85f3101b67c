// A property of whole runs (issue 36): on generated flows with cycles of every edge kind (next, branches going back,
// microloops, detours and their returns, injected flows and theirs) and random statuses, failure signatures and
// envelopes, every run ends (TERMINATE) or reaches a person (ESCALATE) within its route bound, never loops on, and
// every refused report (from a step the run was not sent to) leaves the store and the run's state unchanged.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision, FlowInput, RouteRequest } from '../../src/contracts/index.js';
import { createKernel, defineFlows, MemoryStore } from '../../src/kernel/index.js';

const STATUSES = ['VERIFIED', 'A', 'B', 'FAILED', 'HUH'] as const;

interface FlowShape {
  steps: number;
  /** Per step: branch targets for statuses A and B (indices, may point back), or none. */
  branches: ([number, number] | null)[];
  /** Per step: a microloop back to an index at or before it, with its max. */
  loops: ([number, number] | null)[];
  maxVisits: number;
  maxRoutes: number;
  maxDepth: number;
}

const flowShape = fc
  .integer({ min: 2, max: 5 })
  .chain((steps) =>
    fc.record({
      steps: fc.constant(steps),
      branches: fc.array(fc.option(fc.tuple(fc.nat(steps - 1), fc.nat(steps - 1)), { nil: null }), { minLength: steps, maxLength: steps }),
      loops: fc.array(fc.option(fc.tuple(fc.nat(steps - 1), fc.integer({ min: 1, max: 4 })), { nil: null }), { minLength: steps, maxLength: steps }),
      maxVisits: fc.integer({ min: 1, max: 6 }),
      maxRoutes: fc.integer({ min: 5, max: 60 }),
      maxDepth: fc.integer({ min: 1, max: 3 }),
    }),
  );

/** Flows f0..fn: each a chain of steps with back branches and loops, a returning fixer, and injects the flows after it. */
function buildFlows(shapes: FlowShape[]): FlowInput[] {
  return shapes.map((shape, f) => {
    const id = (i: number) => `f${f}-s${i}`;
    const steps: FlowInput['steps'] = [];
    for (let i = 0; i < shape.steps; i++) {
      const last = i === shape.steps - 1;
      const step: FlowInput['steps'][number] = { id: id(i), agent: `agent-${f}` };
      if (last) step.terminal = true;
      else {
        step.next = id(i + 1);
        const b = shape.branches[i];
        if (b) step.branches = { A: id(b[0]), B: id(b[1]) };
        const l = shape.loops[i];
        if (l && !b) step.loop = { to: id(Math.min(l[0], i)), max_iterations: l[1], exit_when: ['VERIFIED'] };
      }
      steps.push(step);
    }
    steps.push({ id: `f${f}-fixer`, agent: `agent-${f}`, returns: true });
    const later = shapes.map((_, g) => `f${g}`).filter((_, g) => g > f);
    return {
      flow: `f${f}`,
      charter: { goal: `Flow ${f}`, key_question: 'Done?' },
      steps,
      detours: { lint_errors: `f${f}-fixer`, ...(later[0] ? { upstream_diverged: { flow: later[0] } } : {}) },
      inject_flows: later,
      bounds: { max_visits: shape.maxVisits, max_routes: shape.maxRoutes, max_depth: shape.maxDepth },
    };
  });
}

const move = fc.record({
  // Mostly statuses some edge takes (so runs go round their cycles), now and then one that needs a person.
  status: fc.oneof({ arbitrary: fc.constantFrom('VERIFIED', 'A', 'B'), weight: 20 }, { arbitrary: fc.constantFrom(...STATUSES), weight: 1 }),
  lint: fc.nat(9).map((n) => n === 0),
  behind: fc.nat(9).map((n) => n === 0),
  recommend: fc.option(fc.constantFrom('LOOP', 'CONTINUE', 'DETOUR', 'INJECT_FLOW', 'TERMINATE'), { nil: undefined }),
  wrongStep: fc.nat(20),
});

describe('whole runs on generated flows', () => {
  it('every run ends or reaches a person within its route bound, and every refused report leaves the store unchanged', async () => {
    const endings = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(flowShape, { minLength: 1, maxLength: 3 }), fc.array(move, { minLength: 1, maxLength: 400 }), async (shapes, moves) => {
        const defs = buildFlows(shapes);
        const flows = defineFlows(defs);
        const store = new MemoryStore({ keepRecords: true });
        const kernel = createKernel({ flows, store, clock: () => 0 });
        const bound = shapes[0]!.maxRoutes + 1;
        let at: { flow: string; step: string } = { flow: 'f0', step: 'f0-s0' };
        let last: Decision | undefined;
        let routed = 0;
        try {
          for (let i = 0; routed <= bound + 1; i++) {
            const m = moves[i % moves.length]!;
            const forensics: RouteRequest['forensics'] = {};
            if (m.lint) forensics.lint = { errors: 2 };
            if (m.behind) forensics.git_status = { behind_upstream: 1 };
            const req: RouteRequest = { run_id: 'p', flow: at.flow, step_completed: at.step, status: m.status, forensics };
            if (m.recommend) req.envelope = { recommendation: m.recommend };
            // Now and then the runner reports a step it was not sent to: refused, nothing recorded, state unchanged.
            const steps = [...flows.get(at.flow)!.steps.keys()];
            const wrong = steps[m.wrongStep % steps.length]!;
            if (m.wrongStep % 5 === 0 && wrong !== at.step && routed > 0) {
              const before = { records: store.records.length, state: await kernel.runState('p') };
              await expect(kernel.route({ ...req, step_completed: wrong })).rejects.toMatchObject({ code: 'STEP_MISMATCH' });
              expect({ records: store.records.length, state: await kernel.runState('p') }).toEqual(before);
            }
            last = await kernel.route(req);
            routed++;
            if (last.decision === 'TERMINATE' || last.decision === 'ESCALATE') break;
            at = last.decision === 'INJECT_NODES' ? { flow: at.flow, step: last.inject_nodes![0]!.id } : { flow: last.next_flow ?? last.inject_flow ?? at.flow, step: last.next_step_id! };
          }
          // It ended or reached a person, within the bound the flow states: never looped on.
          expect(['TERMINATE', 'ESCALATE']).toContain(last!.decision);
          endings.set(last!.rule, (endings.get(last!.rule) ?? 0) + 1);
          expect(routed).toBeLessThanOrEqual(bound);
          // And after that, the run takes no more routes.
          const after = store.records.length;
          await expect(kernel.route({ run_id: 'p', flow: at.flow, step_completed: at.step, status: 'VERIFIED' })).rejects.toMatchObject({ code: last!.decision === 'TERMINATE' ? 'RUN_ENDED' : 'ESCALATION_OPEN' });
          expect(store.records.length).toBe(after);
        } finally {
          await kernel.close();
        }
      }),
      { numRuns: 120, seed: 36 },
    );
    // The generated runs reach every kind of end: the graph's, a person's, and each bound the kernel holds.
    for (const rule of ['terminal_step', 'visit_cap', 'route_budget']) expect(endings.get(rule), `${rule} in ${JSON.stringify([...endings])}`).toBeGreaterThan(0);
  });
});
