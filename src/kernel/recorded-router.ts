import { canonicalJson, sha256 } from '../contracts/canonical-json.js';
import type { Decision } from '../contracts/decision.js';
import type { ArbiterPort } from '../contracts/ports.js';
import type { RouteRequest } from '../contracts/route-request.js';
import type { RunState } from '../contracts/index.js';
import { IdempotencyConflictError } from '../contracts/store-errors.js';
import type { FlowSet } from './flows/compiled-flow.js';
import { loadOnRun, resolveOnRun, routeOnRun, runMachineKit, startRun, type LiveRun, type RunMachineKit } from './run-actor.js';
import type { ResolvedEscalation } from './resolution.js';
import { emptyRunState, resolvedRunState } from './run-state.js';

export interface RecordedRouterOptions {
  flows: FlowSet;
  /** Tier 3, as for `createKernel`. */
  arbiter?: ArbiterPort;
  /** Cap on one tier-3 call (default 30 s, as for `createKernel`). */
  arbiterTimeoutMs?: number;
  /** Idempotency keys remembered, as the kernel's default MemoryStore (default 100,000, the most recent). */
  maxRequestIds?: number;
  /**
   * The recorded resolution of an escalation, if a person resolved it: a run awaiting a person goes where it says
   * before its next request is routed, as the kernel learns it from its store. Without it, such a run stays open.
   */
  resolution?: (escalation_id: string) => ResolvedEscalation | undefined;
  /**
   * The recorded upgrade of a run after its route `seq` (`navkernel runs upgrade`), as the state it left the run in: the
   * run goes on from it before its next request is routed, as the kernel learns it from its store.
   */
  upgradeAfter?: (run_id: string, seq: number) => RunState | undefined;
}

/** Routes recorded requests one after another, at their recorded times, holding nothing but the runs' states. */
export interface RecordedRouter {
  /**
   * Routes a request as recorded (it passed `route()`'s guard when it was recorded: validated, limits checked,
   * secrets redacted) at the recorded time `ts` (ISO-8601). The decision is synchronous unless tier 3 is asked.
   * Throws (or rejects) where `route()` would reject. Routes of one router must not overlap: await each.
   * `flows`: the flow version this route is decided with (default the router's `flows`): a replay from the ledger
   * passes the version each route was recorded with.
   */
  route(request: RouteRequest, ts: string, flows?: FlowSet): Decision | Promise<Decision>;
  /** The run's state after its last routed request (undefined for a run not routed). */
  state(run_id: string): RunState | undefined;
  /** Forgets the live runs. */
  close(): void;
}

let plainKit: RunMachineKit | undefined;

/**
 * What a kernel in memory (`createKernel({ flows, arbiter, validate: false, redact: false, clock })`) would answer to
 * the same requests routed one at a time, without what only a live kernel needs: no per-route record, store append,
 * latency clock or request hash, no promise per route, no chain of routes per run (the caller awaits each). The
 * decision comes from the same code: the run machine (`runMachineKit`), `routeOnRun` and the kernel's rules
 * for a run's state, a repeated request_id and a decision that fails its last check (the run goes back to its last
 * committed state, as the kernel's store conflict reloads it). Replay uses it (src/runs/replay.ts).
 */
export function createRecordedRouter(options: RecordedRouterOptions): RecordedRouter {
  const { flows, arbiter } = options;
  const hasArbiter = arbiter !== undefined;
  // Without tier 3 every router shares one machine: providing one costs more than replaying a short run.
  const kit = hasArbiter ? runMachineKit(arbiter, options.arbiterTimeoutMs ?? 30_000) : (plainKit ??= runMachineKit(undefined, 30_000));
  const maxRequestIds = options.maxRequestIds ?? 100_000;
  const live = new Map<string, LiveRun>();
  // Each run's state after its last decision: what the kernel's store holds, where a run dropped after a failed
  // last check starts again.
  const committed = new Map<string, RunState>();
  // Idempotency keys (run, request_id) as the kernel's MemoryStore keeps them: a repeat answers the earlier decision.
  const requests = new Map<string, { request: RouteRequest; decision: Decision }>();
  let lastTs = '';
  let lastIso = '';

  function decided(req: RouteRequest, key: string | undefined, decision: Decision, state: RunState): Decision {
    committed.set(req.run_id, state);
    if (key !== undefined && maxRequestIds > 0) {
      requests.delete(key);
      requests.set(key, { request: req, decision });
      if (requests.size > maxRequestIds) requests.delete(requests.keys().next().value as string);
    }
    return decision;
  }

  function dropRun(run_id: string): void {
    live.delete(run_id);
  }

  return {
    route(req, ts, version = flows) {
      let key: string | undefined;
      if (req.request_id !== undefined) {
        key = `${req.run_id}\u0000${req.request_id}`;
        const earlier = requests.get(key);
        // The kernel compares request hashes; computed here only for a repeat, which a ledger never records twice.
        if (earlier) {
          if (sha256(canonicalJson(earlier.request)) !== sha256(canonicalJson(req))) throw new IdempotencyConflictError(req.run_id, req.request_id);
          return structuredClone(earlier.decision);
        }
      }
      // The kernel's clock formats the recorded time once per distinct value.
      if (ts !== lastTs) {
        lastIso = new Date(Date.parse(ts)).toISOString();
        lastTs = ts;
      }
      let run = live.get(req.run_id);
      if (!run) live.set(req.run_id, (run = startRun(kit, committed.get(req.run_id) ?? emptyRunState(req.run_id))));
      const run_id = req.run_id;
      const waiting = run.context.run;
      if (waiting.lifecycle === 'awaiting_person' && waiting.escalation_id !== undefined) {
        const resolved = options.resolution?.(waiting.escalation_id);
        if (resolved) resolveOnRun(kit, run, resolvedRunState(waiting, resolved.escalated, resolved.resolution));
      }
      const upgraded = waiting.seq > 0 ? options.upgradeAfter?.(run_id, waiting.seq) : undefined;
      if (upgraded) loadOnRun(kit, run, upgraded);
      let routed;
      try {
        routed = routeOnRun(kit, run, req, version, lastIso);
      } catch (e) {
        dropRun(run_id);
        throw e;
      }
      if (!(routed instanceof Promise)) return decided(req, key, routed.outcome.decision, routed.outcome.state);
      return routed.then(
        (r) => decided(req, key, r.outcome.decision, r.outcome.state),
        (e: unknown) => {
          dropRun(run_id);
          throw e;
        },
      );
    },
    state(run_id) {
      return committed.get(run_id);
    },
    close() {
      live.clear();
    },
  };
}
