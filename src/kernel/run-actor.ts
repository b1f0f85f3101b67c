// One route on a run's live actor: what `route()` and the replay's recorded router share, so both decide with the
// same machine, the same tiers and the same last check.
import { createActor, fromPromise, waitFor, type Actor } from 'xstate';
import type { ArbiterPort } from '../contracts/ports.js';
import type { RouteRequest } from '../contracts/route-request.js';
import type { RunState } from '../contracts/index.js';
import { buildRouteWork } from './build-work.js';
import { assertDecisionTargets } from './check-decision.js';
import type { FlowSet } from './flows/compiled-flow.js';
import type { RouteWork } from './route-work.js';
import { runContext, runMachine, type ArbiterResult, type RouteOutcome } from './run-machine.js';
import { buildCandidates } from './tiers/candidates.js';

/** The run machine with tier 3 provided: `arbiter` (or none), each call capped at `timeoutMs`. */
export function provideRunMachine(arbiter: ArbiterPort | undefined, timeoutMs: number) {
  return runMachine.provide({
    actors: {
      // The machine's actor is untyped (machines/ knows nothing of the kernel's types): its input is the held RouteWork.
      arbiter: fromPromise<unknown, unknown>(async ({ input, signal }): Promise<ArbiterResult> => {
        const w = input as RouteWork;
        if (!arbiter) return { failure: 'no arbiter' };
        const abort = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
        try {
          const answer = await Promise.race([
            arbiter({
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
            new Promise<never>((_, reject) => abort.addEventListener('abort', () => reject(new Error(`the arbiter (tier 3) gave no answer within ${timeoutMs} ms`)), { once: true })),
          ]);
          return { answer };
        } catch (e) {
          return { failure: e instanceof Error ? e.message : String(e) };
        }
      }),
    },
  });
}

export type RunMachine = ReturnType<typeof provideRunMachine>;
export type RunActor = Actor<RunMachine>;

/** A started actor of `machine` for a run in `state`. */
export function startRunActor(machine: RunMachine, state: RunState, hasArbiter: boolean): RunActor {
  const actor = createActor(machine, { input: { run: state, hasArbiter } });
  actor.start();
  return actor;
}

/** A route decided by the machine: the tiers' outcome and the work it was decided on. */
export interface Routed {
  outcome: RouteOutcome;
  work: RouteWork;
}

function settled(snapshotContext: unknown, work: RouteWork): Routed {
  const outcome = (snapshotContext as ReturnType<typeof runContext>).outcome!;
  assertDecisionTargets(outcome.decision, work);
  return { outcome, work };
}

/**
 * Routes `req` at time `ts` on the run's actor: the ROUTE event through the machine's tiers, then the decision's
 * targets checked. Synchronous when no tier-3 call is pending (tiers 1, 2, 4 and 5 decide inside `send`); a
 * promise while the machine waits for tier 3. Throws (or rejects) for an unknown flow or step, or a decision
 * naming a target that does not exist; the actor has then moved on and must be dropped.
 */
export function routeOnActor(actor: RunActor, req: RouteRequest, flows: FlowSet, ts: string, hasArbiter: boolean): Routed | Promise<Routed> {
  const work = buildRouteWork(req, flows, runContext(actor).run, ts, hasArbiter);
  actor.send({ type: 'ROUTE', work });
  const snap = actor.getSnapshot();
  if (snap.value === 'idle') return settled(snap.context, work);
  return waitFor(actor, (s) => s.value === 'idle', { timeout: Infinity }).then((s) => settled(s.context, work));
}
