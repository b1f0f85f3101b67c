import { createActor, fromPromise, waitFor, type Actor } from 'xstate';
import { kernelMachine, type NavigatorResult } from '../../machines/kernel.machine.js';
import type {
  CandidateMove,
  Decision,
  KernelStore,
  NavigatorPort,
  RouteRecord,
  RouteRequest,
  RunState,
} from '../contracts/index.js';
import { VERSION } from '../version.js';
import { buildRouteWork } from './build-work.js';
import { assertDecisionTargets } from './check-decision.js';
import type { FlowSet } from './flows/compiled-flow.js';
import { MemoryStore } from './memory-store.js';
import type { RouteWork } from './route-work.js';
import { createRequestGuard, type RequestGuardOptions } from './request-guard.js';
import { emptyRunState } from './run-state.js';
import { buildCandidates } from './tiers/candidates.js';

export interface KernelOptions {
  /** The flows to route (from `loadFlows()` or `defineFlows()`). */
  flows: FlowSet;
  /** Where runs are kept. Default: in memory (a `MemoryStore`). Pass the SQLite ledger to survive restarts. */
  store?: KernelStore;
  /** Tier 3. When absent, tier 3 is skipped with rule `navigator_unavailable`. */
  navigator?: NavigatorPort;
  /** Time source (epoch milliseconds or a Date) for recorded timestamps. Decisions never depend on it. */
  clock?: () => number | Date;
  /** Validate each request against `schemas/route-request.schema.json` (default true). */
  validate?: boolean;
  /** Live run actors kept in memory; the least recently used idle ones are stopped beyond this (default 10,000). */
  maxLiveRuns?: number;
  /** Hard cap on one tier-3 call, after which the kernel falls through (default 30 s). */
  navigatorTimeoutMs?: number;
  /** Depth and size limits of a request (default 64 levels, 1 MiB). README "Limits". */
  limits?: RequestGuardOptions['limits'];
  /** Secret redaction before anything is stored or sent (on by default; extra `patterns` configurable, `false` turns it off). */
  redact?: RequestGuardOptions['redact'];
}

export interface Kernel {
  /** Routes the step a runner just finished. Rejects only for bad input (InvalidForensicsError) or a failing store. */
  route(request: unknown): Promise<Decision>;
  /** The legal moves from a request's step, as tier 3 would be offered them. */
  candidates(request: unknown): CandidateMove[];
  /** The run's current state (loop counters, signature attempts, return points), or undefined for an unknown run. */
  runState(run_id: string): RunState | undefined;
  readonly flows: FlowSet;
  /** Live run actors (for tests and monitoring). */
  readonly liveRuns: number;
  /** Stops every run actor and closes the store. */
  close(): void;
}

type RunActor = Actor<typeof kernelMachine>;

/** Creates a routing kernel. See README "Embedding the kernel". */
export function createKernel(options: KernelOptions): Kernel {
  const { flows, navigator } = options;
  const store = options.store ?? new MemoryStore();
  const clock = options.clock ?? Date.now;
  // Formatting a Date costs more than routing a tier-1 decision: reuse the string within a millisecond.
  let lastMs = NaN;
  let lastIso = '';
  const isoNow = () => {
    const now = clock();
    const ms = typeof now === 'number' ? now : now.getTime();
    if (ms !== lastMs) (lastMs = ms), (lastIso = new Date(ms).toISOString());
    return lastIso;
  };
  const validate = options.validate ?? true;
  const maxLiveRuns = options.maxLiveRuns ?? 10_000;
  const timeoutMs = options.navigatorTimeoutMs ?? 30_000;

  const machine = kernelMachine.provide({
    actors: {
      navigator: fromPromise<NavigatorResult, RouteWork>(async ({ input: w, signal }) => {
        if (!navigator) return { failure: 'no navigator' };
        const abort = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
        try {
          const answer = await Promise.race([
            navigator({
              run_id: w.request.run_id,
              seq: w.seq,
              flow: w.flow.id,
              step: w.request.step_completed,
              request: w.request,
              charter: w.flow.charter,
              iteration: { current: w.iteration, max: w.max },
              candidates: buildCandidates(w),
              inject_nodes: { allowed: w.flow.def.inject_nodes.allowed, max_nodes: w.flow.def.inject_nodes.max_nodes, roster: [...w.flow.roster] },
              run_spent_usd: w.state.spent_usd,
              signal: abort,
            }),
            new Promise<never>((_, reject) => abort.addEventListener('abort', () => reject(new Error(`navigator gave no answer within ${timeoutMs} ms`)), { once: true })),
          ]);
          return { answer };
        } catch (e) {
          return { failure: e instanceof Error ? e.message : String(e) };
        }
      }),
    },
  });

  // Live run actors with a use counter; beyond maxLiveRuns the least recently used idle ones are stopped.
  const actors = new Map<string, { actor: RunActor; used: number }>();
  let tick = 0;
  const busy = new Map<string, Promise<unknown>>();
  // Runs whose route is waiting on tier 3 right now.
  const inFlight = new Set<string>();

  function actorFor(run_id: string): RunActor {
    const live = actors.get(run_id);
    if (live) {
      live.used = ++tick;
      return live.actor;
    }
    const run = store.loadRun(run_id) ?? emptyRunState(run_id);
    if (actors.size >= maxLiveRuns) evictIdle();
    const actor = createActor(machine, { input: { run, hasNavigator: navigator !== undefined } });
    actor.start();
    actors.set(run_id, { actor, used: ++tick });
    return actor;
  }

  /** Stops the least recently used idle actors: a tenth of the limit at once, so eviction stays rare. */
  function evictIdle(): void {
    const target = Math.max(0, maxLiveRuns - Math.ceil(maxLiveRuns / 10));
    const idle = [...actors].filter(([id]) => !busy.has(id)).sort((a, b) => a[1].used - b[1].used);
    for (const [id, { actor }] of idle) {
      if (actors.size <= target) break;
      actor.stop();
      actors.delete(id);
    }
  }

  const parse = createRequestGuard({ validate, ...(options.limits ? { limits: options.limits } : {}), ...(options.redact !== undefined ? { redact: options.redact } : {}) });

  async function routeNow(req: RouteRequest): Promise<Decision> {
    const t0 = performance.now();
    const actor = actorFor(req.run_id);
    const ts = isoNow();
    const work = buildRouteWork(req, flows, actor.getSnapshot().context.run, ts, navigator !== undefined);
    actor.send({ type: 'ROUTE', work });
    let snap = actor.getSnapshot();
    if (snap.value !== 'idle') {
      inFlight.add(req.run_id);
      try {
        snap = await waitFor(actor, (s) => s.value === 'idle', { timeout: Infinity });
      } finally {
        inFlight.delete(req.run_id);
      }
    }
    const outcome = snap.context.outcome!;
    assertDecisionTargets(outcome.decision, work);
    const record: RouteRecord = {
      run_id: req.run_id,
      seq: work.seq,
      flow: req.flow,
      step: req.step_completed,
      request_id: req.request_id ?? null,
      request: req,
      decision: outcome.decision,
      latency_us: Math.round((performance.now() - t0) * 1000) / 1000,
      cost_usd: outcome.cost_usd,
      kernel_version: VERSION,
      flows_hash: flows.hash,
      ts,
      llm_calls: outcome.llm_calls,
    };
    try {
      store.append(record, outcome.state);
    } catch (e) {
      // The actor moved on but the store did not: drop the actor so the run reloads what was recorded.
      actor.stop();
      actors.delete(req.run_id);
      throw e;
    }
    return outcome.decision;
  }

  function recordedFor(req: RouteRequest): Decision | undefined {
    if (req.request_id === undefined) return undefined;
    const recorded = store.findByRequestId(req.run_id, req.request_id);
    return recorded ? structuredClone(recorded) : undefined;
  }

  function route(request: unknown): Promise<Decision> {
    let req: RouteRequest;
    try {
      req = parse(request);
    } catch (e) {
      return Promise.reject(e);
    }
    const recorded = recordedFor(req);
    if (recorded) return Promise.resolve(recorded);
    const pending = busy.get(req.run_id);
    if (!pending) {
      const p = routeNow(req);
      // Only a route waiting on tier 3 is still running here; later routes of the run queue behind it.
      if (inFlight.has(req.run_id)) track(req.run_id, p);
      return p;
    }
    const next = () => recordedFor(req) ?? routeNow(req);
    const p = pending.then(next, next);
    track(req.run_id, p);
    return p;
  }

  function track(run_id: string, p: Promise<unknown>): void {
    busy.set(run_id, p);
    const clear = () => {
      if (busy.get(run_id) === p) busy.delete(run_id);
    };
    p.then(clear, clear);
  }

  return {
    route,
    candidates(request) {
      const req = parse(request);
      const state = actors.get(req.run_id)?.actor.getSnapshot().context.run ?? store.loadRun(req.run_id) ?? emptyRunState(req.run_id);
      return buildCandidates(buildRouteWork(req, flows, state, isoNow(), navigator !== undefined));
    },
    runState(run_id) {
      return actors.get(run_id)?.actor.getSnapshot().context.run ?? store.loadRun(run_id);
    },
    flows,
    get liveRuns() {
      return actors.size;
    },
    close() {
      for (const { actor } of actors.values()) actor.stop();
      actors.clear();
      store.close();
    },
  };
}
