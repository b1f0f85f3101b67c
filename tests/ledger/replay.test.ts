import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Flow, RouteRequest } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { defineFlows, type FlowSet } from '../../src/kernel/index.js';
import { UnknownRunError, openLedger, type SqliteLedger } from '../../src/ledger/index.js';
import { listRuns, replayRun } from '../../src/runs/index.js';
import { ledgerKernel, sampleFlows, scriptedArbiter, tmpDir } from './helpers.js';

let flows: FlowSet;
const t = tmpDir();
let ledger: SqliteLedger;

/** The sample flows with one flow's definition changed. */
function edited(flow: string, edit: (f: Flow) => void): FlowSet {
  const defs = [...flows.flows.values()].map((f) => structuredClone(f.def));
  edit(defs.find((f) => f.flow === flow)!);
  return defineFlows(defs);
}

beforeAll(async () => {
  flows = await sampleFlows();
  let arbiterCalls = 0;
  const arbiter = scriptedArbiter();
  const { kernel } = ledgerKernel(t.file, flows, {
    arbiter: (input) => {
      arbiterCalls++;
      return arbiter(input);
    },
  });
  await simulate(kernel, HARSH_SCENARIO);
  const plain = ledgerKernel(t.file, flows);
  await simulate(plain.kernel, HARSH_SCENARIO, { runPrefix: 'plain' });
  // A short run with a known detour: the same lint failure twice on build-step-3.
  const lint: RouteRequest = { run_id: 'lint', flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', forensics: { lint: { errors: 3, fixable: 3 } } };
  await plain.kernel.route(lint);
  const detour = await plain.kernel.route(lint);
  expect(detour).toMatchObject({ decision: 'DETOUR', detour_target: 'auto-linter', seq: 2 });
  await plain.kernel.route({ run_id: 'lint', flow: 'build', step_completed: 'auto-linter', status: 'DONE' });
  await plain.kernel.route({ run_id: 'lint', flow: 'build', step_completed: 'build-step-3', status: 'VERIFIED' });
  await plain.kernel.close();
  await kernel.close();
  expect(arbiterCalls).toBeGreaterThan(0);
  ledger = openLedger(t.file, { create: false });
});
afterAll(async () => {
  await ledger.close();
  t.cleanup();
});

describe('replay', () => {
  it('reproduces every recorded run with the same flows, tier-3 answers included, without calling a model', async () => {
    const runs = await listRuns(ledger);
    // One run per flow of each work item's sequence (a run ends at its flow's terminal step), plus the lint run.
    expect(runs.length).toBe(2 * HARSH_SCENARIO.runs * HARSH_SCENARIO.sequence.length + 1);
    let tier3 = 0;
    for (const run of runs) {
      const progress: number[] = [];
      const report = await replayRun(ledger, run.run_id, flows, { onProgress: (done) => progress.push(done) });
      expect(report.divergences).toEqual([]);
      expect(report.identical).toBe(true);
      expect(report.routes).toBe(run.steps);
      expect(progress[progress.length - 1]).toBe(run.steps);
      expect(report.flows_hashes_recorded).toEqual([flows.hash]);
      expect(report.flows_hash_now).toBe(flows.hash);
      tier3 += run.llm_calls;
    }
    expect(tier3).toBeGreaterThan(0);
  });

  it('reports the first divergence first when a flow change alters a decision', async () => {
    const noLintFix = edited('build', (f) => {
      delete f.detours.lint_errors;
      f.steps = f.steps.filter((s) => s.id !== 'auto-linter');
    });
    const report = await replayRun(ledger, 'lint', noLintFix);
    expect(report.identical).toBe(false);
    expect(report.flows_hash_now).not.toBe(flows.hash);
    const first = report.divergences[0]!;
    expect(first).toMatchObject({ seq: 2, flow: 'build', step: 'build-step-3' });
    expect(first.recorded).toMatchObject({ decision: 'DETOUR', detour_target: 'auto-linter', tier: 2 });
    expect(first.now?.decision).not.toBe('DETOUR');
    expect(first.fields).toContain('decision');
    expect(report.divergences.map((d) => d.seq)).toEqual([...report.divergences.map((d) => d.seq)].sort((a, b) => a - b));
  });

  it('reports a route that today’s flows cannot route at all as a divergence with its error', async () => {
    const renamed = edited('build', (f) => {
      const step = f.steps.find((s) => s.id === 'auto-linter')!;
      step.id = 'lint-fixer';
      f.detours.lint_errors = 'lint-fixer';
    });
    const report = await replayRun(ledger, 'lint', renamed);
    const bad = report.divergences.find((d) => d.step === 'auto-linter');
    expect(bad).toMatchObject({ seq: 3, now: null, fields: ['error'] });
    expect(bad?.error).toMatch(/auto-linter/);
  });

  it('finds divergences across a whole recorded run when a loop bound changes', async () => {
    const tighter = edited('build', (f) => {
      for (const s of f.steps) if (s.loop) s.loop.max_iterations = 1;
    });
    let diverged = 0;
    for (const run of await listRuns(ledger)) {
      const report = await replayRun(ledger, run.run_id, tighter, { maxDivergences: 1 });
      expect(report.divergences.length).toBeLessThanOrEqual(1);
      if (!report.identical) diverged++;
    }
    expect(diverged).toBeGreaterThan(0);
  });

  it('refuses an unknown run', async () => {
    await expect(replayRun(ledger, 'nope', flows)).rejects.toThrow(UnknownRunError);
  });
});
