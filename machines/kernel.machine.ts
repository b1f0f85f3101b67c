/**
 * The routing kernel's run machine: each active run stands in it, saying what the run is and where it stands.
 *
 * - `routing`: the kernel waits for the report of the step it sent the run to (`idle`), or asks tier 3
 *   (`arbitrating`). Each route() is a ROUTE event; the five tiers are guarded transitions tried in order, after the
 *   refusals of a report from the wrong step.
 * - `awaitingPerson`: an escalation is open. Every ROUTE is refused (ESCALATION_OPEN) until the kernel learns the
 *   person's resolution (RESOLVED), which says where the run goes: back to `routing`, or `ended`.
 * - `ended`: the run ended (TERMINATE). Every ROUTE is refused (RUN_ENDED).
 *
 * A refusal changes nothing but the context's `refusal`: the run's state stays as it was, and the kernel records
 * nothing. Every decision the tiers commit passes the run's bounds first (visit cap, route budget, depth cap:
 * src/kernel/bounds.ts), so no run loops on.
 *
 * Topology, types and the pure refusal rules live here; the tiers' guards, the commits and the one asynchronous step
 * (tier 3, an invoked promise actor) are named here and provided by the kernel (src/kernel/run-machine.ts,
 * src/kernel/run-actor.ts) with `.provide()`. This file imports nothing from src/, so the arrows run one way:
 * src/kernel -> machines. The kernel's RunState (src/contracts/ports.ts) is a MachineRun.
 *
 * The kernel takes the synchronous transitions without an actor (src/kernel/machine-steps.ts reads them from this
 * definition): keep their actions assign()s; a state that starts something (an invoke, entry or exit actions) is
 * handed to a real actor, and what that module cannot step (eventless or delayed transitions, parallel states) is
 * refused when the kernel starts.
 */
import { assign, fromPromise, setup } from 'xstate';

/** A step of a flow: where the kernel sent a run, or where a report comes from. */
export interface RunPosition {
  readonly flow: string;
  readonly step: string;
  /**
   * Set when a LOOP sent the run back to `step`: the step that loops, which may report instead (a runner may run the
   * loop's steps without reporting each, as seed 003's microloops do).
   */
  readonly loop?: string;
}

/** What a run is doing; the machine's top-level state mirrors it. */
export type RunLifecycle = 'routing' | 'awaiting_person' | 'ended';

/** A return point as the machine sees it: where control goes back after a detour or injected flow. */
export interface MachineReturnPoint {
  readonly flow: string;
  readonly step: string;
  readonly via: 'step' | 'flow' | 'nodes';
  readonly target: string;
}

/** The run as the machine reads it (the kernel's RunState has more: loop counters, signatures, spend). */
export interface MachineRun {
  readonly run_id: string;
  /** Routes recorded so far. */
  readonly seq: number;
  /** Absent in states recorded before navkernel 0.2: `routing`. */
  readonly lifecycle?: RunLifecycle;
  /** The step the kernel sent the run to; null or absent: any step of the run's flow (a new run). */
  readonly at?: RunPosition | null;
  /** The open escalation while awaiting a person. */
  readonly escalation_id?: string;
  /** The stack of return points, innermost last. */
  readonly returns: readonly MachineReturnPoint[];
  /** `<flow>/<step>` -> times the kernel sent the run there (never reset). */
  readonly visits?: Readonly<Record<string, number>>;
}

/** What the refusal rules read of a report. */
export interface MachineReport {
  readonly flow: string;
  readonly step: string;
  /** The request carries `restart`: the runner says it restarted from this step. */
  readonly restart: boolean;
}

/** Why a ROUTE was refused: the kernel throws the matching typed error and records nothing. */
export type RunRefusal =
  | { readonly code: 'STEP_MISMATCH'; readonly expected: RunPosition; readonly reported: RunPosition; readonly restart: boolean }
  | { readonly code: 'RUN_ENDED'; readonly seq: number }
  | { readonly code: 'ESCALATION_OPEN'; readonly escalation_id: string };

/** The machine's context: the run, the route in flight while tier 3 runs, the last route's outcome or refusal. */
export interface KernelMachineContext {
  run: MachineRun;
  hasArbiter: boolean;
  /** The route in flight while tier 3 runs (the kernel's RouteWork; the machine never looks inside). */
  work?: unknown;
  /** The last route's outcome (the kernel's RouteOutcome). */
  outcome?: unknown;
  /** Set when the last ROUTE was refused. */
  refusal?: RunRefusal | undefined;
}

export type KernelMachineEvent =
  /** A report of the step that finished: `report` for the refusal rules, `work` for the tiers. */
  | { type: 'ROUTE'; report: MachineReport; work: unknown }
  /** A person resolved the open escalation: `run` is the run's state after it (where it goes, or ended). */
  | { type: 'RESOLVED'; run: MachineRun }
  /**
   * The kernel puts a run's state into the machine (a run it starts holding, or one upgraded meanwhile): the machine
   * takes the run's state and stands where the run stands (routing, awaiting a person, ended).
   */
  | { type: 'LOAD'; run: MachineRun };

type RouteEvent = Extract<KernelMachineEvent, { type: 'ROUTE' }>;
const reportOf = (e: KernelMachineEvent) => (e as RouteEvent).report;

/**
 * The report is not from where the run was sent: another step (and no restart), or a restart from outside the flow
 * the run is in (its return points would not fit). One guard, so a report from the right step costs one check.
 */
function reportsAnotherStep(run: MachineRun, r: MachineReport): boolean {
  const at = run.at;
  if (!at) return false;
  if (at.flow !== r.flow) return true;
  return !r.restart && at.step !== r.step && at.loop !== r.step;
}

const notProvided = (name: string) => () => {
  throw new Error(`kernel machine: ${name} is not provided (the kernel provides it with .provide())`);
};

/** The run machine: topology, refusals and names (the kernel provides the tiers' guards and commits, and the arbiter actor). */
export const kernelMachine = setup({
  types: {
    context: {} as KernelMachineContext,
    events: {} as KernelMachineEvent,
    input: {} as { run: MachineRun; hasArbiter: boolean },
  },
  actors: {
    arbiter: fromPromise<unknown, unknown>(notProvided('actor arbiter')),
  },
  guards: {
    // The run's refusals: pure functions of the run and the report.
    reportsAnotherStep: ({ context, event }) => reportsAnotherStep(context.run, reportOf(event)),
    resolutionEnds: ({ event }) => event.type === 'RESOLVED' && event.run.lifecycle === 'ended',
    loadsAwaitingPerson: ({ event }) => event.type === 'LOAD' && event.run.lifecycle === 'awaiting_person',
    loadsEnded: ({ event }) => event.type === 'LOAD' && event.run.lifecycle === 'ended',
    // The tiers (provided by the kernel). A tier's decision, held to the run's bounds, is computed once: `…Ends` says it
    // is TERMINATE, `…Escalates` ESCALATE, `…GoesOn` anything else (the run is sent on).
    fastPathEnds: notProvided('guard fastPathEnds'),
    fastPathEscalates: notProvided('guard fastPathEscalates'),
    fastPathGoesOn: notProvided('guard fastPathGoesOn'), // tier 1 has a decision that sends the run on
    deterministicEnds: notProvided('guard deterministicEnds'),
    deterministicEscalates: notProvided('guard deterministicEscalates'),
    deterministicGoesOn: notProvided('guard deterministicGoesOn'), // tier 2 likewise
    arbiterAvailable: notProvided('guard arbiterAvailable'), // tier 3 is configured
    envelopeEnds: notProvided('guard envelopeEnds'),
    envelopeEscalates: notProvided('guard envelopeEscalates'),
    envelopeGoesOn: notProvided('guard envelopeGoesOn'), // tier 4 likewise
    arbiterEnds: notProvided('guard arbiterEnds'),
    arbiterEscalates: notProvided('guard arbiterEscalates'),
    arbiterGoesOn: notProvided('guard arbiterGoesOn'), // tier 3's accepted answer sends the run on
    envelopeEndsAfterArbiter: notProvided('guard envelopeEndsAfterArbiter'),
    envelopeEscalatesAfterArbiter: notProvided('guard envelopeEscalatesAfterArbiter'),
    envelopeGoesOnAfterArbiter: notProvided('guard envelopeGoesOnAfterArbiter'),
  },
  actions: {
    refuseStepMismatch: assign(({ context, event }) => {
      const r = reportOf(event);
      const at = context.run.at!;
      return { outcome: undefined, refusal: { code: 'STEP_MISMATCH', expected: { flow: at.flow, step: at.step }, reported: { flow: r.flow, step: r.step }, restart: r.restart } as const };
    }),
    refuseEscalationOpen: assign(({ context }) => ({ outcome: undefined, refusal: { code: 'ESCALATION_OPEN', escalation_id: context.run.escalation_id ?? '?' } as const })),
    refuseEnded: assign(({ context }) => ({ outcome: undefined, refusal: { code: 'RUN_ENDED', seq: context.run.seq } as const })),
    applyResolution: assign(({ context, event }) => ({ run: event.type === 'RESOLVED' ? event.run : context.run, outcome: undefined, refusal: undefined })),
    loadRun: assign(({ context, event }) => ({ run: event.type === 'LOAD' ? event.run : context.run, work: undefined, outcome: undefined, refusal: undefined })),
    commitFastPath: notProvided('action commitFastPath'),
    commitDeterministic: notProvided('action commitDeterministic'),
    commitEnvelope: notProvided('action commitEnvelope'),
    commitEscalation: notProvided('action commitEscalation'),
    holdWork: notProvided('action holdWork'),
    commitArbiter: notProvided('action commitArbiter'),
    commitEnvelopeAfterArbiter: notProvided('action commitEnvelopeAfterArbiter'),
    commitEscalationAfterArbiter: notProvided('action commitEscalationAfterArbiter'),
  },
}).createMachine({
  id: 'run',
  initial: 'routing',
  context: ({ input }) => ({ run: input.run, hasArbiter: input.hasArbiter }),
  on: {
    LOAD: [
      { guard: 'loadsAwaitingPerson', target: '.awaitingPerson', actions: 'loadRun' },
      { guard: 'loadsEnded', target: '.ended', actions: 'loadRun' },
      { target: '.routing', actions: 'loadRun' },
    ],
  },
  states: {
    routing: {
      description: 'waits for the report of the step the run was sent to (idle), or for tier 3 (arbitrating)',
      initial: 'idle',
      states: {
        idle: {
          on: {
            // The refusal first, then the tiers in order; each tier's decision goes on routing (checked first: the
            // common case costs one guard), ends the run (TERMINATE) or waits for a person (ESCALATE).
            ROUTE: [
              { guard: 'reportsAnotherStep', actions: 'refuseStepMismatch' }, // STEP_MISMATCH
              { guard: 'fastPathGoesOn', actions: 'commitFastPath' }, // tier 1
              { guard: 'fastPathEnds', target: '#run.ended', actions: 'commitFastPath' },
              { guard: 'fastPathEscalates', target: '#run.awaitingPerson', actions: 'commitFastPath' },
              { guard: 'deterministicGoesOn', actions: 'commitDeterministic' }, // tier 2
              { guard: 'deterministicEnds', target: '#run.ended', actions: 'commitDeterministic' },
              { guard: 'deterministicEscalates', target: '#run.awaitingPerson', actions: 'commitDeterministic' },
              { guard: 'arbiterAvailable', target: 'arbitrating', actions: 'holdWork' }, // tier 3
              { guard: 'envelopeGoesOn', actions: 'commitEnvelope' }, // tier 4
              { guard: 'envelopeEnds', target: '#run.ended', actions: 'commitEnvelope' },
              { guard: 'envelopeEscalates', target: '#run.awaitingPerson', actions: 'commitEnvelope' },
              { target: '#run.awaitingPerson', actions: 'commitEscalation' }, // tier 5
            ],
          },
        },
        arbitrating: {
          invoke: {
            src: 'arbiter',
            input: ({ context }: { context: KernelMachineContext }) => context.work,
            onDone: [
              { guard: 'arbiterGoesOn', target: 'idle', actions: 'commitArbiter' },
              { guard: 'arbiterEnds', target: '#run.ended', actions: 'commitArbiter' },
              { guard: 'arbiterEscalates', target: '#run.awaitingPerson', actions: 'commitArbiter' },
              { guard: 'envelopeGoesOnAfterArbiter', target: 'idle', actions: 'commitEnvelopeAfterArbiter' },
              { guard: 'envelopeEndsAfterArbiter', target: '#run.ended', actions: 'commitEnvelopeAfterArbiter' },
              { guard: 'envelopeEscalatesAfterArbiter', target: '#run.awaitingPerson', actions: 'commitEnvelopeAfterArbiter' },
              { target: '#run.awaitingPerson', actions: 'commitEscalationAfterArbiter' },
            ],
            onError: [
              { guard: 'envelopeGoesOnAfterArbiter', target: 'idle', actions: 'commitEnvelopeAfterArbiter' },
              { guard: 'envelopeEndsAfterArbiter', target: '#run.ended', actions: 'commitEnvelopeAfterArbiter' },
              { guard: 'envelopeEscalatesAfterArbiter', target: '#run.awaitingPerson', actions: 'commitEnvelopeAfterArbiter' },
              { target: '#run.awaitingPerson', actions: 'commitEscalationAfterArbiter' },
            ],
          },
        },
      },
    },
    awaitingPerson: {
      description: 'an escalation is open: every route is refused (ESCALATION_OPEN) until a person resolves it',
      on: {
        RESOLVED: [
          { guard: 'resolutionEnds', target: 'ended', actions: 'applyResolution' },
          { target: 'routing', actions: 'applyResolution' },
        ],
        ROUTE: { actions: 'refuseEscalationOpen' }, // ESCALATION_OPEN
      },
    },
    ended: {
      description: 'the run ended (TERMINATE): every route is refused (RUN_ENDED)',
      on: {
        ROUTE: { actions: 'refuseEnded' }, // RUN_ENDED
      },
    },
  },
});
