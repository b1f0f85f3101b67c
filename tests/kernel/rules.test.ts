import { describe, expect, it } from 'vitest';
import { defineFlows, MemoryStore } from '../../src/kernel/index.js';
import { TEST_FLOWS, req, ruleKernel, testFlows } from '../support/kernel-fixtures.js';

// These tests exercise one rule at a time, reporting steps in whatever order the rule needs (ruleKernel: the runner
// restarts from each step it reports, and a person lets an escalated run go on).
const createKernel = ruleKernel;

const kernel = () => createKernel({ flows: testFlows(), clock: () => 0 });

describe('tier 1: fast path', () => {
  it('terminates on a terminal step', async () => {
    const d = await kernel().route(req('done', 'whatever'));
    expect(d).toMatchObject({ decision: 'TERMINATE', next_step_id: null, tier: 1, rule: 'terminal_step', needs_human: false });
  });

  it('follows an explicit next_step_id only when it is a legal edge', async () => {
    const k = kernel();
    expect(await k.route(req('review', 'odd', { envelope: { next_step_id: 'write' } }))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'write', tier: 1, rule: 'explicit_next' });
    const d = await k.route(req('linear', 'FAILED', { envelope: { next_step_id: 'check' } }));
    expect(d.rule).not.toBe('explicit_next');
    expect(d.rejected).toContainEqual(expect.objectContaining({ tier: 2, rule: 'graph_constraint', target: 'check' }));
  });

  it('matches branches case-insensitively, falls back to the default with confidence 0.8', async () => {
    const k = kernel();
    expect(await k.route(req('review', 'bounce'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'write', rule: 'branch', confidence: 1 });
    expect(await k.route(req('review', 'Approved'))).toMatchObject({ next_step_id: 'done', rule: 'branch' });
    expect(await k.route(req('review', 'MAYBE'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'done', rule: 'branch_default', confidence: 0.8 });
  });

  it('leaves an unmatched branch step without default to the next tiers', async () => {
    const d = await kernel().route(req('triage', 'MAYBE'));
    expect(d.tier).toBe(5);
    expect(d.decision).toBe('ESCALATE');
  });

  it('exits a microloop on its exit status and continues a linear step on success', async () => {
    const k = kernel();
    expect(await k.route(req('check', 'verified'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'review', rule: 'loop_exit' });
    for (const status of ['VERIFIED', 'succeeded', 'PASS']) expect(await k.route(req('write', status))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'check', rule: 'success' });
  });

  it('returns from a utility step to the step that detoured to it', async () => {
    const k = kernel();
    const lint = { forensics: { lint: { errors: 3 } } };
    await k.route(req('linear', 'FAILED', lint));
    const detour = await k.route(req('linear', 'FAILED', lint));
    expect(detour).toMatchObject({ decision: 'DETOUR', detour_target: 'auto-linter', next_step_id: 'auto-linter', return_to: 'linear', signature: 'lint_errors' });
    expect(await k.route(req('auto-linter', 'done'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'linear', tier: 1, rule: 'utility_return' });
    expect((await k.runState('run-1'))!.returns).toEqual([]);
  });
});

describe('tier 2: deterministic checks', () => {
  it('loops a microloop that has not met its exit condition, then continues with a warning at the max', async () => {
    const k = kernel();
    const first = await k.route(req('check', 'UNVERIFIED'));
    expect(first).toMatchObject({ decision: 'LOOP', next_step_id: 'write', tier: 2, rule: 'microloop', iteration: 1 });
    expect(await k.route(req('check', 'UNVERIFIED'))).toMatchObject({ decision: 'LOOP', iteration: 2 });
    const capped = await k.route(req('check', 'UNVERIFIED'));
    expect(capped).toMatchObject({ decision: 'CONTINUE', next_step_id: 'review', tier: 2, rule: 'max_iterations', needs_human: true, confidence: 0.7, iteration: 3 });
    expect(capped.warnings).toHaveLength(1);
  });

  it('uses the larger of the runner count and its own count, so a forgetful runner cannot loop forever', async () => {
    const k = kernel();
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push((await k.route(req('check', 'UNVERIFIED', { iteration: { current: 1 } }))).decision);
    expect(decisions.slice(0, 3)).toEqual(['LOOP', 'LOOP', 'CONTINUE']);
    expect((await kernel().route(req('check', 'UNVERIFIED', { iteration: { current: 3 } }))).rule).toBe('max_iterations');
  });

  it("prefers the flow's max_iterations over the request's, and uses the request's where the flow has none", async () => {
    const k = kernel();
    expect(await k.route(req('check', 'UNVERIFIED', { iteration: { current: 2, max: 2 } }))).toMatchObject({ decision: 'LOOP' });
    expect(await kernel().route(req('linear', 'FAILED', { iteration: { current: 2, max: 2 } }))).toMatchObject({ rule: 'max_iterations', next_step_id: 'done' });
  });

  it('detours on the second sighting of a failure signature, then escalates after max_attempts', async () => {
    const k = kernel();
    const lint = { forensics: { lint: { errors: 2 } } };
    expect((await k.route(req('linear', 'FAILED', lint))).rule).not.toBe('signature_detour');
    const rules: string[] = [];
    for (let i = 0; i < 3; i++) {
      const d = await k.route(req('linear', 'FAILED', lint));
      rules.push(`${d.decision}:${d.rule}`);
      if (d.decision === 'DETOUR') await k.route(req('auto-linter', 'done'));
    }
    expect(rules).toEqual(['DETOUR:signature_detour', 'DETOUR:signature_detour', 'ESCALATE:signature_exhausted']);
    expect((await k.runState('run-1'))!.signatures['build/linear:lint_errors']).toEqual({ seen: 4, detours: 2 });
  });

  it('injects a flow for a signature whose fix is a flow, and returns to the detouring step when it ends', async () => {
    const k = kernel();
    const diverged = { forensics: { git_status: { behind_upstream: 3 } } };
    await k.route(req('linear', 'FAILED', diverged));
    const inject = await k.route(req('linear', 'FAILED', diverged));
    expect(inject).toMatchObject({ decision: 'INJECT_FLOW', inject_flow: 'rebase', next_flow: 'rebase', next_step_id: 'rebase-apply', return_to: 'linear', signature: 'upstream_diverged' });
    await k.route({ run_id: 'run-1', flow: 'rebase', step_completed: 'rebase-apply', status: 'VERIFIED' });
    expect(await k.route({ run_id: 'run-1', flow: 'rebase', step_completed: 'rebase-done', status: 'done' })).toMatchObject({
      decision: 'CONTINUE',
      next_flow: 'build',
      next_step_id: 'linear',
      rule: 'injected_flow_done',
    });
    // max_attempts 1: the next time it escalates.
    expect(await k.route(req('linear', 'FAILED', diverged))).toMatchObject({ decision: 'ESCALATE', rule: 'signature_exhausted', needs_human: true });
  });

  it('derives signatures from error text with the default matcher table and from flow extensions', async () => {
    const k = kernel();
    const text = { forensics: { error_output: "Error: Cannot find module './auth' from src/login.ts" } };
    await k.route(req('linear', 'FAILED', text));
    expect((await k.runState('run-1'))!.signatures).toHaveProperty(['build/linear:missing_import']);
    const own = { forensics: { failure_signature: 'flaky_network' } };
    await k.route(req('linear', 'FAILED', own));
    expect((await k.runState('run-1'))!.signatures['build/linear:flaky_network']).toEqual({ seen: 1, detours: 0 });
  });
});

describe('signature sightings, futile loops, timestamps', () => {
  it('counts a sighting on every route carrying a failure signature, whichever tier decides', async () => {
    const k = kernel();
    const lint = { forensics: { lint: { errors: 2 } } };
    // Tier 1 decides these (explicit legal next, success): the sightings still count.
    expect(await k.route(req('linear', 'FAILED', { ...lint, envelope: { next_step_id: 'done' } }))).toMatchObject({ tier: 1, rule: 'explicit_next' });
    expect((await k.runState('run-1'))!.signatures['build/linear:lint_errors']).toEqual({ seen: 1, detours: 0 });
    // The iteration cap (tier 2, before the signature rule) decides this one: counted too.
    expect(await k.route(req('linear', 'FAILED', { ...lint, iteration: { current: 3, max: 3 } }))).toMatchObject({ rule: 'max_iterations' });
    expect((await k.runState('run-1'))!.signatures['build/linear:lint_errors']).toEqual({ seen: 2, detours: 0 });
    // So the next sighting is the third, and the detour rule sees that history.
    const d = await k.route(req('linear', 'FAILED', lint));
    expect(d).toMatchObject({ decision: 'DETOUR', rule: 'signature_detour', signature: 'lint_errors' });
    expect(d.reason).toMatch(/seen 3 times/);
  });

  it('detours for the alias type_error through a flow that names the fix type_mismatch, and the reverse', async () => {
    const flows = defineFlows([{ ...TEST_FLOWS[0]!, detours: { type_mismatch: 'auto-linter' } }, TEST_FLOWS[1]!]);
    const k = createKernel({ flows });
    const typeErr = { forensics: { failure_signature: 'type_error' } };
    await k.route(req('linear', 'FAILED', typeErr));
    expect(await k.route(req('linear', 'FAILED', typeErr))).toMatchObject({ decision: 'DETOUR', detour_target: 'auto-linter', signature: 'type_mismatch' });
    const legacy = createKernel({ flows: defineFlows([{ ...TEST_FLOWS[0]!, detours: { type_error: 'auto-linter' } }, TEST_FLOWS[1]!]) });
    const ts = { forensics: { error_output: "a.ts(1,1): error TS2322: Type 'string' is not assignable to type 'number'." } };
    await legacy.route(req('linear', 'FAILED', ts));
    expect(await legacy.route(req('linear', 'FAILED', ts))).toMatchObject({ decision: 'DETOUR', signature: 'type_mismatch' });
    expect(() => defineFlows([{ ...TEST_FLOWS[0]!, detours: { type_error: 'auto-linter', type_mismatch: 'auto-linter' } }, TEST_FLOWS[1]!])).toThrow(/same signature/);
  });

  it("ends a microloop when the critic says further iteration cannot help (forensics or envelope): rule loop_futile", async () => {
    const fromForensics = await kernel().route(req('check', 'UNVERIFIED', { forensics: { can_further_iteration_help: 'no' } }));
    expect(fromForensics).toMatchObject({ decision: 'CONTINUE', next_step_id: 'review', tier: 2, rule: 'loop_futile', needs_human: false });
    expect(fromForensics.warnings[0]).toMatch(/left its microloop at iteration 1/);
    expect(await kernel().route(req('check', 'UNVERIFIED', { envelope: { can_further_iteration_help: 'NO' } }))).toMatchObject({ rule: 'loop_futile', next_step_id: 'review' });
    expect(await kernel().route(req('check', 'UNVERIFIED', { forensics: { can_further_iteration_help: false } }))).toMatchObject({ rule: 'loop_futile' });
    // "yes" changes nothing; a step without a loop ignores the verdict; the exit status still exits at tier 1.
    expect(await kernel().route(req('check', 'UNVERIFIED', { forensics: { can_further_iteration_help: 'yes' } }))).toMatchObject({ rule: 'microloop' });
    expect((await kernel().route(req('linear', 'FAILED', { forensics: { can_further_iteration_help: 'no' } }))).rule).not.toBe('loop_futile');
    expect(await kernel().route(req('check', 'VERIFIED', { forensics: { can_further_iteration_help: 'no' } }))).toMatchObject({ tier: 1, rule: 'loop_exit' });
    // A loop step with no next step ends the flow.
    expect(await kernel().route(req('polish', 'DULL', { envelope: { can_further_iteration_help: 'no' } }))).toMatchObject({ decision: 'TERMINATE', rule: 'loop_futile' });
  });

  it('escalates a futile loop whose flow requires its exit condition (loop.exit_required)', async () => {
    const steps = TEST_FLOWS[0]!.steps.map((s) => (s.id === 'check' ? { ...s, loop: { ...s.loop!, exit_required: true } } : s));
    const k = createKernel({ flows: defineFlows([{ ...TEST_FLOWS[0]!, steps }, TEST_FLOWS[1]!]) });
    const d = await k.route(req('check', 'UNVERIFIED', { forensics: { can_further_iteration_help: 'no' } }));
    expect(d).toMatchObject({ decision: 'ESCALATE', tier: 2, rule: 'loop_futile', needs_human: true, escalation_id: 'esc-run-1-1' });
    expect(d.reason).toMatch(/requires it/);
  });

  it("stamps each decision with the kernel clock's ISO-8601 UTC time", async () => {
    let t = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    const k = createKernel({ flows: testFlows(), clock: () => t++ });
    expect((await k.route(req('write', 'VERIFIED'))).ts).toBe('2026-01-02T03:04:05.678Z');
    expect((await k.route(req('check', 'UNVERIFIED'))).ts).toBe('2026-01-02T03:04:05.679Z');
    const rejected = await k.route(req('check', 'UNVERIFIED', { envelope: { recommendation: 'nope' } }));
    expect(rejected.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});

describe('tiers 4 and 5', () => {
  it('uses the envelope recommendation when it is a legal move', async () => {
    const d = await kernel().route(req('linear', 'FAILED', { iteration: { current: 1, max: 3 }, envelope: { recommendation: 'loop' } }));
    expect(d).toMatchObject({ decision: 'LOOP', next_step_id: 'linear', tier: 4, rule: 'envelope', confidence: 0.6 });
    expect(d.skipped).toEqual([expect.objectContaining({ tier: 3, rule: 'arbiter_unavailable' })]);
  });

  it('rejects an out-of-vocabulary or illegal envelope and escalates with an escalation id', async () => {
    const k = kernel();
    const odd = await k.route(req('linear', 'FAILED', { envelope: { recommendation: 'TRY_HARDER' } }));
    expect(odd).toMatchObject({ decision: 'ESCALATE', tier: 5, needs_human: true, confidence: 0, escalation_id: 'esc-run-1-1' });
    expect(odd.rejected).toEqual([expect.objectContaining({ tier: 4, decision: 'TRY_HARDER', why: expect.stringMatching(/vocabulary/) })]);
    const illegal = await k.route(req('linear', 'FAILED', { envelope: { recommendation: 'LOOP' } }));
    expect(illegal.tier).toBe(5);
    expect(illegal.rejected[0]!.why).toMatch(/not a legal move/);
  });
});

describe('bad input', () => {
  it('names the JSON path of a malformed request and records nothing', async () => {
    const store = new MemoryStore({ keepRecords: true });
    const k = createKernel({ flows: testFlows(), store });
    await expect(k.route({ run_id: 'r', flow: 'build', step_completed: 'write', status: 3 })).rejects.toThrow(/\$\.status: expected string/);
    await expect(k.route({ run_id: 'r', flow: 'build', step_completed: 'write', status: 'x', forensics: { tests: { failed: -1 } } })).rejects.toThrow(/\$\.forensics\.tests\.failed/);
    await expect(k.route({ run_id: 'r', flow: 'nope', step_completed: 'write', status: 'x' })).rejects.toMatchObject({ name: 'ValidationError', code: 'INVALID_REQUEST' });
    await expect(k.route({ run_id: 'r', flow: 'build', step_completed: 'ghost', status: 'x' })).rejects.toThrow(/\$\.step_completed/);
    expect(store.records).toHaveLength(0);
  });

  it('keeps unknown forensic fields but never lets them change the decision', async () => {
    const plain = await kernel().route(req('check', 'UNVERIFIED'));
    const extra = await kernel().route(req('check', 'UNVERIFIED', { forensics: { coverage: 0.1, verdict: 'TERMINATE' } as never }));
    expect(extra).toEqual(plain);
  });
});

describe('ends of the graph', () => {
  it('terminates a linear step with no next on success, and a loop step with no next on exit', async () => {
    const k = kernel();
    expect(await k.route(req('wrap-up', 'PASSED'))).toMatchObject({ decision: 'TERMINATE', tier: 1, rule: 'success_end' });
    expect(await k.route(req('polish', 'shiny', { run_id: 'run-2' }))).toMatchObject({ decision: 'TERMINATE', tier: 1, rule: 'loop_exit_end' });
  });

  it('loops a step onto itself when its loop has no `to`, and offers terminate only where the step can end', async () => {
    const k = kernel();
    expect(await k.route(req('polish', 'dull'))).toMatchObject({ decision: 'LOOP', next_step_id: 'polish' });
    expect((await k.candidates(req('polish', 'dull'))).map((c) => c.id)).toContain('terminate');
    expect((await k.candidates(req('linear', 'FAILED'))).map((c) => c.id)).not.toContain('terminate');
  });

  it('does not take an explicit next_step_id to the loop target as a fast path once the loop is spent', async () => {
    const k = kernel();
    const d = await k.route(req('check', 'UNVERIFIED', { iteration: { current: 3 }, envelope: { next_step_id: 'write' } }));
    expect(d).toMatchObject({ decision: 'CONTINUE', rule: 'max_iterations', next_step_id: 'review' });
  });
});
