import { canonicalJson } from '../contracts/canonical-json.js';
import { isOffroad } from '../contracts/decision-kinds.js';
import type { RouteRecord, RunState, StoredLlmCall } from '../contracts/ports.js';
import { type ChainedFields, fieldSums, llmCallsJson, routeHash } from './chain.js';
import type { AppendWrite } from './sql.js';

/**
 * The rows one append writes (route, LLM calls, escalation) and the route's chain hash, from what the kernel
 * recorded and the run's previous hash. Both stores write exactly these texts, so a route hashes the same in either.
 */
export function buildAppendWrite(record: RouteRecord, state: RunState, prevHex: string): { write: AppendWrite; hash: string } {
  const { run_id, seq, decision } = record;
  const principal = record.principal ?? null;
  // Plain JSON.stringify, not canonical JSON: the kernel builds these objects in a fixed key order, so the
  // same input still gives the same bytes, at a third of the cost. The chain hashes the stored text.
  const request = JSON.stringify(record.request);
  const decisionJson = JSON.stringify(decision);
  const stateJson = JSON.stringify(state);
  const callJsons = record.llm_calls.map((c) => canonicalJson(c));
  const chained: ChainedFields = {
    run_id, seq, flow: record.flow, step: record.step, request_id: record.request_id, request, decision_json: decisionJson,
    state: stateJson, latency_us: record.latency_us, cost_usd: record.cost_usd, llm_calls_json: llmCallsJson(callJsons),
    kernel_version: record.kernel_version, flows_hash: record.flows_hash, ts: record.ts, principal,
  };
  const hash = routeHash(prevHex, chained);
  const llmCalls: StoredLlmCall[] = record.llm_calls.map((c, idx) => ({
    run_id, seq, idx, provider: c.provider, model: c.model, purpose: c.purpose, attempt: c.attempt, prompt_hash: c.prompt_hash,
    raw_answer: c.raw_answer, outcome: c.outcome, input_tokens: c.input_tokens, output_tokens: c.output_tokens, usd: c.usd,
    latency_ms: c.latency_ms, record: callJsons[idx]!,
  }));
  const escalation =
    decision.decision === 'ESCALATE'
      ? { escalation_id: decision.escalation_id ?? `${run_id}:${seq}`, run_id, seq, flow: record.flow, step: record.step, reason: decision.reason, opened_ts: record.ts }
      : null;
  const write: AppendWrite = {
    route: {
      run_id, seq, flow: record.flow, step: record.step, request_id: record.request_id, decision: decision.decision,
      next_step: decision.next_step_id, tier: decision.tier, rule: decision.rule, request, decision_json: decisionJson,
      state: stateJson, latency_us: record.latency_us, latency_unit: 'us', cost_usd: record.cost_usd, llm_calls: record.llm_calls.length,
      kernel_version: record.kernel_version, flows_hash: record.flows_hash, ts: record.ts, principal,
      prev_hash: Buffer.from(prevHex, 'hex'), hash: Buffer.from(hash, 'hex'), field_sums: fieldSums(chained),
    },
    llmCalls,
    escalation,
    offroad: isOffroad(decision),
  };
  return { write, hash };
}
