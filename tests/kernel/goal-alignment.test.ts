import { describe, expect, it } from 'vitest';
import type { ArbiterAnswer, ArbiterPort } from '../../src/contracts/index.js';
import { createKernel, loadFlows } from '../../src/kernel/index.js';
import { CHARTERS, req, ruleKernel, testFlows } from '../support/kernel-fixtures.js';

const answer = (a: Partial<ArbiterAnswer>): ArbiterAnswer => ({ rejected: [], calls: [], cost_usd: 0, ...a });
const proposing = (proposal: ArbiterAnswer['proposal']): ArbiterPort => async () => answer({ proposal });

describe('goal alignment (seed 003): off-road moves must serve the charter goal', () => {
  const sample = loadFlows(CHARTERS);
  // build-step-1 of the shipped build flow failed, no rule decides: tier 3 does. Its charter's goal is
  // "Implement the planned work items with passing tests and clean lint".
  const failing = { run_id: 'g1', flow: 'build', step_completed: 'build-step-1', status: 'FAILED', forensics: { tests: { passed: 40, failed: 2 } } };

  it('rejects the seed\'s "refactor the auth module while we\'re here" from tier 3, with the reason in rejected[]', async () => {
    const flows = await sample;
    const k = createKernel({
      flows,
      arbiter: proposing({
        candidate_id: 'inject_nodes',
        reason: "refactor the auth module while we're here",
        inject_nodes: [{ id: 'refactor-auth', agent: 'code-implementer', purpose: "refactor the auth module while we're here" }],
      }),
    });
    const d = await k.route(failing);
    expect(d.decision).not.toBe('INJECT_NODES');
    const r = d.rejected.find((x) => x.rule === 'goal_alignment')!;
    expect(r).toMatchObject({ tier: 3, decision: 'INJECT_NODES', target: 'refactor-auth' });
    expect(r.why).toMatch(/refactor the auth module while we're here" shares nothing with the charter's goal "Implement the planned work items/);
  });

  it('accepts the same kind of move when its purpose serves the goal or key question', async () => {
    const flows = await sample;
    const k = createKernel({
      flows,
      arbiter: proposing({
        candidate_id: 'inject_nodes',
        reason: 'two tests fail on a missing fixture',
        inject_nodes: [{ id: 'fixture-fix', agent: 'code-implementer', purpose: 'add the fixture the failing tests need' }],
      }),
    });
    const d = await k.route(failing);
    expect(d).toMatchObject({ decision: 'INJECT_NODES', tier: 3, next_step_id: 'fixture-fix' });
    expect(d.rejected).toEqual([]);
  });

  it('checks every injected node: one aligned node cannot carry an unaligned one', async () => {
    const k = createKernel({
      flows: testFlows(),
      arbiter: proposing({
        candidate_id: 'inject_nodes',
        reason: 'implement the plan',
        inject_nodes: [
          { id: 'finish', agent: 'implementer', purpose: 'implement the rest of the plan' },
          { id: 'polish-ui', agent: 'implementer', purpose: 'restyle the login page' },
        ],
      }),
    });
    const d = await k.route(req('linear', 'FAILED', { iteration: { current: 1, max: 3 } }));
    expect(d.rejected).toEqual([expect.objectContaining({ tier: 3, rule: 'goal_alignment', why: expect.stringMatching(/node polish-ui/) })]);
  });

  it("exempts the flow's declared fix for this route's failure signature, and checks other detours and injections", async () => {
    const lint = { forensics: { lint: { errors: 2 } }, iteration: { current: 1, max: 3 } };
    // auto-linter is the declared fix for lint_errors: aligned whatever the reason says.
    const fix = await createKernel({ flows: testFlows(), arbiter: proposing({ candidate_id: 'detour:auto-linter', reason: 'tidy' }) }).route(req('linear', 'FAILED', lint));
    expect(fix).toMatchObject({ decision: 'DETOUR', tier: 3, detour_target: 'auto-linter' });
    // Without the lint failure, the same detour must state a purpose tied to "Implement the plan" / "Does it work?".
    const drift = await createKernel({ flows: testFlows(), arbiter: proposing({ candidate_id: 'detour:auto-linter', reason: 'tidy the style' }) }).route(req('linear', 'FAILED', { iteration: { current: 1, max: 3 } }));
    expect(drift.tier).toBe(5);
    expect(drift.rejected[0]).toMatchObject({ rule: 'goal_alignment', decision: 'DETOUR', target: 'auto-linter' });
    const inject = await createKernel({ flows: testFlows(), arbiter: proposing({ candidate_id: 'inject_flow:rebase', reason: 'sync so the build works against upstream' }) }).route(
      req('linear', 'FAILED', { iteration: { current: 1, max: 3 } }),
    );
    expect(inject).toMatchObject({ decision: 'INJECT_FLOW', tier: 3 });
  });

  it('applies to the envelope: its `purpose` must serve the goal; none stated fails unless it is the declared fix', async () => {
    const k = () => createKernel({ flows: testFlows() });
    const off = await k().route(req('linear', 'FAILED', { envelope: { recommendation: 'INJECT_FLOW', purpose: "refactor the auth module while we're here" } }));
    expect(off.tier).toBe(5);
    expect(off.rejected).toEqual([expect.objectContaining({ tier: 4, rule: 'goal_alignment', decision: 'INJECT_FLOW', target: 'rebase' })]);
    const silent = await k().route(req('linear', 'FAILED', { envelope: { recommendation: 'INJECT_FLOW' } }));
    expect(silent.rejected[0]!.why).toMatch(/states no purpose/);
    const on = await k().route(req('linear', 'FAILED', { envelope: { recommendation: 'INJECT_FLOW', purpose: 'rebase so the plan works on upstream' } }));
    expect(on).toMatchObject({ decision: 'INJECT_FLOW', tier: 4, inject_flow: 'rebase' });
    const declared = await k().route(req('linear', 'FAILED', { forensics: { lint: { errors: 1 } }, envelope: { recommendation: 'DETOUR' } }));
    expect(declared).toMatchObject({ decision: 'DETOUR', tier: 4, detour_target: 'auto-linter' });
  });

  it("marks the candidate that is the flow's declared fix for this route's signature (`fixes`)", async () => {
    const k = createKernel({ flows: testFlows() });
    const lint = await k.candidates(req('linear', 'FAILED', { forensics: { lint: { errors: 2 } } }));
    expect(lint.find((c) => c.id === 'detour:auto-linter')).toMatchObject({ fixes: 'lint_errors' });
    expect(lint.find((c) => c.id === 'inject_flow:rebase')!.fixes).toBeUndefined();
    const diverged = await k.candidates(req('linear', 'FAILED', { forensics: { git_status: { behind_upstream: 2 } } }));
    expect(diverged.find((c) => c.id === 'inject_flow:rebase')).toMatchObject({ fixes: 'upstream_diverged' });
    expect((await k.candidates(req('linear', 'FAILED'))).some((c) => c.fixes)).toBe(false);
  });

  it('leaves tier 2 signature detours and non-off-road moves alone', async () => {
    const k = ruleKernel({ flows: testFlows() });
    const lint = { forensics: { lint: { errors: 2 } } };
    await k.route(req('linear', 'FAILED', lint));
    expect(await k.route(req('linear', 'FAILED', lint))).toMatchObject({ decision: 'DETOUR', tier: 2, rule: 'signature_detour' });
    const loop = await createKernel({ flows: testFlows(), arbiter: proposing({ candidate_id: 'loop:linear', reason: 'xyzzy' }) }).route(req('linear', 'FAILED', { iteration: { current: 1, max: 3 } }));
    expect(loop).toMatchObject({ decision: 'LOOP', tier: 3 });
  });
});
