import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DECISION_KINDS, type ArbiterPort, type Decision, type RouteRequest } from '../../src/contracts/index.js';
import { createKernel, loadFlows, type FlowSet } from '../../src/kernel/index.js';
import { CHARTERS } from '../support/kernel-fixtures.js';

const flows: FlowSet = await loadFlows(CHARTERS);
const flowIds = [...flows.flows.keys()];

/** Any valid request on the sample flows, with statuses that hit branches, loops and nonsense. */
const requestArb: fc.Arbitrary<RouteRequest> = fc
  .record({
    run: fc.constantFrom('r1', 'r2'),
    flow: fc.constantFrom(...flowIds),
    stepIndex: fc.nat(),
    status: fc.oneof(fc.constantFrom('VERIFIED', 'unverified', 'MERGE', 'bounce', 'APPROVED', 'BLOCKERS', 'done', 'FAILED'), fc.string({ maxLength: 8 })),
    failed: fc.option(fc.nat(5), { nil: undefined }),
    lint: fc.option(fc.nat(3), { nil: undefined }),
    behind: fc.option(fc.nat(2), { nil: undefined }),
    error: fc.option(fc.constantFrom("Cannot find module './x'", 'error TS2322: nope', 'CONFLICT (content): Merge conflict in a.ts', 'random text'), { nil: undefined }),
    iteration: fc.option(fc.record({ current: fc.integer({ min: 1, max: 5 }), max: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }) }), { nil: undefined }),
    recommendation: fc.option(fc.oneof(fc.constantFrom(...DECISION_KINDS), fc.constantFrom('loop', 'MAYBE')), { nil: undefined }),
    next: fc.option(fc.oneof(fc.constantFrom('build-step-2', 'deploy-done', 'nowhere'), fc.string({ maxLength: 5 })), { nil: undefined }),
  })
  .map((r) => {
    const flow = flows.get(r.flow)!;
    const steps = [...flow.steps.keys()];
    const req: RouteRequest = { run_id: r.run, flow: r.flow, step_completed: steps[r.stepIndex % steps.length]!, status: r.status };
    const forensics: RouteRequest['forensics'] = {};
    if (r.failed !== undefined) forensics.tests = { passed: 10, failed: r.failed };
    if (r.lint !== undefined) forensics.lint = { errors: r.lint };
    if (r.behind !== undefined) forensics.git_status = { behind_upstream: r.behind };
    if (r.error !== undefined) forensics.error_output = r.error;
    if (Object.keys(forensics).length) req.forensics = forensics;
    if (r.iteration) req.iteration = r.iteration.max === undefined ? { current: r.iteration.current } : { current: r.iteration.current, max: r.iteration.max };
    if (r.recommendation !== undefined || r.next !== undefined) req.envelope = { recommendation: r.recommendation ?? null, next_step_id: r.next ?? null };
    return req;
  });

/** A deterministic "model" that picks a candidate by a hash of the step, to exercise tier 3 too. */
const pickingArbiter: ArbiterPort = async (input) => ({
  proposal: { candidate_id: input.candidates[(input.step.length + input.seq) % input.candidates.length]!.id, reason: 'picked' },
  rejected: [],
  calls: [],
  cost_usd: 0,
});

describe('properties of routing on the sample flows', () => {
  it('every decision is in the vocabulary, names only existing targets, and is the same when the sequence is routed again', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb, { minLength: 1, maxLength: 25 }), fc.boolean(), async (requests, withArbiter) => {
        // Random reports on a few runs: many come from a step the run was not sent to, or after it ended or
        // escalated. Those are refused with a run-time code, and leave the run's state as it was.
        const run = async () => {
          const k = createKernel({ flows, clock: () => 0, ...(withArbiter ? { arbiter: pickingArbiter } : {}) });
          const out: (Decision | { refused: string })[] = [];
          for (const r of requests) {
            const before = await k.runState(r.run_id);
            try {
              out.push(await k.route(r));
            } catch (e) {
              const code = (e as { code?: string }).code!;
              expect(['STEP_MISMATCH', 'RUN_ENDED', 'ESCALATION_OPEN']).toContain(code);
              expect(await k.runState(r.run_id)).toEqual(before);
              out.push({ refused: code });
            }
          }
          return out;
        };
        const all = await run();
        const first = all.filter((d): d is Decision => !('refused' in d));
        const routed = requests.filter((_, i) => !('refused' in all[i]!));
        for (const [i, d] of first.entries()) {
          expect(DECISION_KINDS).toContain(d.decision);
          const flow = flows.get(d.next_flow ?? routed[i]!.flow)!;
          if (d.next_step_id !== null) expect(flow.steps.has(d.next_step_id) || d.inject_nodes?.some((n) => n.id === d.next_step_id)).toBe(true);
          else expect(['ESCALATE', 'TERMINATE']).toContain(d.decision);
          if (d.detour_target) expect(flow.steps.get(d.detour_target)?.def.returns).toBe(true);
          if (d.inject_flow) expect(flows.get(d.inject_flow)).toBeDefined();
          if (d.decision === 'ESCALATE') expect(d.escalation_id).toBeDefined();
          expect(d.confidence).toBeGreaterThanOrEqual(0);
          expect(d.confidence).toBeLessThanOrEqual(1);
        }
        expect(await run()).toEqual(all);
      }),
      { numRuns: 150, seed: 20261122 },
    );
  });
});
