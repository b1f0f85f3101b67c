import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOffroad } from '../../src/contracts/decision-kinds.js';
import { compileValidator, type AuditReport, type RunSummary } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import type { FlowSet } from '../../src/kernel/index.js';
import { UnknownRunError, openLedger, type SqliteLedger } from '../../src/ledger/index.js';
import { auditRun, listRuns, resolveEscalation, whyStep } from '../../src/runs/index.js';
import { ledgerKernel, sampleFlows, scriptedArbiter, steppingClock, tmpDir, type Step } from './helpers.js';

let flows: FlowSet;
const t = tmpDir();
let ledger: SqliteLedger;
const steps: Step[] = [];

beforeAll(async () => {
  flows = await sampleFlows();
  const a = ledgerKernel(t.file, flows, { arbiter: scriptedArbiter() });
  await simulate(a.kernel, HARSH_SCENARIO, { runPrefix: 'llm', onStep: (s) => steps.push(structuredClone(s)) });
  await a.kernel.close();
  const b = ledgerKernel(t.file, flows);
  await simulate(b.kernel, HARSH_SCENARIO, { onStep: (s) => steps.push(structuredClone(s)) });
  await b.kernel.close();
  ledger = openLedger(t.file, { create: false });
});
afterAll(async () => {
  await ledger.close();
  t.cleanup();
});

const ofRun = (run: string) => steps.filter((s) => s.request.run_id === run);

describe('runs and audit', () => {
  it('lists one summary per run that agrees with what was routed', async () => {
    const runs = await listRuns(ledger);
    const validate = compileValidator<RunSummary>('run-summary');
    // A run ends at its flow's terminal step, so the demo records one run per flow of each work item's sequence.
    expect(runs.length).toBe(2 * HARSH_SCENARIO.runs * HARSH_SCENARIO.sequence.length);
    expect(runs.map((r) => r.run_id).sort()).toEqual([...new Set(steps.map((s) => s.request.run_id))].sort());
    for (const r of runs) {
      expect(validate(r).success).toBe(true);
      const mine = ofRun(r.run_id);
      expect(r.steps).toBe(mine.length);
      expect(r.offroad).toBe(mine.filter((s) => isOffroad(s.decision)).length);
      expect(r.llm_calls).toBe(mine.filter((s) => s.decision.tier === 3).length);
      expect(r.open_escalations).toBe(mine.filter((s) => s.decision.decision === 'ESCALATE').length);
      expect(r.flows).toEqual([...new Set(mine.map((s) => s.request.flow))].sort());
      const last = mine[mine.length - 1]!.decision.decision;
      expect(r.last_decision).toBe(last);
      expect(r.status).toBe(last === 'TERMINATE' ? 'terminated' : r.open_escalations > 0 ? 'escalated' : 'active');
    }
  });

  it('audits a run: decisions by tier and rule, off-road decisions in order, loops per step, signatures, cost', async () => {
    const run = 'harsh-run-1';
    const mine = ofRun(run);
    const report = await auditRun(ledger, run);
    expect(compileValidator<AuditReport>('audit-report')(report).success).toBe(true);
    const count = new Map<string, number>();
    for (const s of mine) count.set(`${s.decision.tier}|${s.decision.rule}|${s.decision.decision}`, (count.get(`${s.decision.tier}|${s.decision.rule}|${s.decision.decision}`) ?? 0) + 1);
    expect(report.by_tier_rule.map((r) => [`${r.tier}|${r.rule}|${r.decision}`, r.count])).toEqual([...count.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
    expect(report.offroad.map((e) => e.seq)).toEqual(mine.filter((s) => isOffroad(s.decision)).map((s) => s.decision.seq));
    expect(report.offroad.every((e) => e.reason.length > 0)).toBe(true);
    const loops = mine.filter((s) => s.decision.decision === 'LOOP');
    expect(report.steps.reduce((n, s) => n + s.loops, 0)).toBe(loops.length);
    for (const s of report.steps) expect(s.routes).toBe(mine.filter((m) => m.request.flow === s.flow && m.request.step_completed === s.step).length);
    const sigs = mine.filter((s) => s.decision.signature);
    if (sigs.length) expect(report.signatures.length).toBeGreaterThan(0);
    expect(report.latency_us.p50).toBeGreaterThan(0);
    expect(report.flows_hashes).toEqual([flows.hash]);
  });

  it('accounts LLM calls and cost by model', async () => {
    const report = await auditRun(ledger, 'llm-run-1');
    const tier3 = ofRun('llm-run-1').filter((s) => s.decision.tier === 3).length;
    expect(tier3).toBeGreaterThan(0);
    expect(report.cost.llm_calls).toBe(tier3);
    expect(report.cost.by_model).toEqual([{ provider: 'scripted', model: 'scripted-1', calls: tier3, usd: expect.closeTo(tier3 * 0.00051, 10) }]);
    expect(report.cost.input_tokens).toBe(420 * tier3);
  });

  it('answers why a step was touched', async () => {
    const run = 'harsh-run-1';
    const step = 'build-step-3';
    const why = await whyStep(ledger, run, step);
    const mine = ofRun(run).filter((s) => s.request.step_completed === step || s.decision.next_step_id === step || s.decision.detour_target === step || s.decision.return_to === step);
    expect(why.entries.map((e) => e.seq)).toEqual(mine.map((s) => s.decision.seq));
    expect(why.entries.filter((e) => e.touched_as.includes('completed')).length).toBe(mine.filter((s) => s.request.step_completed === step).length);
  });

  it('refuses an unknown run', async () => {
    await expect(auditRun(ledger, 'missing')).rejects.toThrow(UnknownRunError);
    await expect(whyStep(ledger, 'missing', 'x')).rejects.toThrow(UnknownRunError);
  });
});

describe('resolve', () => {
  const open = async () => {
    const e = (await listRuns(ledger)).find((r) => r.open_escalations > 0);
    const esc = (await auditRun(ledger, e!.run_id)).escalations.find((x) => x.status === 'open')!;
    return esc;
  };

  it('validates the move against the escalated flow’s graph', async () => {
    const esc = await open();
    const base = { escalation_id: esc.escalation_id, by: 'ada', reason: 'checked by hand' };
    await expect(resolveEscalation(ledger, flows, { ...base, decision: 'CONTINUE', next: 'no-such-step' })).rejects.toThrow(/not in flow/);
    await expect(resolveEscalation(ledger, flows, { ...base, decision: 'MAYBE' })).rejects.toMatchObject({ code: 'INVALID_RESOLUTION' });
    await expect(resolveEscalation(ledger, flows, { ...base, decision: 'ESCALATE' })).rejects.toMatchObject({ code: 'INVALID_RESOLUTION' });
    await expect(resolveEscalation(ledger, flows, { ...base, decision: 'INJECT_FLOW', next: 'deploy' })).rejects.toThrow(/not injectable/);
    await expect(resolveEscalation(ledger, flows, { ...base, decision: 'TERMINATE', next: 'x' })).rejects.toMatchObject({ code: 'INVALID_RESOLUTION' });
    await expect(resolveEscalation(ledger, flows, { ...base, by: ' ', decision: 'TERMINATE' })).rejects.toThrow(/--by/);
    await expect(resolveEscalation(ledger, { ...flows, get: () => undefined } as FlowSet, { ...base, decision: 'TERMINATE' })).rejects.toThrow(/not among the loaded flows/);
    expect((await open()).escalation_id).toBe(esc.escalation_id); // nothing was recorded by the refusals
  });

  it('records a resolution once, visible in the run’s audit, and refuses a second one', async () => {
    const esc = await open();
    const flow = flows.get(esc.flow)!;
    const target = [...flow.steps.keys()].find((s) => s !== esc.step)!;
    const resolved = await resolveEscalation(ledger, flows, { escalation_id: esc.escalation_id, decision: 'continue', next: target, by: 'ada', reason: 'the failing test is flaky' }, steppingClock());
    expect(resolved).toMatchObject({ status: 'resolved', resolution: { decision: 'CONTINUE', next_step_id: target, by: 'ada', reason: 'the failing test is flaky', ts: '2025-01-01T00:00:00.000Z' } });
    const audit = await auditRun(ledger, esc.run_id);
    expect(audit.escalations.find((e) => e.escalation_id === esc.escalation_id)).toEqual(resolved);
    expect((await whyStep(ledger, esc.run_id, target)).escalations.map((e) => e.escalation_id)).toContain(esc.escalation_id);
    await expect(resolveEscalation(ledger, flows, { escalation_id: esc.escalation_id, decision: 'TERMINATE', by: 'bob', reason: 'again' })).rejects.toMatchObject({ code: 'ESCALATION_ALREADY_RESOLVED' });
    await expect(resolveEscalation(ledger, flows, { escalation_id: 'esc-nope', decision: 'TERMINATE', by: 'bob', reason: 'x' })).rejects.toMatchObject({ code: 'UNKNOWN_ESCALATION' });
  });
});
