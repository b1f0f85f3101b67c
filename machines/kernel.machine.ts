/**
 * The routing kernel's run machine: one live actor per active run. Its context is the run's state (loop
 * counters, signature attempts, detour return points); each route() is a ROUTE event, and the five tiers are
 * guarded transitions tried in order. Topology only: the tier rules are pure functions from src/kernel/tiers,
 * and the one asynchronous step (tier 3) is an invoked promise actor whose implementation the kernel provides.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { Decision, LlmCallRecord, ArbiterAnswer, RunState, Tier } from '../src/contracts/index.js';
import type { RouteWork, TierResult } from '../src/kernel/route-work.js';
import { nextRunState } from '../src/kernel/run-state.js';
import { fastPath } from '../src/kernel/tiers/fast-path.js';
import { deterministic } from '../src/kernel/tiers/deterministic.js';
import { acceptArbiterAnswer } from '../src/kernel/tiers/arbiter.js';
import { envelopeFallback } from '../src/kernel/tiers/envelope.js';
import { escalate } from '../src/kernel/tiers/escalate.js';

/** What the machine hands back after each route. */
export interface RouteOutcome {
  decision: Decision;
  state: RunState;
  cost_usd: number;
  llm_calls: LlmCallRecord[];
}

/** What the tier-3 actor resolves to: an answer, or why there is none (it never rejects). */
export interface ArbiterResult {
  answer?: ArbiterAnswer;
  failure?: string;
}

export interface KernelMachineContext {
  run: RunState;
  hasArbiter: boolean;
  /** The route in flight while tier 3 runs. */
  work?: RouteWork;
  arbiter?: ArbiterResult;
  outcome?: RouteOutcome;
}

export type KernelMachineEvent = { type: 'ROUTE'; work: RouteWork };

/** A tier's answer for this route, computed once: guards and actions share it through the work's memo. */
function tierOnce(w: RouteWork, tier: Tier, rule: (w: RouteWork) => TierResult | undefined): TierResult | null {
  const hit = w.memo[tier];
  if (hit !== undefined) return hit;
  return (w.memo[tier] = rule(w) ?? null);
}

const arbiterOutcome = (w: RouteWork, tier3: ArbiterResult | undefined) => tierOnce(w, 3, (w) => acceptArbiterAnswer(w, tier3?.answer, tier3?.failure));

function commit(w: RouteWork, tier: Tier, tier3?: ArbiterResult): Partial<KernelMachineContext> {
  const result = w.memo[tier] ?? (tier === 5 ? (w.memo[5] = escalate(w)) : null);
  if (!result) throw new Error(`kernel machine: tier ${tier} committed without a decision`);
  const cost = tier3?.answer?.cost_usd ?? 0;
  const state = nextRunState(w, result, cost);
  return { run: state, work: undefined, arbiter: undefined, outcome: { decision: result.decision, state, cost_usd: cost, llm_calls: tier3?.answer?.calls ?? [] } };
}

export const kernelMachine = setup({
  types: {
    context: {} as KernelMachineContext,
    events: {} as KernelMachineEvent,
    input: {} as { run: RunState; hasArbiter: boolean },
  },
  actors: {
    // Provided by the kernel (src/kernel/kernel.ts) with the user's ArbiterPort, timeout and abort handling.
    arbiter: fromPromise<ArbiterResult, RouteWork>(async () => ({ failure: 'arbiter actor not provided' })),
  },
  guards: {
    fastPathDecides: ({ event }) => tierOnce(event.work, 1, fastPath) !== null,
    deterministicDecides: ({ event }) => tierOnce(event.work, 2, deterministic) !== null,
    arbiterAvailable: ({ context }) => context.hasArbiter,
    envelopeDecides: ({ event }) => tierOnce(event.work, 4, envelopeFallback) !== null,
    arbiterDecides: ({ context, event }) => arbiterOutcome(context.work!, (event as unknown as { output: ArbiterResult }).output) !== null,
    envelopeDecidesAfterArbiter: ({ context }) => tierOnce(context.work!, 4, envelopeFallback) !== null,
  },
  actions: {
    commitFastPath: assign(({ event }) => commit(event.work, 1)),
    commitDeterministic: assign(({ event }) => commit(event.work, 2)),
    commitEnvelope: assign(({ event }) => commit(event.work, 4)),
    commitEscalation: assign(({ event }) => commit(event.work, 5)),
    holdWork: assign(({ event }) => ({ work: event.work, outcome: undefined })),
    commitArbiter: assign(({ context, event }) => commit(context.work!, 3, (event as unknown as { output: ArbiterResult }).output)),
    commitEnvelopeAfterArbiter: assign(({ context, event }) => commit(context.work!, 4, (event as unknown as { output?: ArbiterResult }).output)),
    commitEscalationAfterArbiter: assign(({ context, event }) => commit(context.work!, 5, (event as unknown as { output?: ArbiterResult }).output)),
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
        input: ({ context }) => context.work!,
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
