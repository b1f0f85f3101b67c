// The navigator machine's guards and actions: machines/navigator.machine.ts names them, this module provides them
// (each guard reads a step's result, each action keeps it in the context). The actors are provided per navigator
// (createNavigator), with its steps.
import { assign } from 'xstate';
import { navigatorMachine, type NavigatorMachineContext, type NavigatorMachineEvent } from '../../../machines/navigator.machine.js';
import type { TierPathEntry } from '../../contracts/index.js';
import type { CompressionResult, IntakeResult, MagicWordsResult, Progress, ReviewResult, TrunkResult, BranchResult, Violation } from './types.js';

/** What every actor resolves to: its result, the forbidden states it detected, and how far the navigation got with it. */
export interface StepOutput<T> {
  result: T;
  violations: Violation[];
  progress: Progress;
}

/** The machine's context as the navigator fills it: the steps' outputs are in `progress`, typed by how far it got. */
export interface NavigatorContext {
  capsule: unknown;
  pass: number;
  progress: Progress;
  tier_path: TierPathEntry[];
  violations: Violation[];
}

const ctx = (context: unknown) => context as NavigatorContext;
/** The done event's step output. */
const out = <T>(event: unknown) => (event as { output: StepOutput<T> }).output;
const allViolations = (context: unknown, o: StepOutput<unknown>) => [...ctx(context).violations, ...o.violations];
/** The action that keeps a step's progress and adds the forbidden states it detected. */
const keep = () =>
  assign<NavigatorMachineContext, NavigatorMachineEvent, unknown, NavigatorMachineEvent, never>(({ context, event }) => {
    const o = out<unknown>(event);
    return { progress: o.progress, violations: allViolations(context, o) };
  });
/** The current pass's artifacts, once BUILD_ARTIFACTS ran in it. */
const artifactsOf = (p: Progress) => (p.at === 'navigating' && (p.pass.at === 'built' || p.pass.at === 'reviewed') ? p.pass.artifacts : undefined);
/** The intake, while NULL_CHECK reads it. */
const intakeOf = (p: Progress): IntakeResult | undefined => (p.at === 'intake' ? p.intake : undefined);
/** SOCRATIC_REVIEW sent the machine back: the reviewed pass becomes the prior one, the next starts empty. */
const nextPass = (p: Progress): Progress => (p.at === 'navigating' && p.pass.at === 'reviewed' ? { ...p, prior: p.pass, pass: { at: 'start' } } : p);
const gateBlocks = (c: CompressionResult) => c.ratio < c.gate && c.demand_over_budget;

/** The seed-002 machine with its guards and actions provided (its actors are provided by createNavigator). */
export const navigatorFsm = navigatorMachine.provide({
  guards: {
    inputsMissing: ({ context }) => (intakeOf(ctx(context).progress)?.missing.length ?? 1) > 0,
    inputsDefined: ({ context }) => intakeOf(ctx(context).progress)?.missing.length === 0,
    noMagicWords: ({ event }) => out<MagicWordsResult>(event).result.kind === 'none_found',
    magicWordsFound: ({ event }) => out<MagicWordsResult>(event).result.kind === 'found',
    trunkResolvesQuery: ({ event }) => out<TrunkResult>(event).result.resolves,
    trunkDoesNotResolveQuery: ({ event }) => !out<TrunkResult>(event).result.resolves,
    compressionBelowGateAndOverBudget: ({ event }) => gateBlocks(out<CompressionResult>(event).result),
    compressionGatePassed: ({ event }) => !gateBlocks(out<CompressionResult>(event).result),
    budgetExceededOrInvariantViolated: ({ context, event }) => {
      const o = out<ReviewResult>(event);
      return allViolations(context, o).length > 0 || o.result.limits_exceeded.length > 0 || !o.result.compression_valid || !artifactsOf(ctx(context).progress)?.complete;
    },
    critiqueRequiresRenavigationAndBudgetAllows: ({ event }) => {
      const r = out<ReviewResult>(event).result;
      return r.renavigate && r.budget_allows;
    },
    artifactsCompleteAndCompressionValid: ({ context, event }) => artifactsOf(ctx(context).progress)?.complete === true && out<ReviewResult>(event).result.compression_valid,
  },
  actions: {
    storeCapsule: assign({ capsule: ({ event }) => (event as { capsule: unknown }).capsule }),
    storeIntake: keep(),
    storeMagicWords: keep(),
    storeTiers: keep(),
    storeTrunk: assign(({ context, event }) => {
      const o = out<TrunkResult>(event);
      return { progress: o.progress, tier_path: [...context.tier_path, ...o.result.entries], violations: allViolations(context, o) };
    }),
    storeBranch: assign(({ context, event }) => {
      const o = out<BranchResult>(event);
      return { progress: o.progress, tier_path: [...context.tier_path, ...o.result.entries], violations: allViolations(context, o) };
    }),
    storeLoad: keep(),
    storeCompression: keep(),
    storeArtifacts: keep(),
    storeReview: keep(),
    startNextPass: assign({ pass: ({ context }) => context.pass + 1, progress: ({ context }) => nextPass(ctx(context).progress) }),
  },
});
