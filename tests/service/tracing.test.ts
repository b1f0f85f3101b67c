// Each route is an OpenTelemetry span (through @opentelemetry/api), tier 3 a child span and each model call a
// child of that; checked with the SDK's in-memory exporter against the real HTTP service.
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmCallRecord, ArbiterPort } from '../../src/contracts/index.js';
import { post, startServer, type TestServer } from './helpers.js';

/** Tier 3 that picks the first candidate after one rejected answer: two model calls. */
const twoCallArbiter: ArbiterPort = async (input) => {
  const call = (attempt: number, outcome: LlmCallRecord['outcome']): LlmCallRecord => ({
    provider: 'scripted', model: 'scripted-1', purpose: 'route', attempt, prompt_hash: 'h', raw_answer: '{}', outcome, input_tokens: 400, output_tokens: 20, usd: 0.0005, latency_ms: 3,
  });
  const pick = input.candidates[0]!;
  return { proposal: { candidate_id: pick.id, reason: 'scripted' }, rejected: [], calls: [call(1, 'invalid_answer'), call(2, 'ok')], cost_usd: 0.001 };
};

describe('OpenTelemetry spans', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let s: TestServer;
  beforeAll(async () => {
    trace.setGlobalTracerProvider(provider);
    s = await startServer({ arbiter: twoCallArbiter });
  });
  afterAll(async () => {
    await s.close();
    trace.disable();
    await provider.shutdown();
  });

  it('one span per route with run, flow, step, tier, rule, decision and cost; tier 3 and its model calls as children', async () => {
    exporter.reset();
    expect((await post(s.base, '/v1/route', { run_id: 'otel', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' })).status).toBe(200);
    // A status no rule knows at a branching step: tier 3 decides.
    const res = await post(s.base, '/v1/route', { run_id: 'otel-gate', flow: 'gate', step_completed: 'gate-decide', status: 'HOLD' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { tier: number }).tier).toBe(3);
    const spans = exporter.getFinishedSpans();
    const routes = spans.filter((x) => x.name === 'navkernel.route');
    expect(routes).toHaveLength(2);
    expect(routes[0]!.attributes).toMatchObject({
      'navkernel.run_id': 'otel', 'navkernel.flow': 'build', 'navkernel.step': 'build-step-1', 'navkernel.tier': 1, 'navkernel.rule': 'success', 'navkernel.decision': 'CONTINUE', 'navkernel.cost_usd': 0, 'navkernel.seq': 1,
    });
    const route3 = routes[1]!;
    expect(route3.attributes).toMatchObject({ 'navkernel.tier': 3, 'navkernel.rule': 'arbiter', 'navkernel.cost_usd': 0.001 });
    const tier3 = spans.find((x) => x.name === 'navkernel.tier3')!;
    expect(tier3.parentSpanContext?.spanId).toBe(route3.spanContext().spanId);
    expect(tier3.spanContext().traceId).toBe(route3.spanContext().traceId);
    expect(tier3.attributes).toMatchObject({ 'navkernel.tier3.calls': 2, 'navkernel.cost_usd': 0.001 });
    const calls = spans.filter((x) => x.name === 'navkernel.llm_call');
    expect(calls).toHaveLength(2);
    for (const c of calls) expect(c.parentSpanContext?.spanId).toBe(tier3.spanContext().spanId);
    expect(calls.map((c) => c.attributes['navkernel.llm.outcome'])).toEqual(['invalid_answer', 'ok']);
    expect(calls[0]!.status.code).toBe(2);
    expect(calls[1]!.attributes).toMatchObject({ 'gen_ai.system': 'scripted', 'gen_ai.request.model': 'scripted-1', 'gen_ai.usage.input_tokens': 400 });
  });

  it('a refused request is an error span naming the code', async () => {
    exporter.reset();
    await post(s.base, '/v1/route', { run_id: 'otel', flow: 'nope', step_completed: 'x', status: 'VERIFIED' });
    const [span] = exporter.getFinishedSpans();
    expect(span!.status).toMatchObject({ code: 2, message: 'INVALID_REQUEST' });
  });
});
