import { afterEach, describe, expect, it } from 'vitest';
import type { LlmCallRecord, ArbiterPort } from '../../src/contracts/index.js';
import { auditRun, resolveEscalation } from '../../src/runs/index.js';
import { ledgerKernel, sampleFlows, tmpDir } from './helpers.js';

const call = (outcome: LlmCallRecord['outcome'], usd: number): LlmCallRecord => ({
  provider: 'scripted',
  model: 'm',
  purpose: 'route',
  attempt: 1,
  prompt_hash: 'h',
  raw_answer: '{}',
  outcome,
  input_tokens: 100,
  output_tokens: 10,
  usd,
  latency_ms: 1,
});

describe('audit: how tier 3 fared', () => {
  const tmp = tmpDir();
  afterEach(() => tmp.cleanup());

  it('reports consultations, fall-through rate, invalid-answer rate, budget skips and USD per 1,000 routes', async () => {
    let n = 0;
    // 1st consultation: an invalid answer, then a legal one (decides). 2nd: only an invalid answer (falls through).
    // 3rd: skipped for budget (falls through).
    const arbiter: ArbiterPort = async (input) => {
      n++;
      if (n === 1) return { proposal: { candidate_id: input.candidates[0]!.id, reason: 'ok' }, rejected: [{ rule: 'llm_invalid_answer', decision: 'MAYBE', target: null, why: 'bad' }], calls: [call('invalid_answer', 0.001), call('ok', 0.001)], cost_usd: 0.002 };
      if (n === 2) return { rejected: [{ rule: 'llm_invalid_answer', decision: 'MAYBE', target: null, why: 'bad' }], calls: [call('invalid_answer', 0.001)], cost_usd: 0.001 };
      return { rejected: [], skipped: { rule: 'budget_exceeded', reason: 'no money' }, calls: [], cost_usd: 0 };
    };
    const flows = await sampleFlows();
    const { ledger, kernel } = ledgerKernel(tmp.file, flows, { arbiter });
    // The runner re-runs build-step-1 (restart), and a person lets an escalated run go on to it again.
    const req = (step: string, status: string) => ({ run_id: 'a1', flow: 'build', step_completed: step, status, iteration: { current: 1, max: 3 }, restart: { reason: 're-run' } });
    await kernel.route(req('build-step-1', 'VERIFIED')); // tier 1: tier 3 not consulted
    for (let i = 0; i < 3; i++) {
      const d = await kernel.route(req('build-step-1', 'FAILED')); // linear step, no rule applies: tier 3
      if (d.decision === 'ESCALATE') await resolveEscalation(ledger, flows, { escalation_id: d.escalation_id!, decision: 'CONTINUE', next: 'build-step-1', by: 'ann', reason: 'again' });
    }
    const report = await auditRun(ledger, 'a1');
    expect(report.arbiter).toEqual({ consulted: 3, decided: 1, budget_skips: 1, fall_through_rate: 2 / 3, invalid_answer_rate: 2 / 3 });
    expect(report.cost.usd_per_1000_routes).toBeCloseTo((0.003 / 4) * 1000, 6);
    await kernel.close();
  });
});
