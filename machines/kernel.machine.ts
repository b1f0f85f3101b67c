/**
 * The routing kernel's run machine: one live actor per active run. Its context is the run's state (loop
 * counters, signature attempts, detour return points); each route() is a ROUTE event, and the five tiers are
 * guarded transitions tried in order. Topology and names only: the guards (a tier's rule), the actions (commit a
 * tier's decision) and the one asynchronous step (tier 3, an invoked promise actor) are named here and provided by
 * the kernel (src/kernel/run-machine.ts, src/kernel/kernel.ts) with `.provide()`, so this file imports nothing from
 * src/ and the arrows run one way: src/kernel -> machines.
 */
import { fromPromise, setup } from 'xstate';

/**
 * The machine's context. Its values are the kernel's (src/kernel/run-machine.ts types them): the run's state, the
 * route in flight while tier 3 runs, the last route's outcome. The machine itself never looks inside them.
 */
export interface KernelMachineContext {
  run: unknown;
  hasArbiter: boolean;
  /** The route in flight while tier 3 runs. */
  work?: unknown;
  outcome?: unknown;
}

export type KernelMachineEvent = { type: 'ROUTE'; work: unknown };

const notProvided = (name: string) => () => {
  throw new Error(`kernel machine: ${name} is not provided (the kernel provides it with .provide())`);
};

/** The run machine: topology and names (the kernel provides every guard, action and the arbiter actor). */
export const kernelMachine = setup({
  types: {
    context: {} as KernelMachineContext,
    events: {} as KernelMachineEvent,
    input: {} as { run: unknown; hasArbiter: boolean },
  },
  actors: {
    arbiter: fromPromise<unknown, unknown>(notProvided('actor arbiter')),
  },
  guards: {
    fastPathDecides: notProvided('guard fastPathDecides'), // tier 1 has a decision
    deterministicDecides: notProvided('guard deterministicDecides'), // tier 2 has a decision
    arbiterAvailable: notProvided('guard arbiterAvailable'), // tier 3 is configured
    envelopeDecides: notProvided('guard envelopeDecides'), // tier 4 has a decision
    arbiterDecides: notProvided('guard arbiterDecides'), // tier 3's answer was accepted
    envelopeDecidesAfterArbiter: notProvided('guard envelopeDecidesAfterArbiter'),
  },
  actions: {
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
  initial: 'idle',
  context: ({ input }) => ({ run: input.run, hasArbiter: input.hasArbiter }),
  states: {
    idle: {
      on: {
        ROUTE: [
          { guard: 'fastPathDecides', actions: 'commitFastPath' }, // tier 1
          { guard: 'deterministicDecides', actions: 'commitDeterministic' }, // tier 2
          { guard: 'arbiterAvailable', target: 'arbitrating', actions: 'holdWork' }, // tier 3
          { guard: 'envelopeDecides', actions: 'commitEnvelope' }, // tier 4
          { actions: 'commitEscalation' }, // tier 5
        ],
      },
    },
    arbitrating: {
      invoke: {
        src: 'arbiter',
        input: ({ context }: { context: KernelMachineContext }) => context.work,
        onDone: [
          { guard: 'arbiterDecides', target: 'idle', actions: 'commitArbiter' },
          { guard: 'envelopeDecidesAfterArbiter', target: 'idle', actions: 'commitEnvelopeAfterArbiter' },
          { target: 'idle', actions: 'commitEscalationAfterArbiter' },
        ],
        onError: [
          { guard: 'envelopeDecidesAfterArbiter', target: 'idle', actions: 'commitEnvelopeAfterArbiter' },
          { target: 'idle', actions: 'commitEscalationAfterArbiter' },
        ],
      },
    },
  },
});
