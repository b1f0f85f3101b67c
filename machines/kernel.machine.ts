/**
 * The routing kernel's run machine: one live actor per active run. Its context is the run's state (loop
 * counters, signature attempts, detour return points); each route() is a ROUTE event, and the five tiers are
 * guarded transitions tried in order. Topology only: the tier rules are pure functions from src/kernel/tiers,
 * and the one asynchronous step (tier 3) is an invoked promise actor whose implementation the kernel provides.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { Decision, LlmCallRecord, NavigatorAnswer, RunState, Tier } from '../src/contracts/index.js';
import type { RouteWork, TierResult } from '../src/kernel/route-work.js';
import { nextRunState } from '../src/kernel/run-state.js';
import { fastPath } from '../src/kernel/tiers/fast-path.js';
import { deterministic } from '../src/kernel/tiers/deterministic.js';
import { acceptNavigatorAnswer } from '../src/kernel/tiers/navigator.js';
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
export interface NavigatorResult {
  answer?: NavigatorAnswer;
  failure?: string;
}

export interface KernelMachineContext {
  run: RunState;
  hasNavigator: boolean;
  /** The route in flight while tier 3 runs. */
  work?: RouteWork;
  navigator?: NavigatorResult;
  outcome?: RouteOutcome;
}

export type KernelMachineEvent = { type: 'ROUTE'; work: RouteWork };

/** A tier's answer for this route, computed once: guards and actions share it through the work's memo. */
function tierOnce(w: RouteWork, tier: Tier, rule: (w: RouteWork) => TierResult | undefined): TierResult | null {
  const hit = w.memo[tier];
  if (hit !== undefined) return hit;
  return (w.memo[tier] = rule(w) ?? null);
}

const navigatorOutcome = (w: RouteWork, nav: NavigatorResult | undefined) => tierOnce(w, 3, (w) => acceptNavigatorAnswer(w, nav?.answer, nav?.failure));

function commit(w: RouteWork, tier: Tier, nav?: NavigatorResult): Partial<KernelMachineContext> {
  const result = w.memo[tier] ?? (tier === 5 ? (w.memo[5] = escalate(w)) : null);
  if (!result) throw new Error(`kernel machine: tier ${tier} committed without a decision`);
  const cost = nav?.answer?.cost_usd ?? 0;
  const state = nextRunState(w, result, cost);
  return { run: state, work: undefined, navigator: undefined, outcome: { decision: result.decision, state, cost_usd: cost, llm_calls: nav?.answer?.calls ?? [] } };
}

export const kernelMachine = setup({
  types: {
    context: {} as KernelMachineContext,
    events: {} as KernelMachineEvent,
    input: {} as { run: RunState; hasNavigator: boolean },
  },
  actors: {
    // Provided by the kernel (src/kernel/kernel.ts) with the user's NavigatorPort, timeout and abort handling.
    navigator: fromPromise<NavigatorResult, RouteWork>(async () => ({ failure: 'navigator actor not provided' })),
  },
  guards: {
    fastPathDecides: ({ event }) => tierOnce(event.work, 1, fastPath) !== null,
    deterministicDecides: ({ event }) => tierOnce(event.work, 2, deterministic) !== null,
    navigatorAvailable: ({ context }) => context.hasNavigator,
    envelopeDecides: ({ event }) => tierOnce(event.work, 4, envelopeFallback) !== null,
    navigatorDecides: ({ context, event }) => navigatorOutcome(context.work!, (event as unknown as { output: NavigatorResult }).output) !== null,
    envelopeDecidesAfterNavigator: ({ context }) => tierOnce(context.work!, 4, envelopeFallback) !== null,
  },
  actions: {
    commitFastPath: assign(({ event }) => commit(event.work, 1)),
    commitDeterministic: assign(({ event }) => commit(event.work, 2)),
    commitEnvelope: assign(({ event }) => commit(event.work, 4)),
    commitEscalation: assign(({ event }) => commit(event.work, 5)),
    holdWork: assign(({ event }) => ({ work: event.work, outcome: undefined })),
    commitNavigator: assign(({ context, event }) => commit(context.work!, 3, (event as unknown as { output: NavigatorResult }).output)),
    commitEnvelopeAfterNavigator: assign(({ context, event }) => commit(context.work!, 4, (event as unknown as { output?: NavigatorResult }).output)),
    commitEscalationAfterNavigator: assign(({ context, event }) => commit(context.work!, 5, (event as unknown as { output?: NavigatorResult }).output)),
  },
}).createMachine({
  id: 'run',
  initial: 'idle',
  context: ({ input }) => ({ run: input.run, hasNavigator: input.hasNavigator }),
  states: {
    idle: {
      on: {
        ROUTE: [
          { guard: 'fastPathDecides', actions: 'commitFastPath' }, // tier 1
          { guard: 'deterministicDecides', actions: 'commitDeterministic' }, // tier 2
          { guard: 'navigatorAvailable', target: 'navigating', actions: 'holdWork' }, // tier 3
          { guard: 'envelopeDecides', actions: 'commitEnvelope' }, // tier 4
          { actions: 'commitEscalation' }, // tier 5
        ],
      },
    },
    navigating: {
      invoke: {
        src: 'navigator',
        input: ({ context }) => context.work!,
        onDone: [
          { guard: 'navigatorDecides', target: 'idle', actions: 'commitNavigator' },
          { guard: 'envelopeDecidesAfterNavigator', target: 'idle', actions: 'commitEnvelopeAfterNavigator' },
          { target: 'idle', actions: 'commitEscalationAfterNavigator' },
        ],
        onError: [
          { guard: 'envelopeDecidesAfterNavigator', target: 'idle', actions: 'commitEnvelopeAfterNavigator' },
          { target: 'idle', actions: 'commitEscalationAfterNavigator' },
        ],
      },
    },
  },
});
