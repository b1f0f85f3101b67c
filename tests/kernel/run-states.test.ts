// Whole runs held while they run (issue 36; docs/run-states.md): bounds that escalate instead of looping on, reports
// from the step the run was sent to (or an explicit restart), no route after the end or past an open escalation,
// detours that return where they say, and forensics a person would type.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Concern, Envelope, Forensics, GitStatusForensics, Iteration, LintForensics, TestsForensics, TypesForensics, type Decision, type FlowInput, type RouteRequest } from '../../src/contracts/index.js';
import { KNOWN_FIELDS } from '../../src/kernel/forensic-checks.js';
import { createKernel, defineFlows, loadFlows, MemoryStore, type Kernel } from '../../src/kernel/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { replayRun, resolveEscalation } from '../../src/runs/index.js';
import { CHARTERS } from '../support/kernel-fixtures.js';

const charter = { goal: 'Ship the change', key_question: 'Does it work?' };

/** A review that can bounce back to the implementation. */
const REVIEW: FlowInput = {
  flow: 'review',
  charter,
  steps: [
    { id: 'impl', agent: 'coder', next: 'review' },
    { id: 'review', agent: 'critic', branches: { APPROVED: 'done', BOUNCE: 'impl', CHECK: 'check' }, next: 'done' },
    { id: 'check', agent: 'critic', next: 'done' },
    { id: 'done', agent: 'reporter', terminal: true },
  ],
};

/** A parent flow that injects `sub` when its upstream diverged twice, and a sub flow with a returning fixer. */
const NESTED: FlowInput[] = [
  {
    flow: 'main',
    charter,
    steps: [
      { id: 'work', agent: 'coder', next: 'finish', loop: { max_iterations: 3, exit_when: ['VERIFIED'] } },
      { id: 'finish', agent: 'reporter', terminal: true },
    ],
    detours: { upstream_diverged: { flow: 'sub' } },
    inject_flows: ['sub'],
  },
  {
    flow: 'sub',
    charter: { goal: 'Sync with upstream', key_question: 'Is the branch current?' },
    steps: [
      { id: 's1', agent: 'operator', next: 'check', loop: { max_iterations: 3, exit_when: ['VERIFIED'] } },
      { id: 'check', agent: 'operator', branches: { PATCH: 'patch', DONE: 'end' } },
      { id: 'patch', agent: 'operator', next: 'end' },
      { id: 'fixer', agent: 'linter', returns: true },
      { id: 'end', agent: 'reporter', terminal: true },
    ],
    detours: { lint_errors: 'fixer' },
  },
];

const kernels: Kernel[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const k of kernels.splice(0)) await k.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(flows: FlowInput[], store = new MemoryStore({ keepRecords: true }), strict = false) {
  const set = defineFlows(flows);
  const kernel = createKernel({ flows: set, store, clock: () => 0, ...(strict ? { strict } : {}) });
  kernels.push(kernel);
  return { kernel, store, flows: set };
}

const r = (flow: string, step: string, status: string, extra: Partial<RouteRequest> = {}): RouteRequest => ({ run_id: 'run', flow, step_completed: step, status, ...extra });
const codeOf = (p: Promise<unknown>) => p.then(() => 'routed', (e: { code?: string; message?: string }) => `${e.code}: ${e.message}`);

describe('bounds held while a run runs', () => {
  it('escalates a review that keeps bouncing at its visit cap, naming the cycle and the count (case 1)', async () => {
    const { kernel } = open([{ ...REVIEW, steps: REVIEW.steps.map((s) => (s.id === 'review' ? { ...s, max_visits: 3 } : s)) }]);
    const decisions: Decision[] = [];
    for (let i = 0; i < 10; i++) {
      decisions.push(await kernel.route(r('review', 'impl', 'VERIFIED')));
      if (decisions.at(-1)!.decision !== 'CONTINUE') break;
      decisions.push(await kernel.route(r('review', 'review', 'BOUNCE')));
    }
    const last = decisions.at(-1)!;
    expect(decisions.slice(0, -1).every((d) => d.decision === 'CONTINUE')).toBe(true);
    expect(last).toMatchObject({ decision: 'ESCALATE', rule: 'visit_cap', needs_human: true, tier: 2 });
    expect(last.reason).toContain('review would be visited a 4th time, past its max_visits 3');
    expect(last.reason).toContain('review → impl → review');
    expect(last.rejected).toContainEqual(expect.objectContaining({ rule: 'visit_cap', decision: 'CONTINUE', target: 'review' }));
    expect(decisions).toHaveLength(7);
  });

  it("stops the shipped build flow's bouncing review: VERIFIED then BOUNCE escalates within the default bound", async () => {
    const flows = await loadFlows(CHARTERS);
    const kernel = createKernel({ flows });
    kernels.push(kernel);
    const run = (step: string, status: string) => kernel.route({ run_id: 'b', flow: 'build', step_completed: step, status });
    let last: Decision | undefined;
    let routes = 0;
    while (routes < 120) {
      last = await run('build-step-3', 'VERIFIED');
      routes++;
      if (last.decision !== 'CONTINUE') break;
      last = await run('build-review', 'BOUNCE');
      routes++;
      if (last.decision !== 'CONTINUE') break;
    }
    expect(last).toMatchObject({ decision: 'ESCALATE', rule: 'visit_cap' });
    expect(last!.reason).toMatch(/build-review → build-step-3 → build-review|build-step-3 → build-review → build-step-3/);
    expect(routes).toBeLessThan(120);
  });

  it('escalates past the run-wide route budget (route_budget)', async () => {
    const { kernel } = open([{ ...REVIEW, bounds: { max_routes: 5 } }]);
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const d = await kernel.route(r('review', i % 2 === 0 ? 'impl' : 'review', i % 2 === 0 ? 'VERIFIED' : 'BOUNCE'));
      seen.push(`${d.decision}:${d.rule}`);
    }
    const d = await kernel.route(r('review', 'review', 'BOUNCE'));
    expect(seen.every((s) => s.startsWith('CONTINUE'))).toBe(true);
    expect(d).toMatchObject({ decision: 'ESCALATE', rule: 'route_budget', seq: 6 });
    expect(d.reason).toContain('past its budget of 5');
  });

  it('escalates a side trip nested deeper than max_depth (depth_cap)', async () => {
    const flows = [NESTED[0]!, { ...NESTED[1]!, bounds: { max_depth: 1 } }];
    const { kernel } = open(flows);
    const behind = { forensics: { git_status: { behind_upstream: 2 } } };
    expect(await kernel.route(r('main', 'work', 'UNVERIFIED', behind))).toMatchObject({ decision: 'LOOP' });
    expect(await kernel.route(r('main', 'work', 'UNVERIFIED', behind))).toMatchObject({ decision: 'INJECT_FLOW', next_flow: 'sub', next_step_id: 's1' });
    const lint = { forensics: { lint: { errors: 2 } } };
    expect(await kernel.route(r('sub', 's1', 'FAILED', lint))).toMatchObject({ decision: 'LOOP' });
    const d = await kernel.route(r('sub', 's1', 'FAILED', lint));
    expect(d).toMatchObject({ decision: 'ESCALATE', rule: 'depth_cap' });
    expect(d.reason).toContain('2 deep, past bounds.max_depth 1 of flow sub (main/work → sub/s1)');
  });
});

describe('where the kernel sent the run', () => {
  it('refuses a report from another step with the step expected, and records nothing (case 2)', async () => {
    const { kernel, store } = open([REVIEW]);
    await kernel.route(r('review', 'impl', 'VERIFIED'));
    const before = await kernel.runState('run');
    const refused = kernel.route(r('review', 'done', 'DONE'));
    await expect(refused).rejects.toMatchObject({ name: 'StepMismatchError', code: 'STEP_MISMATCH', expected: { flow: 'review', step: 'review' }, reported: { flow: 'review', step: 'done' } });
    await expect(kernel.route(r('review', 'done', 'DONE'))).rejects.toThrow(/was sent to review\/review, but the report is from review\/done; nothing was recorded/);
    expect(store.records).toHaveLength(1);
    expect(await kernel.runState('run')).toEqual(before);
    expect(await kernel.route(r('review', 'review', 'APPROVED'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'done', seq: 2 });
  });

  it('accepts a report with restart from a step of the run’s flow and records it; refuses one from another flow (case 3)', async () => {
    const { kernel, store } = open([REVIEW, ...NESTED]);
    await kernel.route(r('review', 'impl', 'VERIFIED'));
    const d = await kernel.route(r('review', 'check', 'VERIFIED', { restart: { reason: 'the runner crashed and re-ran check' } }));
    expect(d).toMatchObject({ decision: 'CONTINUE', next_step_id: 'done', seq: 2 });
    expect(store.records[1]!.request.restart).toEqual({ reason: 'the runner crashed and re-ran check' });
    expect(await codeOf(kernel.route(r('main', 'work', 'VERIFIED', { restart: { reason: 'elsewhere' } })))).toMatch(/^STEP_MISMATCH: .*a restart must be from a step of that flow/);
    expect(store.records).toHaveLength(2);
  });

  it('accepts any step of the flow as the first report of a new run (runners resume)', async () => {
    const { kernel } = open([REVIEW]);
    expect(await kernel.route(r('review', 'review', 'APPROVED'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'done' });
  });

  it('accepts the looping step again after a LOOP back to another step (a microloop run quietly)', async () => {
    const { kernel } = open([{ flow: 'pair', charter, steps: [
      { id: 'author', agent: 'a', next: 'critic' },
      { id: 'critic', agent: 'c', next: 'done', loop: { to: 'author', max_iterations: 3, exit_when: ['VERIFIED'] } },
      { id: 'done', agent: 'r', terminal: true },
    ] }]);
    expect(await kernel.route(r('pair', 'critic', 'UNVERIFIED'))).toMatchObject({ decision: 'LOOP', next_step_id: 'author' });
    expect(await kernel.route(r('pair', 'critic', 'UNVERIFIED'))).toMatchObject({ decision: 'LOOP', iteration: 2 });
    expect(await kernel.route(r('pair', 'author', 'VERIFIED'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'critic' });
    expect(await codeOf(kernel.route(r('pair', 'done', 'DONE')))).toMatch(/^STEP_MISMATCH/);
  });
});

describe('the end and a person', () => {
  it('refuses a route after TERMINATE (case 3 of the issue: RUN_ENDED)', async () => {
    const { kernel, store } = open([REVIEW]);
    await kernel.route(r('review', 'review', 'APPROVED'));
    expect(await kernel.route(r('review', 'done', 'DONE'))).toMatchObject({ decision: 'TERMINATE' });
    expect(await codeOf(kernel.route(r('review', 'impl', 'VERIFIED')))).toBe('RUN_ENDED: run "run" ended at seq 2 (TERMINATE); nothing was recorded (start a new run id for new work)');
    expect(await codeOf(kernel.route(r('review', 'done', 'DONE', { restart: { reason: 'again' } })))).toMatch(/^RUN_ENDED/);
    expect(store.records).toHaveLength(2);
    expect((await kernel.runState('run'))!.lifecycle).toBe('ended');
  });

  it('refuses routes during an open escalation with its id, then routes where the resolution says (case 5)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nk-runstates-'));
    dirs.push(dir);
    const ledger = openLedger(path.join(dir, 'l.sqlite'));
    const { kernel, flows } = open([REVIEW], ledger as unknown as MemoryStore);
    const esc = await kernel.route(r('review', 'impl', 'HUH'));
    expect(esc).toMatchObject({ decision: 'ESCALATE', escalation_id: 'esc-run-1' });
    for (const step of ['review', 'impl', 'done']) expect(await codeOf(kernel.route(r('review', step, 'VERIFIED')))).toMatch(/^ESCALATION_OPEN: run "run" awaits a person: escalation esc-run-1 is open/);
    expect((await ledger.runEscalations('run'))).toHaveLength(1);
    expect((await kernel.runState('run'))!.seq).toBe(1);
    await resolveEscalation(ledger, flows, { escalation_id: 'esc-run-1', decision: 'CONTINUE', next: 'check', by: 'ann', reason: 'check it by hand' });
    expect(await codeOf(kernel.route(r('review', 'review', 'APPROVED')))).toMatch(/^STEP_MISMATCH: run "run" was sent to review\/check/);
    expect(await kernel.route(r('review', 'check', 'VERIFIED'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'done', seq: 2 });
    expect(await kernel.route(r('review', 'done', 'DONE'))).toMatchObject({ decision: 'TERMINATE', seq: 3 });
    await kernel.close();
    kernels.length = 0;
    // The recording replays to the same decisions, the person's resolution included, and ends where it ended.
    const reader = openLedger(path.join(dir, 'l.sqlite'));
    try {
      const report = await replayRun(reader, 'run', flows);
      expect(report).toMatchObject({ routes: 3, identical: true, divergences: [] });
    } finally {
      await reader.close();
    }
  });

  it('ends the run when a person resolves its escalation with TERMINATE', async () => {
    const { kernel, store, flows } = open([REVIEW]);
    await kernel.route(r('review', 'impl', 'HUH'));
    await resolveEscalation(store, flows, { escalation_id: 'esc-run-1', decision: 'TERMINATE', by: 'ann', reason: 'abandon' });
    expect(await codeOf(kernel.route(r('review', 'review', 'APPROVED')))).toMatch(/^RUN_ENDED/);
  });
});

describe('return points', () => {
  it('returns from a detour inside an injected flow, then from the injected flow to its parent (case 4)', async () => {
    const { kernel } = open(NESTED);
    const behind = { forensics: { git_status: { behind_upstream: 2 } } };
    const lint = { forensics: { lint: { errors: 2 } } };
    await kernel.route(r('main', 'work', 'UNVERIFIED', behind));
    expect(await kernel.route(r('main', 'work', 'UNVERIFIED', behind))).toMatchObject({ decision: 'INJECT_FLOW', next_step_id: 's1', return_to: 'work' });
    await kernel.route(r('sub', 's1', 'FAILED', lint));
    expect(await kernel.route(r('sub', 's1', 'FAILED', lint))).toMatchObject({ decision: 'DETOUR', detour_target: 'fixer', return_to: 's1' });
    expect((await kernel.runState('run'))!.returns.map((p) => `${p.via}:${p.flow}/${p.step}`)).toEqual(['flow:main/work', 'step:sub/s1']);
    expect(await kernel.route(r('sub', 'fixer', 'DONE'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 's1', rule: 'utility_return' });
    expect(await kernel.route(r('sub', 's1', 'VERIFIED'))).toMatchObject({ next_step_id: 'check' });
    expect(await kernel.route(r('sub', 'check', 'DONE'))).toMatchObject({ next_step_id: 'end' });
    expect(await kernel.route(r('sub', 'end', 'DONE'))).toMatchObject({ decision: 'CONTINUE', next_flow: 'main', next_step_id: 'work', rule: 'injected_flow_done' });
    expect((await kernel.runState('run'))!.returns).toEqual([]);
  });

  it("returns where a person's DETOUR says, even to a step without returns: true, inside an injected flow", async () => {
    const { kernel, store, flows } = open(NESTED);
    const behind = { forensics: { git_status: { behind_upstream: 2 } } };
    await kernel.route(r('main', 'work', 'UNVERIFIED', behind));
    await kernel.route(r('main', 'work', 'UNVERIFIED', behind));
    await kernel.route(r('sub', 's1', 'VERIFIED'));
    const esc = await kernel.route(r('sub', 'check', 'HUH'));
    expect(esc.decision).toBe('ESCALATE');
    await resolveEscalation(store, flows, { escalation_id: esc.escalation_id!, decision: 'DETOUR', next: 'patch', by: 'ann', reason: 'patch it first' });
    // patch's own next is `end`: the detour returns to check instead, as its return point says.
    expect(await kernel.route(r('sub', 'patch', 'DONE'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'check', rule: 'utility_return' });
    expect(await kernel.route(r('sub', 'check', 'DONE'))).toMatchObject({ next_step_id: 'end' });
    expect(await kernel.route(r('sub', 'end', 'DONE'))).toMatchObject({ decision: 'CONTINUE', next_flow: 'main', next_step_id: 'work' });
    expect(await kernel.route(r('main', 'work', 'VERIFIED'))).toMatchObject({ next_step_id: 'finish' });
    expect(await kernel.route(r('main', 'finish', 'DONE'))).toMatchObject({ decision: 'TERMINATE' });
  });
});

describe('forensics a person would type (case 7)', () => {
  const LOOPY: FlowInput = { flow: 'loopy', charter, steps: [{ id: 'impl', agent: 'coder', next: 'done', loop: { max_iterations: 3, exit_when: ['VERIFIED'] } }, { id: 'done', agent: 'r', terminal: true }] };
  const concern = { concern: [{ severity: 'HIGH', description: 'SQL injection in the login form' }] } as never;

  it('at the loop cap, says a misspelt concern field was not read instead of silently continuing', async () => {
    const { kernel } = open([LOOPY]);
    await kernel.route(r('loopy', 'impl', 'UNVERIFIED'));
    await kernel.route(r('loopy', 'impl', 'UNVERIFIED'));
    const d = await kernel.route(r('loopy', 'impl', 'UNVERIFIED', { forensics: concern }));
    expect(d).toMatchObject({ decision: 'CONTINUE', rule: 'max_iterations', needs_human: true });
    expect(d.warnings).toContainEqual('forensics.concern is not a field the kernel reads, so it was not read; did you mean "concerns"? ($.forensics.concerns)');
    // Spelt right, the same route escalates.
    const { kernel: right } = open([LOOPY]);
    await right.route(r('loopy', 'impl', 'UNVERIFIED'));
    await right.route(r('loopy', 'impl', 'UNVERIFIED'));
    expect(await right.route(r('loopy', 'impl', 'UNVERIFIED', { forensics: { concerns: [{ severity: 'HIGH', description: 'x' }] } }))).toMatchObject({ decision: 'ESCALATE', rule: 'iteration_cap_open_concern' });
  });

  it('warns about `test` for `tests`, a misspelling one level down, and numbers that contradict each other', async () => {
    const { kernel } = open([LOOPY]);
    const d = await kernel.route(r('loopy', 'impl', 'UNVERIFIED', { forensics: { test: { failed: 1 }, lint: { erors: 3, errors: 1, fixable: 2 } } as never, iteration: { current: 5, max: 3 } }));
    expect(d.warnings.join('\n')).toContain('forensics.test is not a field the kernel reads, so it was not read; did you mean "tests"?');
    expect(d.warnings.join('\n')).toContain('forensics.lint.erors is not a field the kernel reads, so it was not read; did you mean "errors"?');
    expect(d.warnings.join('\n')).toContain('iteration.current 5 is above iteration.max 3');
    expect(d.warnings.join('\n')).toContain('forensics.lint.fixable 2 fixable errors is more than lint.errors 1');
    // A field far from any known one is kept without a word.
    const plain = await kernel.route(r('loopy', 'impl', 'UNVERIFIED', { run_id: 'run-2', forensics: { coverage: 0.4 } as never }));
    expect(plain.warnings).toEqual([]);
  });

  it('knows the fields the request schema names, at every level', () => {
    const keys = (schema: { shape: object }) => Object.keys(schema.shape).sort();
    const el = (schema: unknown) => ((schema as { unwrap: () => { element: { shape: object } } }).unwrap().element);
    expect([...KNOWN_FIELDS.forensics].sort()).toEqual(keys(Forensics));
    expect([...KNOWN_FIELDS.tests].sort()).toEqual(keys(TestsForensics));
    expect([...KNOWN_FIELDS.failure].sort()).toEqual(keys(el(TestsForensics.shape.failures)));
    expect([...KNOWN_FIELDS.lint].sort()).toEqual(keys(LintForensics));
    expect([...KNOWN_FIELDS.finding].sort()).toEqual(keys(el(LintForensics.shape.findings)));
    expect([...KNOWN_FIELDS.types].sort()).toEqual(keys(TypesForensics));
    expect([...KNOWN_FIELDS.git_status].sort()).toEqual(keys(GitStatusForensics));
    expect([...KNOWN_FIELDS.concern].sort()).toEqual(keys(Concern));
    expect([...KNOWN_FIELDS.iteration].sort()).toEqual(keys(Iteration));
    expect([...KNOWN_FIELDS.envelope].sort()).toEqual(keys(Envelope));
  });

  it('refuses them with strict, typed, recording nothing', async () => {
    const { kernel, store } = open([LOOPY], new MemoryStore({ keepRecords: true }), true);
    await expect(kernel.route(r('loopy', 'impl', 'UNVERIFIED', { forensics: concern }))).rejects.toMatchObject({ code: 'INVALID_FORENSICS', issues: [expect.objectContaining({ path: ['forensics', 'concern'], code: 'misspelt_field', field: 'concern', suggestion: 'concerns' })] });
    await expect(kernel.route(r('loopy', 'impl', 'UNVERIFIED', { iteration: { current: 4, max: 3 } }))).rejects.toMatchObject({ code: 'INVALID_REQUEST', issues: [expect.objectContaining({ path: ['iteration', 'current'], code: 'contradiction' })] });
    expect(store.records).toHaveLength(0);
    expect(await kernel.route(r('loopy', 'impl', 'UNVERIFIED', { forensics: { tests: { failed: 1 } } }))).toMatchObject({ decision: 'LOOP' });
  });
});
