import { SpanStatusCode, context, trace, type Span, type Tracer } from '@opentelemetry/api';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Decision } from '../contracts/index.js';
import type { KernelStore, ArbiterPort, RouteRecord, RunState } from '../contracts/ports.js';
import { VERSION } from '../version.js';

/** The service's Prometheus metrics, in their own registry (never the global one). */
export interface ServiceMetrics {
  readonly registry: Registry;
  /** Counts one answered route. */
  route(decision: Decision, seconds: number, record: RouteRecord | undefined): void;
  /** Counts one problem answered. */
  problem(code: string): void;
  /** Reports the heavy reads (verify, replay in worker threads): running, waiting, aborted, read when scraped. */
  heavyReads(stats: () => { running: number; waiting: number; aborted: number }): void;
}

export function createMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'navkernel_process_' });
  // Routes are counted here, per (tier, rule, decision), and added to the Prometheus counter when it is scraped:
  // prom-client hashes the label set on every inc, which a route should not pay for.
  const counted = new Map<string, { labels: { tier: string; rule: string; decision: string }; n: number }>();
  const routes = new Counter({
    name: 'navkernel_routes_total',
    help: 'Routes answered, by tier, rule and decision',
    labelNames: ['tier', 'rule', 'decision'] as const,
    registers: [registry],
    collect() {
      for (const c of counted.values()) {
        if (c.n > 0) this.inc(c.labels, c.n);
        c.n = 0;
      }
    },
  });
  const latency = new Histogram({
    name: 'navkernel_route_duration_seconds',
    help: 'Time to answer POST /v1/route, from the parsed body to the recorded decision',
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30],
    registers: [registry],
  });
  const cost = new Counter({ name: 'navkernel_llm_cost_usd_total', help: 'USD spent on tier-3 model calls', registers: [registry] });
  const calls = new Counter({
    name: 'navkernel_llm_calls_total',
    help: 'Tier-3 model calls, by provider, model and outcome',
    labelNames: ['provider', 'model', 'outcome'] as const,
    registers: [registry],
  });
  const problems = new Counter({ name: 'navkernel_http_problems_total', help: 'Problem documents answered, by code', labelNames: ['code'] as const, registers: [registry] });
  return {
    registry,
    route(decision, seconds, record) {
      const key = `${decision.tier}\u0000${decision.rule}\u0000${decision.decision}`;
      const c = counted.get(key);
      if (c) c.n++;
      else counted.set(key, { labels: { tier: String(decision.tier), rule: decision.rule, decision: decision.decision }, n: 1 });
      latency.observe(seconds);
      if (record) {
        if (record.cost_usd > 0) cost.inc(record.cost_usd);
        for (const c of record.llm_calls) calls.inc({ provider: c.provider, model: c.model, outcome: c.outcome });
      }
    },
    problem(code) {
      problems.inc({ code });
    },
    heavyReads(stats) {
      new Gauge({
        name: 'navkernel_heavy_reads',
        help: 'Heavy reads (verify, replay) in worker threads, by state: running, waiting',
        labelNames: ['state'] as const,
        registers: [registry],
        collect() {
          const s = stats();
          this.set({ state: 'running' }, s.running);
          this.set({ state: 'waiting' }, s.waiting);
        },
      });
      new Counter({
        name: 'navkernel_heavy_reads_aborted_total',
        help: 'Heavy-read workers terminated because their request gave up (its time limit passed)',
        registers: [registry],
        collect() {
          this.reset();
          this.inc(stats().aborted);
        },
      });
    },
  };
}

/** The tracer of navkernel (a no-op until the application registers an OpenTelemetry SDK). */
export function navkernelTracer(): Tracer {
  return trace.getTracer('navkernel', VERSION);
}

/**
 * Wraps a store so that the service learns each recorded route (its cost and LLM calls, which the decision does
 * not carry). Works with a synchronous or an asynchronous `append`.
 */
export function observedStore(inner: KernelStore, onAppend: (record: RouteRecord) => void): KernelStore {
  return {
    loadRun: (run_id) => inner.loadRun(run_id),
    findByRequestId: (run_id, request_id) => inner.findByRequestId(run_id, request_id),
    append: ((record: RouteRecord, state: RunState) => {
      const r = (inner.append as (a: RouteRecord, b: RunState) => unknown).call(inner, record, state);
      if (r && typeof (r as Promise<void>).then === 'function') return (r as Promise<void>).then(() => onAppend(record));
      onAppend(record);
      return r;
    }) as KernelStore['append'],
    close: () => inner.close(),
    ...(inner.escalation ? { escalation: (id: string) => inner.escalation!(id) } : {}),
  };
}

/**
 * Wraps tier 3 so that each consultation is a child span of the route's span (found by run id: routes of one
 * run are serialised) and each model call a child span of that, with provider, model, tokens, USD and outcome.
 */
export function tracedArbiter(port: ArbiterPort, routeSpan: (run_id: string) => Span | undefined): ArbiterPort {
  return async (input) => {
    const tracer = navkernelTracer();
    const parent = routeSpan(input.run_id);
    const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
    const span = tracer.startSpan(
      'navkernel.tier3',
      { attributes: { 'navkernel.run_id': input.run_id, 'navkernel.flow': input.flow, 'navkernel.step': input.step, 'navkernel.candidates': input.candidates.length } },
      ctx,
    );
    const started = Date.now();
    try {
      const answer = await port(input);
      const callCtx = trace.setSpan(ctx, span);
      let t = started;
      for (const c of answer.calls) {
        const child = tracer.startSpan(
          'navkernel.llm_call',
          {
            startTime: t,
            attributes: {
              'gen_ai.system': c.provider,
              'gen_ai.request.model': c.model,
              'gen_ai.usage.input_tokens': c.input_tokens,
              'gen_ai.usage.output_tokens': c.output_tokens,
              'navkernel.llm.attempt': c.attempt,
              'navkernel.llm.outcome': c.outcome,
              'navkernel.cost_usd': c.usd,
            },
          },
          callCtx,
        );
        if (c.outcome !== 'ok') child.setStatus({ code: SpanStatusCode.ERROR, message: c.outcome });
        t += c.latency_ms;
        child.end(t);
      }
      span.setAttributes({
        'navkernel.tier3.calls': answer.calls.length,
        'navkernel.cost_usd': answer.cost_usd,
        'navkernel.tier3.proposal': answer.proposal?.candidate_id ?? '',
        ...(answer.skipped ? { 'navkernel.tier3.skipped': answer.skipped.rule } : {}),
      });
      return answer;
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
      throw e;
    } finally {
      span.end();
    }
  };
}
