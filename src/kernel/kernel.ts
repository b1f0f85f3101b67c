import { resolveOnRun, routeOnRun, runMachineKit, startRun, type LiveRun } from './run-actor.js';
import { resolutionOf } from './resolution.js';
// Contracts by file, not the barrel: `navkernel/kernel` loads only what routing uses (tests/structure).
import { canonicalJson, sha256 } from '../contracts/canonical-json.js';
import { NavkernelError, ValidationError } from '../contracts/errors.js';
import { IdempotencyConflictError } from '../contracts/store-errors.js';
import type { CandidateMove, Decision, KernelStore, ArbiterPort, RouteRecord, RouteRequest, RunState } from '../contracts/index.js';
import { VERSION } from '../version.js';
import { buildRouteWork } from './build-work.js';
import type { FlowSet } from './flows/compiled-flow.js';
import { MemoryStore } from './memory-store.js';
import { createRequestGuard, type RequestGuardOptions } from './request-guard.js';
import { emptyRunState, resolvedRunState } from './run-state.js';
import { buildCandidates } from './tiers/candidates.js';
import { FlowVersionUnknownError, flowSetFromDefinition, flowsDefinition } from './flows/flow-version.js';

/** Options of createKernel: the flows, the store, tier 3 (the arbiter), limits and the clock. */
export interface KernelOptions {
  /** The flows to route (from `loadFlows()` or `defineFlows()`). */
  flows: FlowSet;
  /** Where runs are kept. Default: in memory (a `MemoryStore`). Pass the SQLite ledger to survive restarts. */
  store?: KernelStore;
  /**
   * Tier 3, the arbiter: asked to pick one legal candidate move when tiers 1 and 2 cannot decide (`createLlmArbiter`
   * puts a model behind it). When absent, tier 3 is skipped with rule `arbiter_unavailable` (ledgers recorded with the
   * former `navigator_*` names read as these: contracts/arbiter-rules.ts).
   */
  arbiter?: ArbiterPort;
  /** Time source (epoch milliseconds or a Date) for recorded timestamps. Decisions never depend on it. */
  clock?: () => number | Date;
  /** Check each request's limits and validate it against `schemas/route-request.schema.json` (default true; `false` skips both). */
  validate?: boolean;
  /**
   * Live runs kept in memory (where each stands in the run machine; default 10,000). Beyond it the least recently
   * used idle one is forgotten (O(1)); its run is reloaded from the store when routed again.
   */
  maxLiveRuns?: number;
  /** How many times a route is routed again after the store reports another writer on its run (default 16). */
  maxConflictRetries?: number;
  /** Hard cap on one tier-3 call, after which the kernel falls through (default 30 s). */
  arbiterTimeoutMs?: number;
  /** Depth and size limits of a request (default 64 levels, 1 MiB). docs/security.md. */
  limits?: RequestGuardOptions['limits'];
  /** Secret redaction before anything is stored or sent (on by default; extra `patterns` configurable, `false` turns it off). */
  redact?: RequestGuardOptions['redact'];
  /**
   * Refuse a request whose forensics hold a misspelt field (`concern` for `concerns`) or numbers that contradict each
   * other (`iteration.current` above `max`), instead of routing it with a warning (default false). docs/run-states.md.
   */
  strict?: boolean;
}

/** What the caller of `route()` knows about a request that the request itself cannot say. */
export interface RouteOptions {
  /**
   * Who sent the request, as the transport authenticated it (`navkernel serve` passes the principal its bearer token
   * belongs to). Recorded on the route and covered by the hash chain; null or absent records nobody. It never changes
   * the decision, and a request cannot claim it: it is not a field of the request. 1 to 256 characters.
   */
  principal?: string | null;
}

/** A routing kernel: route() a step report to the next move; close() when done. */
export interface Kernel {
  /** Routes the step a runner just finished. Rejects only for bad input (a ValidationError: INVALID_REQUEST or INVALID_FORENSICS) or a failing store. */
  route(request: unknown, options?: RouteOptions): Promise<Decision>;
  /** The legal moves from a request's step, as tier 3 would be offered them. */
  candidates(request: unknown): Promise<CandidateMove[]>;
  /** The run's current state (loop counters, signature attempts, return points), or undefined for an unknown run. */
  runState(run_id: string): Promise<RunState | undefined>;
  /** The flows new runs get (the version loaded now; see `setFlows`). */
  readonly flows: FlowSet;
  /**
   * Loads another flow set for new runs (docs/changing-flows.md): runs in flight stay pinned to the version they
   * started with (kept in memory and in the store), so a new flow set never disturbs them. `navkernel serve` calls it
   * on SIGHUP.
   */
  setFlows(flows: FlowSet): void;
  /** Live runs: where each stands in the run machine (for tests and monitoring). */
  readonly liveRuns: number;
  /** Waits for routes in flight, forgets every live run and closes the store. */
  close(): Promise<void>;
}

/** Creates a routing kernel. See docs/kernel.md. */
export function createKernel(options: KernelOptions): Kernel {
  // The flow set new runs get, and every version this kernel has routed with or read back: runs are pinned to theirs.
  let flows = options.flows;
  const versions = new Map<string, FlowSet>([[flows.hash, flows]]);
  // Versions the store is known to keep (saved by this kernel, or read back from it).
  const kept = new Set<string>();
  const arbiter = options.arbiter;
  const store: KernelStore = options.store ?? new MemoryStore();
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
  const timeoutMs = options.arbiterTimeoutMs ?? 30_000;

  const kit = runMachineKit(arbiter, timeoutMs);

  // Live runs in least-recently-used order (a Map keeps insertion order: a use moves the run to the end).
  const live = new Map<string, LiveRun>();
  // The last route of each run still settling: later routes of the run chain behind it (one route per run at a time).
  const busy = new Map<string, Promise<unknown>>();
  const maxRetries = options.maxConflictRetries ?? 16;

  // The run used last (the newest entry of `live`): using it again leaves the order as it is, without a delete and set
  // (which make the Map rehash its table every few routes).
  let newest: string | undefined;

  function liveRun(run_id: string): LiveRun | undefined {
    const run = live.get(run_id);
    if (run && newest !== run_id) {
      live.delete(run_id);
      live.set(run_id, run);
      newest = run_id;
    }
    return run;
  }

  function holdRun(run_id: string, state: RunState): LiveRun {
    const run = startRun(kit, state);
    live.set(run_id, run);
    newest = run_id;
    if (live.size > maxLiveRuns) evictOne();
    return run;
  }

  /** Forgets the least recently used idle run: O(1) unless the oldest runs are all busy. */
  function evictOne(): void {
    for (const id of live.keys()) {
      if (busy.has(id)) continue;
      live.delete(id);
      return;
    }
  }

  const parse = createRequestGuard({ validate, ...(options.strict ? { strict: true } : {}), ...(options.limits ? { limits: options.limits } : {}), ...(options.redact !== undefined ? { redact: options.redact } : {}) });

  /** The flow version a run routes with: the current one for a new run (or one recorded before versions), else its pin. */
  function versionOf(run: RunState): FlowSet | Promise<FlowSet> {
    const pin = run.seq === 0 ? undefined : run.flows;
    if (pin === undefined || pin === flows.hash) return flows;
    return versions.get(pin) ?? readVersion(pin);
  }

  async function readVersion(hash: string): Promise<FlowSet> {
    const definition = store.flowVersion ? await store.flowVersion(hash) : undefined;
    if (definition === undefined) throw new FlowVersionUnknownError(hash, store.flowVersion ? 'in the ledger' : 'in this kernel (its store keeps no flow versions)');
    const set = flowSetFromDefinition(hash, definition);
    versions.set(hash, set);
    kept.add(hash);
    return set;
  }

  async function routeNow(req: RouteRequest, run: LiveRun, requestHash: string, t0: number, principal: string | null): Promise<Decision> {
    const ts = isoNow();
    const pinned = versionOf(run.context.run);
    const version = pinned instanceof Promise ? await pinned : pinned;
    // The definition is kept before the first route that names its hash, so every recorded route can be replayed.
    if (!kept.has(version.hash) && store.saveFlowVersion) {
      await store.saveFlowVersion(version.hash, flowsDefinition(version));
      kept.add(version.hash);
    }
    const routed = routeOnRun(kit, run, req, version, ts);
    const { outcome, work } = routed instanceof Promise ? await routed : routed;
    const record: RouteRecord = {
      run_id: req.run_id,
      seq: work.seq,
      flow: req.flow,
      step: req.step_completed,
      request_id: req.request_id ?? null,
      request_hash: requestHash,
      request: req,
      decision: outcome.decision,
      // performance.now() is in ms: the ledger keeps whole µs (see docs/decisions.md, latency unit).
      latency_us: Math.round((performance.now() - t0) * 1000),
      cost_usd: outcome.cost_usd,
      kernel_version: VERSION,
      flows_hash: version.hash,
      ts,
      llm_calls: outcome.llm_calls,
    };
    if (principal !== null) record.principal = principal;
    try {
      await store.append(record, outcome.state);
    } catch (e) {
      // The run moved on but the store did not: drop it so the run reloads what was recorded.
      live.delete(req.run_id);
      throw e;
    }
    // An ended run takes no more routes: forget it (a late route reloads the run, ended).
    if (outcome.decision.decision === 'TERMINATE' && live.get(req.run_id) === run) live.delete(req.run_id);
    return outcome.decision;
  }

  /** One route of a run, with the run's earlier routes settled: idempotency check, route, append, retry on conflict. */
  async function routeOne(req: RouteRequest, principal: string | null): Promise<Decision> {
    const t0 = performance.now();
    const requestHash = req.request_id === undefined ? '' : sha256(canonicalJson(req));
    for (let attempt = 0; ; attempt++) {
      if (req.request_id !== undefined) {
        const recorded = await store.findByRequestId(req.run_id, req.request_id);
        if (recorded) {
          if (recorded.request_hash !== requestHash) throw new IdempotencyConflictError(req.run_id, req.request_id);
          return structuredClone(recorded.decision);
        }
      }
      const run = liveRun(req.run_id) ?? holdRun(req.run_id, (await store.loadRun(req.run_id)) ?? emptyRunState(req.run_id));
      // A run awaiting a person: has one resolved its escalation? The resolution says where the run goes.
      const waiting = run.context.run;
      if (waiting.lifecycle === 'awaiting_person' && waiting.escalation_id !== undefined && store.escalation) {
        const resolved = resolutionOf(await store.escalation(waiting.escalation_id));
        if (resolved) resolveOnRun(kit, run, resolvedRunState(waiting, resolved.escalated, resolved.resolution));
      }
      // A person may have upgraded the run (`navkernel runs upgrade`, another process) since its last route. No look
      // here: the store refuses the append of a route decided on the old version as a conflict (LEDGER_CONFLICT below),
      // and the run is reloaded from the upgraded state (loadRun applies it) and routed again.
      const held = run.context.run;
      try {
        return await routeNow(req, run, requestHash, t0, principal);
      } catch (e) {
        // Refused by the run's state as this kernel holds it (or a step its version lacks): another writer (another
        // kernel, process or host) may have moved the run on, or upgraded it. Refuse only what the store's head
        // refuses too.
        if (e instanceof NavkernelError && (REFUSALS.has(e.code) || unknownStepOrFlow(e))) {
          const head = attempt < maxRetries && held.seq > 0 ? await store.loadRun(req.run_id) : undefined;
          if (head === undefined || (head.seq === held.seq && head.flows === held.flows)) throw e;
          live.delete(req.run_id);
          continue;
        }
        // Another writer recorded this run's next seq first (or upgraded the run): reload the run and route again on
        // its new head.
        if (!(e instanceof NavkernelError && e.code === 'LEDGER_CONFLICT') || attempt >= maxRetries) throw e;
      }
    }
  }

  function route(request: unknown, options?: RouteOptions): Promise<Decision> {
    let req: RouteRequest;
    let principal: string | null;
    try {
      principal = principalOf(options);
      req = parse(request);
    } catch (e) {
      return Promise.reject(e);
    }
    const pending = busy.get(req.run_id);
    const next = () => routeOne(req, principal);
    const p = pending ? pending.then(next, next) : routeOne(req, principal);
    busy.set(req.run_id, p);
    const clear = () => {
      if (busy.get(req.run_id) === p) busy.delete(req.run_id);
    };
    p.then(clear, clear);
    return p;
  }

  async function stateOf(run_id: string): Promise<RunState | undefined> {
    const pending = busy.get(run_id);
    if (pending) await pending.then(noop, noop);
    const run = live.get(run_id);
    return (run ? run.context.run : undefined) ?? (await store.loadRun(run_id));
  }

  return {
    route,
    async candidates(request) {
      const req = parse(request);
      const state = (await stateOf(req.run_id)) ?? emptyRunState(req.run_id);
      return buildCandidates(buildRouteWork(req, await versionOf(state), state, isoNow(), arbiter !== undefined));
    },
    runState: stateOf,
    get flows() {
      return flows;
    },
    setFlows(next: FlowSet) {
      flows = versions.get(next.hash) ?? next;
      versions.set(flows.hash, flows);
    },
    get liveRuns() {
      return live.size;
    },
    async close() {
      await Promise.all([...busy.values()].map((p) => p.then(noop, noop)));
      live.clear();
      await store.close();
    },
  };
}

function noop(): void {}

/** A request naming a flow or step the run's flow version lacks (an upgraded version may have it). */
function unknownStepOrFlow(e: NavkernelError): boolean {
  return e instanceof ValidationError && e.code === 'INVALID_REQUEST' && e.issues.some((i) => i.code === 'unknown_step' || i.code === 'unknown_flow');
}

/** The codes of a route refused by the run's state (docs/run-states.md). */
const REFUSALS: ReadonlySet<string> = new Set(['STEP_MISMATCH', 'RUN_ENDED', 'ESCALATION_OPEN']);

/** The principal a route is recorded with (null: none), or INVALID_OPTION for one that is not a name. */
function principalOf(options: RouteOptions | undefined): string | null {
  const p = options?.principal;
  if (p === undefined || p === null) return null;
  if (typeof p !== 'string' || p.length === 0 || p.length > 256 || /[\uD800-\uDFFF]/u.test(p)) {
    throw new NavkernelError('INVALID_OPTION', `route(request, { principal }): the principal must be a well-formed string of 1 to 256 characters or null (got ${typeof p === 'string' ? `${p.length} characters` : typeof p})`);
  }
  return p;
}
