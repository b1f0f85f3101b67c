// One route of a live run: what `route()` and the replay's recorded router share, so both decide with the same
// machine, the same tiers and the same last check. A live run is where it stands in the run machine (a state node and
// the machine's context); its synchronous transitions are taken without an actor (src/kernel/machine-steps.ts), and
// an actor of the same machine takes over only while tier 3 is asked (the one asynchronous step).
import { createActor, fromPromise, waitFor, type AnyStateNode } from 'xstate';
import type { ArbiterPort } from '../contracts/ports.js';
import type { RouteRequest } from '../contracts/route-request.js';
import type { RunState } from '../contracts/index.js';
import { buildRouteWork } from './build-work.js';
import { assertDecisionTargets } from './check-decision.js';
import type { FlowSet } from './flows/compiled-flow.js';
import type { RouteWork } from './route-work.js';
import { runMachine, type ArbiterResult, type RouteOutcome, type RunContext } from './run-machine.js';
import type { RunRefusal } from '../../machines/kernel.machine.js';
import type { NavkernelError } from '../contracts/errors.js';
import { EscalationOpenError, RunEndedError, StepMismatchError } from '../contracts/run-errors.js';
import { buildCandidates } from './tiers/candidates.js';
import { compileSteps, HAND_OFF, type MachineSteps } from './machine-steps.js';

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

/** A run machine with its synchronous steps compiled: one per kernel (or replay router). */
export interface RunMachineKit {
  machine: RunMachine;
  steps: MachineSteps<RunContext>;
  hasArbiter: boolean;
}

/** The run machine with tier 3 provided (see provideRunMachine), ready to hold runs. */
export function runMachineKit(arbiter: ArbiterPort | undefined, timeoutMs: number): RunMachineKit {
  const machine = provideRunMachine(arbiter, timeoutMs);
  return { machine, steps: compileSteps<RunContext>(machine), hasArbiter: arbiter !== undefined };
}

/** A live run: where it stands in the run machine (an atomic state node) and the machine's context. Routes move it on. */
export interface LiveRun {
  node: AnyStateNode;
  context: RunContext;
}

/** Takes one event synchronously; false when an actor must take it (tier 3). */
function stepRun(kit: RunMachineKit, live: LiveRun, event: Parameters<RunMachine['transition']>[1]): boolean {
  const next = kit.steps.step(live, event);
  if (next === HAND_OFF) return false;
  live.node = next.node;
  live.context = next.context;
  return true;
}

/**
 * A live run in `state`, standing where the machine puts it (LOAD): routing (waiting for the report of the step it
 * was sent to), awaiting a person, or ended.
 */
export function startRun(kit: RunMachineKit, state: RunState): LiveRun {
  const live: LiveRun = { node: kit.steps.initial, context: { run: state, hasArbiter: kit.hasArbiter } };
  loadOnRun(kit, live, state);
  return live;
}

/** A route decided by the machine: the tiers' outcome and the work it was decided on. */
export interface Routed {
  outcome: RouteOutcome;
  work: RouteWork;
}

function settled(context: RunContext, work: RouteWork): Routed {
  const outcome = context.outcome!;
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
 * Routes `req` at time `ts` on a live run: the ROUTE event through the machine (its refusals, then the tiers), then
 * the decision's targets checked. Synchronous unless the machine asks tier 3: an actor of the machine, restored where
 * the run stands, then takes the event and the run stands where the actor settles (a promise). Throws a typed refusal
 * (STEP_MISMATCH, RUN_ENDED, ESCALATION_OPEN: the run's state is unchanged), or throws (or rejects) for an unknown
 * flow or step, or a decision naming a target that does not exist; the live run must then be dropped.
 */
export function routeOnRun(kit: RunMachineKit, live: LiveRun, req: RouteRequest, flows: FlowSet, ts: string): Routed | Promise<Routed> {
  const work = buildRouteWork(req, flows, live.context.run, ts, kit.hasArbiter);
  const event = { type: 'ROUTE', report: { flow: req.flow, step: req.step_completed, restart: req.restart !== undefined }, work } as const;
  if (stepRun(kit, live, event)) {
    const context = live.context;
    if (context.refusal) throw refusalError(req.run_id, context.refusal);
    return settled(context, work);
  }
  return arbitrate(kit, live, event, work);
}

/** The route through tier 3: an actor of the same machine takes the event from where the run stands, until it settles. */
async function arbitrate(kit: RunMachineKit, live: LiveRun, event: Parameters<RunMachine['transition']>[1], work: RouteWork): Promise<Routed> {
  const { machine, steps } = kit;
  const context = live.context as unknown as Parameters<RunMachine['resolveState']>[0]['context'];
  const actor = createActor(machine, { input: { run: live.context.run, hasArbiter: kit.hasArbiter }, snapshot: machine.resolveState({ value: steps.valueOf(live.node), context }) });
  try {
    actor.start();
    actor.send(event);
    const s = await waitFor(actor, (s) => typeof s.value === 'string' || s.value.routing !== 'arbitrating', { timeout: Infinity });
    live.node = steps.nodeAt(s.value);
    live.context = s.context as unknown as RunContext;
    if (live.context.refusal) throw refusalError(work.request.run_id, live.context.refusal);
    return settled(live.context, work);
  } finally {
    actor.stop();
  }
}

/** Puts another state into a live run (LOAD): it stands where `run` stands, as a new live run would. */
export function loadOnRun(kit: RunMachineKit, live: LiveRun, run: RunState): void {
  if (!stepRun(kit, live, { type: 'LOAD', run })) throw new Error('kernel machine: LOAD needs an actor');
}

/** Applies a person's resolution to a run awaiting one (RESOLVED): the run moves on to routing or ended. */
export function resolveOnRun(kit: RunMachineKit, live: LiveRun, run: RunState): void {
  if (!stepRun(kit, live, { type: 'RESOLVED', run })) throw new Error('kernel machine: RESOLVED needs an actor');
}
