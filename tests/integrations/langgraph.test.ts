// navkernel/langgraph: a real LangGraph.js StateGraph generated from a flow with a microloop, a detour and an
// escalation, compiled with LangGraph's real SQLite checkpointer, routed end to end by a kernel on a real SQLite
// ledger; then `navkernel audit`, `replay` and `runs` (real CLI processes) on that run agree with what the graph did,
// and the interrupted graph, resumed with a person's answer, goes on where the person said.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Annotation, Command, MemorySaver } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kernelGraph, NavkernelAnnotation, type StepReport } from '../../src/integrations/langgraph/index.js';
import { createKernel, defineFlows, loadFlows, type Kernel } from '../../src/kernel/index.js';
import { openLedger, type SqliteLedger } from '../../src/ledger/index.js';
import type { ArbiterPort } from '../../src/contracts/index.js';
import { runCli } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';

const FLOWS = path.join(ROOT, 'examples', 'custom-flow');
const LINT: StepReport['forensics'] = { lint: { errors: 3, output: 'eslint: 3 errors' } };

const State = Annotation.Root({
  ...NavkernelAnnotation.spec,
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
type S = typeof State.State;

/** A run's routes as the ledger holds them: `[flow/]step DECISION next`. */
const moves = async (l: SqliteLedger, run: string, { flow = false } = {}) => (await l.routes(run, 0, 100)).map((r) => `${flow ? `${r.flow}/` : ''}${r.step} ${r.decision} ${r.next_step ?? '-'}`);

describe('navkernel/langgraph: a StateGraph routed by the kernel', () => {
  let dir: string;
  let ledgerFile: string;
  let ledger: SqliteLedger;
  let kernel: Kernel;
  let checkpointer: SqliteSaver;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'nk-lg-'));
    ledgerFile = path.join(dir, 'ledger.sqlite');
    ledger = openLedger(ledgerFile, { runBase: path.join(dir, 'runs') });
    kernel = createKernel({ flows: await loadFlows(FLOWS), store: ledger });
    checkpointer = SqliteSaver.fromConnString(path.join(dir, 'checkpoints.sqlite'));
  });

  afterAll(async () => {
    await kernel?.close();
    checkpointer?.db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A node per step of the release flow; each reports the next status of its script and logs that it ran. */
  function graphWith(scripts: Record<string, StepReport[]>) {
    const node = (step: string) => async () => {
      const report = scripts[step]!.shift();
      if (!report) throw new Error(`${step} ran more often than scripted`);
      return { report, log: [`${step} ${report.status}`] };
    };
    return kernelGraph({ kernel, ledger, flow: 'release', state: State, nodes: Object.fromEntries(['package', 'check', 'review', 'fix-lint', 'publish'].map((s) => [s, node(s)])) }).compile({ checkpointer });
  }

  it('runs a microloop, a detour and an escalation; the resumed graph goes where the person said; audit and replay agree', async () => {
    const app = graphWith({
      package: [{ status: 'VERIFIED' }, { status: 'FAILED' }],
      check: [{ status: 'FAILED', forensics: LINT }, { status: 'FAILED', forensics: LINT }, { status: 'PASSED' }],
      'fix-lint': [{ status: 'DONE' }],
      review: [{ status: 'CHANGES' }, { status: 'APPROVED' }],
      publish: [{ status: 'DONE' }],
    });
    const config = { configurable: { thread_id: 'lg-run-1' } };
    const first = (await app.invoke({}, config)) as S & { __interrupt__?: { value: { escalation_id: string; step: string; problem?: string } }[] };
    // microloop (check LOOP), detour (fix-lint, then back to check), branch (review CHANGES → package), then ESCALATE.
    expect(first.log).toEqual(['package VERIFIED', 'check FAILED', 'check FAILED', 'fix-lint DONE', 'check PASSED', 'review CHANGES', 'package FAILED']);
    const question = first.__interrupt__![0]!.value;
    expect(question).toMatchObject({ escalation_id: 'esc-lg-run-1-7', step: 'package', run_id: 'lg-run-1', flow: 'release' });
    expect((await app.getState(config)).next).toEqual(['navkernel_escalation']);

    // An answer the flow graph refuses asks again, saying why; nothing is recorded.
    const refused = (await app.invoke(new Command({ resume: { decision: 'CONTINUE', next: 'nowhere', by: 'ana', reason: 'try' } }), config)) as typeof first;
    expect(refused.__interrupt__![0]!.value.problem).toMatch(/step nowhere is not in flow release/);
    expect((await ledger.escalation(question.escalation_id))!.status).toBe('open');

    // The person says: skip the checks, go to review. The graph goes on there, to the end.
    const done = (await app.invoke(new Command({ resume: { decision: 'CONTINUE', next: 'review', by: 'ana', reason: 'packaging flake, checked by hand' } }), config)) as typeof first;
    expect(done.__interrupt__).toBeUndefined();
    expect(done.log.slice(7)).toEqual(['review APPROVED', 'publish DONE']);
    expect((await app.getState(config)).next).toEqual([]);

    // The ledger holds the graph's routing: one route per node run, in order.
    const rows = await ledger.routes('lg-run-1', 0, 100);
    expect(await moves(ledger, 'lg-run-1')).toEqual([
      'package CONTINUE check',
      'check LOOP check',
      'check DETOUR fix-lint',
      'fix-lint CONTINUE check',
      'check CONTINUE review',
      'review CONTINUE package',
      'package ESCALATE -',
      'review CONTINUE publish',
      'publish TERMINATE -',
    ]);
    expect(rows.map((r) => r.step)).toEqual(done.log.map((l) => l.split(' ')[0]));

    // The CLI, in other processes, on the same ledger file: audit, replay and runs agree with what the graph did.
    const audit = runCli(['audit', 'lg-run-1', '--json', '--ledger', ledgerFile]);
    expect(audit.code, audit.stderr + audit.stdout).toBe(0);
    const report = JSON.parse(audit.stdout) as { run: { steps: number; status: string }; offroad: { step: string; decision: string }[]; escalations: { resolution: { decision: string; next_step_id: string; by: string } }[] };
    expect(report.run).toMatchObject({ steps: 9, status: 'terminated' });
    expect(report.offroad.map((o) => `${o.step} ${o.decision}`)).toEqual(['check LOOP', 'check DETOUR', 'package ESCALATE']);
    expect(report.escalations.map((e) => e.resolution)).toEqual([expect.objectContaining({ decision: 'CONTINUE', next_step_id: 'review', by: 'ana' })]);
    const replay = runCli(['replay', 'lg-run-1', '--json', '--flows', FLOWS, '--ledger', ledgerFile]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ run_id: 'lg-run-1', routes: 9, identical: true, divergences: [] });
    const runs = runCli(['runs', '--json', '--ledger', ledgerFile]);
    expect(runs.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { run_id: string }).run_id)).toContain('lg-run-1');
  });

  it('INJECT_FLOW runs the injected flow\'s steps as nodes and comes back to the step that asked (MemorySaver)', async () => {
    const flows = defineFlows([
      { flow: 'ship', charter: { goal: 'ship the change', key_question: 'is it shipped?' }, inject_flows: ['fixup'], steps: [{ id: 'build', agent: 'builder', next: 'deploy' }, { id: 'deploy', agent: 'deployer', terminal: true }] },
      { flow: 'fixup', charter: { goal: 'fix the build so the change can ship', key_question: 'does the build pass?' }, steps: [{ id: 'diagnose', agent: 'doctor', next: 'patch' }, { id: 'patch', agent: 'patcher', terminal: true }] },
    ]);
    const shipLedger = openLedger(path.join(dir, 'ship.sqlite'), { runBase: path.join(dir, 'ship-runs') });
    const shipKernel = createKernel({ flows, store: shipLedger });
    try {
      const builds: StepReport[] = [{ status: 'FAILED', envelope: { recommendation: 'INJECT_FLOW', purpose: 'fix the build so the change can ship' } }, { status: 'VERIFIED' }];
      const node = (step: string, report: () => StepReport) => async () => ({ report: report(), log: [step] });
      const nodes = { build: node('build', () => builds.shift()!), deploy: node('deploy', () => ({ status: 'DONE' })), diagnose: node('diagnose', () => ({ status: 'VERIFIED' })), patch: node('patch', () => ({ status: 'VERIFIED' })) };
      // The injected flow's steps are part of the graph: leaving one out is refused.
      expect(() => kernelGraph({ kernel: shipKernel, ledger: shipLedger, flow: 'ship', state: State, nodes: { build: nodes.build, deploy: nodes.deploy } })).toThrow(expect.objectContaining({ code: 'MISSING_NODE' }));
      const app = kernelGraph({ kernel: shipKernel, ledger: shipLedger, flow: 'ship', state: State, nodes }).compile({ checkpointer: new MemorySaver() });
      const out = await app.invoke({}, { configurable: { thread_id: 'ship-1' } });
      expect(out.log).toEqual(['build', 'diagnose', 'patch', 'build', 'deploy']);
      expect(await moves(shipLedger, 'ship-1', { flow: true })).toEqual([
        'ship/build INJECT_FLOW diagnose',
        'fixup/diagnose CONTINUE patch',
        'fixup/patch CONTINUE build',
        'ship/build CONTINUE deploy',
        'ship/deploy TERMINATE -',
      ]);
    } finally {
      await shipKernel.close();
    }
  });

  it('INJECT_NODES runs each injected node with the node of its agent, reporting it under its own id', async () => {
    const flows = defineFlows([
      { flow: 'code', charter: { goal: 'make the tests pass', key_question: 'do the tests pass?' }, inject_nodes: { allowed: true, max_nodes: 2 }, steps: [{ id: 'impl', agent: 'coder', next: 'verify' }, { id: 'verify', agent: 'tester', terminal: true }] },
    ]);
    // Tier 3, as a port: proposes two ad-hoc nodes when it may (a model would answer the same through createLlmArbiter).
    const arbiter: ArbiterPort = async (input) =>
      input.candidates.some((c) => c.id === 'inject_nodes')
        ? { proposal: { candidate_id: 'inject_nodes', reason: 'a failing test first, then the fix, to make the tests pass', inject_nodes: [{ id: 'write-test', agent: 'tester', purpose: 'make the tests pass' }, { id: 'fix', agent: 'coder', purpose: 'make the tests pass' }] }, rejected: [], calls: [], cost_usd: 0 }
        : { rejected: [], calls: [], cost_usd: 0 };
    const codeLedger = openLedger(path.join(dir, 'code.sqlite'), { runBase: path.join(dir, 'code-runs') });
    const codeKernel = createKernel({ flows, store: codeLedger, arbiter });
    try {
      const impl = [{ status: 'FAILED' }, { status: 'VERIFIED' }, { status: 'VERIFIED' }];
      const node = (name: string, reports: StepReport[]) => async (state: S) => ({ report: reports.shift()!, log: [`${name} as ${state.navkernel.step ?? name}`] });
      const app = kernelGraph({ kernel: codeKernel, ledger: codeLedger, flow: 'code', state: State, agents: { tester: 'verify', coder: 'impl' }, nodes: { impl: node('impl', impl), verify: node('verify', [{ status: 'VERIFIED' }, { status: 'DONE' }]) } }).compile({ checkpointer: new MemorySaver() });
      const out = await app.invoke({}, { configurable: { thread_id: 'code-1' } });
      expect(out.log).toEqual(['impl as impl', 'verify as write-test', 'impl as fix', 'impl as impl', 'verify as verify']);
      expect(await moves(codeLedger, 'code-1')).toEqual([
        'impl INJECT_NODES write-test',
        'write-test CONTINUE fix',
        'fix CONTINUE impl',
        'impl CONTINUE verify',
        'verify TERMINATE -',
      ]);
    } finally {
      await codeKernel.close();
    }
  });

  it('refuses a flow step without a node, and a node that reports nothing, with typed errors', async () => {
    expect(() => kernelGraph({ kernel, ledger, flow: 'release', state: State, nodes: { package: () => ({ report: { status: 'VERIFIED' } }) } })).toThrow(
      expect.objectContaining({ code: 'MISSING_NODE', message: expect.stringContaining('check, review, fix-lint, publish') }),
    );
    const silent = kernelGraph({
      kernel,
      ledger,
      flow: 'release',
      state: State,
      nodes: Object.fromEntries(['package', 'check', 'review', 'fix-lint', 'publish'].map((s) => [s, () => ({}) as never])),
    }).compile({ checkpointer });
    await expect(silent.invoke({}, { configurable: { thread_id: 'lg-silent' } })).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('node package returned no report') });
    expect(await ledger.run('lg-silent')).toBeUndefined();
  });
});
