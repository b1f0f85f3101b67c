// The run machine's implementations: machines/kernel.machine.ts names the guards and actions, this module provides
// them (a guard is a tier's pure rule, an action commits a tier's decision). The arbiter actor is provided per kernel
// (src/kernel/kernel.ts), with the user's ArbiterPort.
import { assign } from 'xstate';
import { kernelMachine, type RunRefusal } from '../../machines/kernel.machine.js';
import type { ArbiterAnswer, Decision, LlmCallRecord, RunState, Tier } from '../contracts/index.js';
import type { RouteWork, TierResult } from './route-work.js';
import { nextRunState } from './run-state.js';
import { holdBounds } from './bounds.js';
import { acceptArbiterAnswer } from './tiers/arbiter.js';
import { deterministic } from './tiers/deterministic.js';
import { envelopeFallback } from './tiers/envelope.js';
import { escalate } from './tiers/escalate.js';
import { fastPath } from './tiers/fast-path.js';

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

/** The machine's context as the kernel fills it (the machine types the run as a MachineRun, and never looks inside work and outcome). */
export interface RunContext {
  run: RunState;
  hasArbiter: boolean;
  work?: RouteWork | undefined;
  outcome?: RouteOutcome | undefined;
  refusal?: RunRefusal | undefined;
}

const held = (context: unknown) => (context as RunContext).work!;

/**
 * A tier's answer for this route, held to the run's bounds (src/kernel/bounds.ts), computed once: guards and actions
 * share it through the work's memo.
 */
function tierOnce(w: RouteWork, tier: Tier, rule: (w: RouteWork) => TierResult | undefined): TierResult | null {
  const hit = w.memo[tier];
  if (hit !== undefined) return hit;
  const result = rule(w);
  return (w.memo[tier] = result ? holdBounds(w, result) : null);
}

const ends = (r: TierResult | null) => r !== null && r.decision.decision === 'TERMINATE';
const escalates = (r: TierResult | null) => r !== null && r.decision.decision === 'ESCALATE';
const goesOn = (r: TierResult | null) => r !== null && r.decision.decision !== 'TERMINATE' && r.decision.decision !== 'ESCALATE';

const arbiterOutcome = (w: RouteWork, tier3: ArbiterResult | undefined) => tierOnce(w, 3, (w) => acceptArbiterAnswer(w, tier3?.answer, tier3?.failure));

/** Commits a tier's decision (already held to the run's bounds by tierOnce). */
function commit(w: RouteWork, tier: Tier, tier3?: ArbiterResult): Partial<RunContext> {
  const result = w.memo[tier] ?? (tier === 5 ? (w.memo[5] = escalate(w)) : null);
  if (!result) throw new Error(`kernel machine: tier ${tier} committed without a decision`);
  const cost = tier3?.answer?.cost_usd ?? 0;
  const state = nextRunState(w, result, cost);
  return { run: state, work: undefined, refusal: undefined, outcome: { decision: result.decision, state, cost_usd: cost, llm_calls: tier3?.answer?.calls ?? [] } };
}

type Ev = { type: 'ROUTE'; work: RouteWork };
/** The ROUTE event's work. */
const work = (e: unknown) => (e as Ev).work;
/** The arbiter actor's output on its done event (undefined on its error event). */
const output = (e: unknown) => (e as { output?: ArbiterResult }).output;

/** The run machine with every guard and action provided (the arbiter actor is provided per kernel). */
export const runMachine = kernelMachine.provide({
  guards: {
    fastPathEnds: ({ event }) => ends(tierOnce(work(event), 1, fastPath)),
    fastPathEscalates: ({ event }) => escalates(tierOnce(work(event), 1, fastPath)),
    fastPathGoesOn: ({ event }) => goesOn(tierOnce(work(event), 1, fastPath)),
    deterministicEnds: ({ event }) => ends(tierOnce(work(event), 2, deterministic)),
    deterministicEscalates: ({ event }) => escalates(tierOnce(work(event), 2, deterministic)),
    deterministicGoesOn: ({ event }) => goesOn(tierOnce(work(event), 2, deterministic)),
    arbiterAvailable: ({ context }) => context.hasArbiter,
    envelopeEnds: ({ event }) => ends(tierOnce(work(event), 4, envelopeFallback)),
    envelopeEscalates: ({ event }) => escalates(tierOnce(work(event), 4, envelopeFallback)),
    envelopeGoesOn: ({ event }) => goesOn(tierOnce(work(event), 4, envelopeFallback)),
    arbiterEnds: ({ context, event }) => ends(arbiterOutcome(held(context), output(event))),
    arbiterEscalates: ({ context, event }) => escalates(arbiterOutcome(held(context), output(event))),
    arbiterGoesOn: ({ context, event }) => goesOn(arbiterOutcome(held(context), output(event))),
    envelopeEndsAfterArbiter: ({ context }) => ends(tierOnce(held(context), 4, envelopeFallback)),
    envelopeEscalatesAfterArbiter: ({ context }) => escalates(tierOnce(held(context), 4, envelopeFallback)),
    envelopeGoesOnAfterArbiter: ({ context }) => goesOn(tierOnce(held(context), 4, envelopeFallback)),
  },
  actions: {
    commitFastPath: assign(({ event }) => commit(work(event), 1)),
    commitDeterministic: assign(({ event }) => commit(work(event), 2)),
    commitEnvelope: assign(({ event }) => commit(work(event), 4)),
    commitEscalation: assign(({ event }) => commit(work(event), 5)),
    holdWork: assign(({ event }) => ({ work: work(event), outcome: undefined, refusal: undefined })),
    commitArbiter: assign(({ context, event }) => commit(held(context), 3, output(event))),
    commitEnvelopeAfterArbiter: assign(({ context, event }) => commit(held(context), 4, output(event))),
    commitEscalationAfterArbiter: assign(({ context, event }) => commit(held(context), 5, output(event))),
  },
});
