// What the conformance kit routes and records: the package's sample flows (charters/), a record builder, a clock
// and a scripted arbiter, so a store is checked with the same inputs everywhere.
import path from 'node:path';
import { sha256 } from '../contracts/canonical-json.js';
import type { Decision } from '../contracts/decision.js';
import type { LlmCallRecord } from '../contracts/llm-call.js';
import type { ArbiterPort, RouteRecord, RunState } from '../contracts/ports.js';
import type { RouteRequest } from '../contracts/route-request.js';
import type { FlowSet } from '../kernel/flows/compiled-flow.js';
import { loadFlows } from '../kernel/flows/load-flows.js';
import { emptyRunState } from '../kernel/run-state.js';
import { packageRoot } from '../package-root.js';

let flows: Promise<FlowSet> | undefined;

/** The sample flows shipped in the package's charters/ folder (build, gate, rebase, …), loaded once. */
export function sampleFlows(): Promise<FlowSet> {
  return (flows ??= loadFlows(path.join(packageRoot(), 'charters')));
}

/** A stored route of flow `build`, as the kernel would hand it to `append` (fields overridable). */
export function routeRecord(run_id: string, seq: number, over: Partial<RouteRecord> = {}): RouteRecord {
  const request: RouteRequest = { run_id, flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' };
  const decision = { decision: 'CONTINUE', next_step_id: 'build-step-2', tier: 1, rule: 'happy_path', reason: 'ok', needs_human: false, seq, rejected: [] } as unknown as Decision;
  return {
    run_id, seq, flow: 'build', step: 'build-step-1', request_id: null, request_hash: '', request, decision, latency_us: 1, cost_usd: 0,
    kernel_version: 'test', flows_hash: 'f'.repeat(64), ts: `2025-01-01T00:00:${String(seq % 60).padStart(2, '0')}.000Z`, llm_calls: [], ...over,
  };
}

/** The run state after `seq` routes, as `append` receives it. */
export const stateAt = (run_id: string, seq: number): RunState => ({ ...emptyRunState(run_id), seq });

/** A clock that ticks one second per call from a fixed instant, so recorded timestamps are reproducible. */
export function steppingClock(start = Date.UTC(2025, 0, 1)): () => Date {
  let n = 0;
  return () => new Date(start + 1000 * n++);
}

/** A deterministic tier 3: the first LOOP or DETOUR when the step failed (else the first candidate), one recorded model call each. */
export function scriptedArbiter(): ArbiterPort {
  return async (input) => {
    const failed = /unverified|fail/i.test(input.request.status);
    const pick = (failed ? input.candidates.find((c) => c.decision === 'LOOP' || c.decision === 'DETOUR') : undefined) ?? input.candidates[0]!;
    const call: LlmCallRecord = {
      provider: 'scripted',
      model: 'scripted-1',
      purpose: 'route',
      attempt: 1,
      prompt_hash: sha256({ step: input.step, candidates: input.candidates.map((c) => c.id), seq: input.seq }),
      raw_answer: JSON.stringify({ candidate_id: pick.id, reason: `scripted: ${pick.description}` }),
      outcome: 'ok',
      input_tokens: 420,
      output_tokens: 24,
      usd: 0.00051,
      latency_ms: 12,
    };
    return { proposal: { candidate_id: pick.id, reason: `scripted: ${pick.description}`, confidence: 0.7 }, rejected: [], calls: [call], cost_usd: call.usd };
  };
}

/** A gate run that ends in an open escalation (gate-decide answers a status no branch knows). */
export const gateRun = (run_id: string): RouteRequest[] => [
  { run_id, flow: 'gate', step_completed: 'gate-receipts', status: 'VERIFIED' },
  { run_id, flow: 'gate', step_completed: 'gate-contracts', status: 'VERIFIED' },
  { run_id, flow: 'gate', step_completed: 'gate-security', status: 'VERIFIED' },
  { run_id, flow: 'gate', step_completed: 'gate-decide', status: 'HOLD' },
];
