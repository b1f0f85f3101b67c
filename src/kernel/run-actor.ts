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
import { runContext, runMachine, type ArbiterResult, type RouteOutcome, type RunContext } from './run-machine.js';
import { stateValueOf, type RunRefusal } from '../../machines/kernel.machine.js';
import type { NavkernelError } from '../contracts/errors.js';
import { EscalationOpenError, RunEndedError, StepMismatchError } from '../contracts/run-errors.js';
import { buildCandidates } from './tiers/candidates.js';

/** The run machine with tier 3 provided: `arbiter` (or none), each call capped at `timeoutMs`. */
export function provideRunMachine(arbiter: ArbiterPort | undefined, timeoutMs: number) {
  return runMachine.provide({
    actors: {
      // The machine's actor is untyped (machines/ knows nothing of the kernel's types): its input is the held RouteWork.
      arbiter: fromPromise<unknown, unknown>(async ({ input, signal }): Promise<ArbiterResult> => {
        const w = input as RouteWork;
        if (!arbiter) return { failure: 'no arbiter' };
        // A plain timer, not AbortSignal.timeout(): AbortSignal.any() holds its sources weakly, and a collected
        // timeout signal never fires (a hanging port then hung the route; seen under GC pressure).
        const ctl = new AbortController();
        const abort = ctl.signal;
        const timer = setTimeout(() => ctl.abort(new Error('timeout')), timeoutMs);
        const onAbort = () => ctl.abort(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
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
        } finally {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
        }
      }),
    },
  });
}

export type RunMachine = ReturnType<typeof provideRunMachine>;
export type RunActor = Actor<RunMachine>;

/**
 * A started actor of `machine` for a run in `state`, restored where the run stands: routing (waiting for the report
 * of the step it was sent to), awaiting a person, or ended.
 */
export function startRunActor(machine: RunMachine, state: RunState, hasArbiter: boolean): RunActor {
  const lifecycle = state.lifecycle;
  const actor =
    lifecycle === 'awaiting_person' || lifecycle === 'ended'
      ? createActor(machine, { input: { run: state, hasArbiter }, snapshot: machine.resolveState({ value: stateValueOf(lifecycle), context: { run: state, hasArbiter } }) })
      : createActor(machine, { input: { run: state, hasArbiter } });
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

/** The typed error for a refused route (nothing was recorded). */
export function refusalError(run_id: string, r: RunRefusal): NavkernelError {
  switch (r.code) {
    case 'STEP_MISMATCH':
      return r.restart
        ? new StepMismatchError(run_id, r.expected, r.reported, `run ${JSON.stringify(run_id)} is in flow ${r.expected.flow} (sent to ${r.expected.step}); a restart must be from a step of that flow, not ${r.reported.flow}/${r.reported.step}; nothing was recorded`)
        : new StepMismatchError(run_id, r.expected, r.reported);
    case 'RUN_ENDED':
      return new RunEndedError(run_id, r.seq);
    case 'ESCALATION_OPEN':
      return new EscalationOpenError(run_id, r.escalation_id);
  }
}

/**
 * Routes `req` at time `ts` on the run's actor: the ROUTE event through the machine (its refusals, then the tiers),
 * then the decision's targets checked. Synchronous when no tier-3 call is pending (tiers 1, 2, 4 and 5 decide
 * inside `send`); a promise while the machine waits for tier 3. Throws a typed refusal (STEP_MISMATCH, RUN_ENDED,
 * ESCALATION_OPEN: the actor is unchanged), or throws (or rejects) for an unknown flow or step, or a decision naming
 * a target that does not exist; the actor has then moved on and must be dropped.
 */
export function routeOnActor(actor: RunActor, req: RouteRequest, flows: FlowSet, ts: string, hasArbiter: boolean): Routed | Promise<Routed> {
  const work = buildRouteWork(req, flows, runContext(actor).run, ts, hasArbiter);
  actor.send({ type: 'ROUTE', report: { flow: req.flow, step: req.step_completed, restart: req.restart !== undefined }, work });
  const snap = actor.getSnapshot();
  const context = snap.context as unknown as RunContext;
  if (context.refusal) throw refusalError(req.run_id, context.refusal);
  const value = snap.value;
  if (typeof value === 'string' || value.routing !== 'arbitrating') return settled(context, work);
  return waitFor(actor, (s) => typeof s.value === 'string' || s.value.routing !== 'arbitrating', { timeout: Infinity }).then((s) => settled(s.context, work));
}

/** Puts another run into a live, idle actor (LOAD): it stands where `run` stands, as a new actor would. */
export function loadOnActor(actor: RunActor, run: RunState): void {
  actor.send({ type: 'LOAD', run });
}

/** Applies a person's resolution to a run awaiting one (RESOLVED): the actor moves on to routing or ended. */
export function resolveOnActor(actor: RunActor, run: RunState): void {
  actor.send({ type: 'RESOLVED', run });
}
