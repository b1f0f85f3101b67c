// Issue 28 items 4-6 and issue 22 item 5: a step's own success and failure statuses, a failure falling to a branch
// default, the iteration cap that escalates (on_exhausted: escalate, or an unaddressed HIGH/CRITICAL concern), and
// the routes that need a person in runs, audit and the run summary.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowInput, RouteRequest } from '../../src/contracts/index.js';
import { createKernel, defineFlows, flowWarnings } from '../../src/kernel/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { auditRun, listRuns, resolveEscalation, runSummary } from '../../src/runs/index.js';
import { runCli } from '../support/cli.js';

const charter = { goal: 'Fix the reported bug', key_question: 'Does the bug still reproduce?' };

/** The fix-a-bug flow of examples/first-flow, with the options under test spliced in. */
function fixbug(over: { flow?: Partial<FlowInput>; reproduce?: object; implementLoop?: object; review?: object } = {}): FlowInput {
  return {
    flow: 'fixbug',
    charter,
    steps: [
      { id: 'reproduce', agent: 'reproducer', next: 'implement', ...over.reproduce },
      { id: 'implement', agent: 'coder', loop: { max_iterations: 3, exit_when: ['VERIFIED'], ...over.implementLoop }, next: 'review' },
      { id: 'review', agent: 'reviewer', branches: { APPROVED: 'done', BOUNCE: 'implement' }, next: 'done', ...over.review },
      { id: 'done', agent: 'none', terminal: true },
    ],
    ...over.flow,
  } as FlowInput;
}

const req = (run_id: string, step: string, status: string, extra: Partial<RouteRequest> = {}): RouteRequest => ({ run_id, flow: 'fixbug', step_completed: step, status, ...extra });
const HIGH = { concerns: [{ severity: 'HIGH' as const, description: 'the fix swallows the error' }] };

/** Routes `implement` FAILED three times (the third reaches the cap of 3) and returns the last decision. */
async function toTheCap(flow: FlowInput, forensics?: RouteRequest['forensics'], run = 'cap') {
  const k = createKernel({ flows: defineFlows([flow]) });
  let d;
  for (let i = 0; i < 3; i++) d = await k.route(req(run, 'implement', 'FAILED', forensics ? { forensics } : {}));
  await k.close();
  return d!;
}

describe('28.4: a step declares its success statuses', () => {
  it('without it, REPRODUCED escalates, and the reason says how to make the status route', async () => {
    const k = createKernel({ flows: defineFlows([fixbug()]) });
    const d = await k.route(req('s1', 'reproduce', 'REPRODUCED'));
    expect(d).toMatchObject({ decision: 'ESCALATE', rule: 'no_rule_applies' });
    expect(d.reason).toContain('declare it a success of the step (success: ["REPRODUCED"]) or add a branch for it (branches: {"REPRODUCED": <step>})');
    await k.close();
  });

  it('with success: [REPRODUCED] (any case) it continues; the built-in success words still do', async () => {
    const k = createKernel({ flows: defineFlows([fixbug({ reproduce: { success: ['REPRODUCED'] } })]) });
    expect(await k.route(req('s2', 'reproduce', 'reproduced'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'implement', rule: 'success' });
    expect(await k.route(req('s3', 'reproduce', 'VERIFIED'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'implement', rule: 'success' });
    // A declared failure of a linear step still escalates, without the "how to route" hint (it is meant to).
    const f = createKernel({ flows: defineFlows([fixbug({ reproduce: { success: ['REPRODUCED'], failure: ['NOT_REPRODUCED'] } })]) });
    const d = await f.route(req('s4', 'reproduce', 'NOT_REPRODUCED'));
    expect(d.decision).toBe('ESCALATE');
    expect(d.reason).not.toContain('success: [');
    await Promise.all([k.close(), f.close()]);
  });

  it('validate warns about statuses a step reports that nothing handles (and only those)', () => {
    const flows = defineFlows([fixbug({ reproduce: { statuses: ['REPRODUCED', 'NOT_REPRODUCED', 'VERIFIED'], success: ['REPRODUCED'] } })]);
    // Only the status warnings: the flow's BOUNCE cycle has its own (unstated_bound, tests/kernel/flows/bounds-proof.test.ts).
    const w = flowWarnings(flows).filter((x) => x.code === 'unhandled_status');
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({ flow: 'fixbug', step: 'reproduce', path: ['steps', 0, 'statuses'], code: 'unhandled_status' });
    expect(w[0]!.message).toContain('reports NOT_REPRODUCED, which no rule of the step handles: it would ESCALATE (no_rule_applies)');
    const dir = mkdtempSync(path.join(tmpdir(), 'nk-fh-validate-'));
    try {
      writeFileSync(path.join(dir, 'fixbug.json'), JSON.stringify(fixbug({ reproduce: { statuses: ['REPRODUCED', 'NOT_REPRODUCED'], success: ['REPRODUCED'] } })));
      const r = runCli(['validate', dir]);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('warning: fixbug: $.steps[0].statuses: step reproduce reports NOT_REPRODUCED, which no rule of the step handles');
      expect((JSON.parse(runCli(['validate', dir, '--json']).stdout).warnings as string[]).filter((x) => x.includes('no rule of the step handles'))).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('28.5: a failure-looking status falling to a branch default', () => {
  it('FAILED, ERROR and BLOCKED (any case) and the step\'s declared failures take the default with a warning and needs_human', async () => {
    const k = createKernel({ flows: defineFlows([fixbug({ review: { failure: ['REJECTED'] } })]) });
    for (const status of ['FAILED', 'error', 'Blocked', 'REJECTED']) {
      const d = await k.route(req(`f-${status}`, 'review', status));
      expect(d).toMatchObject({ decision: 'CONTINUE', next_step_id: 'done', rule: 'branch_default', needs_human: true });
      expect(d.warnings[0]).toContain(`review reported ${status}, a failure, which matches no branch; taking its default done`);
    }
    // Any other unmatched status takes the default as before: no warning, no person.
    expect(await k.route(req('f-unclear', 'review', 'UNCLEAR'))).toMatchObject({ decision: 'CONTINUE', rule: 'branch_default', needs_human: false, warnings: [] });
    await k.close();
  });

  it('on_failure_default: off (flow or step) leaves a failure to the later tiers: without an arbiter, an escalation', async () => {
    for (const over of [{ flow: { on_failure_default: 'off' as const } }, { review: { on_failure_default: 'off' } }]) {
      const k = createKernel({ flows: defineFlows([fixbug(over)]) });
      expect(await k.route(req('off', 'review', 'FAILED'))).toMatchObject({ decision: 'ESCALATE', tier: 5, rule: 'no_rule_applies' });
      expect(await k.route(req('off-2', 'review', 'UNCLEAR'))).toMatchObject({ decision: 'CONTINUE', rule: 'branch_default' });
      await k.close();
    }
  });
});

describe('28.6: running out of loop iterations', () => {
  it('advances with a warning and needs_human by default (seed 003 tier 2)', async () => {
    expect(await toTheCap(fixbug())).toMatchObject({ decision: 'CONTINUE', next_step_id: 'review', rule: 'max_iterations', needs_human: true });
  });

  it('on_exhausted: escalate on the loop, or on the flow, opens an escalation instead (the loop overrides the flow)', async () => {
    const loop = await toTheCap(fixbug({ implementLoop: { on_exhausted: 'escalate' } }));
    expect(loop).toMatchObject({ decision: 'ESCALATE', tier: 2, rule: 'iteration_cap_escalate', escalation_id: 'esc-cap-3', needs_human: true });
    expect(loop.reason).toContain('on_exhausted: escalate');
    expect(await toTheCap(fixbug({ flow: { on_exhausted: 'escalate' } }))).toMatchObject({ decision: 'ESCALATE', rule: 'iteration_cap_escalate' });
    expect(await toTheCap(fixbug({ flow: { on_exhausted: 'escalate' }, implementLoop: { on_exhausted: 'advance' } }))).toMatchObject({ decision: 'CONTINUE', rule: 'max_iterations' });
  });
});

describe('22.5: at the iteration cap, an unaddressed HIGH or CRITICAL concern escalates', () => {
  it('HIGH or CRITICAL unaddressed: ESCALATE iteration_cap_open_concern naming the concern; before the cap, the loop goes on', async () => {
    const k = createKernel({ flows: defineFlows([fixbug()]) });
    expect(await k.route(req('c1', 'implement', 'FAILED', { forensics: HIGH }))).toMatchObject({ decision: 'LOOP', rule: 'microloop' });
    await k.close();
    const d = await toTheCap(fixbug(), HIGH);
    expect(d).toMatchObject({ decision: 'ESCALATE', tier: 2, rule: 'iteration_cap_open_concern', escalation_id: 'esc-cap-3', needs_human: true });
    expect(d.reason).toContain('a HIGH concern is not addressed ("the fix swallows the error")');
    expect(await toTheCap(fixbug(), { concerns: [{ severity: 'LOW', description: 'naming' }, { severity: 'CRITICAL', description: 'data loss' }] })).toMatchObject({ rule: 'iteration_cap_open_concern' });
  });

  it('anything else advances with the warning as before: MEDIUM, an addressed HIGH, or a flow that opts out', async () => {
    expect(await toTheCap(fixbug(), { concerns: [{ severity: 'MEDIUM', description: 'naming' }] })).toMatchObject({ decision: 'CONTINUE', rule: 'max_iterations' });
    expect(await toTheCap(fixbug(), { concerns: [{ ...HIGH.concerns[0]!, addressed: true }] })).toMatchObject({ decision: 'CONTINUE', rule: 'max_iterations' });
    expect(await toTheCap(fixbug({ flow: { on_open_concern: 'advance' } }), HIGH)).toMatchObject({ decision: 'CONTINUE', rule: 'max_iterations' });
    expect(await toTheCap(fixbug({ implementLoop: { on_open_concern: 'advance' } }), HIGH)).toMatchObject({ decision: 'CONTINUE', rule: 'max_iterations' });
  });
});

describe('routes that need a person: runs, audit, the run summary (SQLite ledger)', () => {
  let dir = '';
  beforeAll(() => void (dir = mkdtempSync(path.join(tmpdir(), 'nk-fh-ledger-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the escalation at the cap is open in the ledger, resolve acts on it, and runs / audit count and list what needs a person', async () => {
    const file = path.join(dir, 'ledger.sqlite');
    const flows = defineFlows([fixbug()]);
    const ledger = openLedger(file);
    const k = createKernel({ flows, store: ledger });
    // Run a: the cap advances (CONTINUE, needs_human) and a failure takes the review's default: 2 routes need a person.
    for (let i = 0; i < 3; i++) await k.route(req('a', 'implement', 'FAILED'));
    await k.route(req('a', 'review', 'FAILED'));
    // Run b: the cap escalates on an open HIGH concern.
    let esc;
    for (let i = 0; i < 3; i++) esc = await k.route(req('b', 'implement', 'FAILED', { forensics: HIGH }));
    await k.close();
    const reader = openLedger(file);
    try {
      const open = (await reader.runEscalations('b')).find((e) => e.escalation_id === esc!.escalation_id);
      expect(open?.status).toBe('open');
      const resolved = await resolveEscalation(reader, flows, { escalation_id: esc!.escalation_id!, decision: 'CONTINUE', next: 'review', by: 'ana', reason: 'a false alarm' });
      expect(resolved.resolution).toMatchObject({ decision: 'CONTINUE', next_step_id: 'review' });
      const byId = new Map((await listRuns(reader)).map((r) => [r.run_id, r]));
      expect(byId.get('a')).toMatchObject({ needs_human: 2, offroad: 2 });
      expect(byId.get('b')).toMatchObject({ needs_human: 1 });
      expect((await runSummary(reader, 'a')).needs_human).toBe(2);
      const audit = await auditRun(reader, 'a');
      expect(audit.needs_human!.map((e) => `${e.seq} ${e.decision} ${e.rule}`)).toEqual(['3 CONTINUE max_iterations', '4 CONTINUE branch_default']);
    } finally {
      await reader.close();
    }
    const runs = runCli(['runs', '--ledger', file]);
    expect(runs.stdout.split('\n')[0]).toMatch(/OPEN ESC\s+NEEDS HUMAN\s+STATUS/);
    expect(runs.stdout).toMatch(/^a\s+fixbug\s+4\s+2\s+0\s+0\.0000\s+0\s+2\s+active/m);
    const audit = runCli(['audit', 'a', '--ledger', file]);
    expect(audit.stdout).toMatch(/Routes that need a person \(2\):\n\s+#3\s+fixbug\/implement\s+CONTINUE\s+review\s+tier 2\s+max_iterations: /);
  });
});
