// The navigator machine's guards and actions: machines/navigator.machine.ts names them, this module provides them
// (each guard reads a step's result, each action keeps it in the context). The actors are provided per navigator
// (createNavigator), with its steps.
import { assign } from 'xstate';
import { navigatorMachine, type NavigatorMachineContext, type NavigatorMachineEvent } from '../../../machines/navigator.machine.js';
import type { TierPathEntry } from '../../contracts/index.js';
import type {
  Artifacts,
  BranchResult,
  CompressionResult,
  IntakeResult,
  LoadResult,
  MagicWordsResult,
  ReviewResult,
  TierMap,
  TrunkResult,
  Violation,
} from './types.js';

/** What every actor resolves to: its result and the forbidden states it detected. */
export interface StepOutput<T> {
  result: T;
  violations: Violation[];
}

/** The machine's context as the navigator fills it. */
export interface NavigatorContext {
  capsule: unknown;
  pass: number;
  intake?: IntakeResult;
  magic?: MagicWordsResult;
  tiers?: TierMap;
  trunk?: TrunkResult;
  branch?: BranchResult;
  load?: LoadResult;
  compression?: CompressionResult;
  artifacts?: Artifacts;
  review?: ReviewResult;
  tier_path: TierPathEntry[];
  violations: Violation[];
}

const ctx = (context: unknown) => context as NavigatorContext;
/** The done event's step output. */
const out = <T>(event: unknown) => (event as { output: StepOutput<T> }).output;
const allViolations = (context: unknown, o: StepOutput<unknown>) => [...ctx(context).violations, ...o.violations];
/** The action that keeps a step's result under `field` and adds the forbidden states it detected. */
const keep = (field: 'magic' | 'tiers' | 'load' | 'compression' | 'artifacts' | 'review') =>
  assign<NavigatorMachineContext, NavigatorMachineEvent, unknown, NavigatorMachineEvent, never>(({ context, event }) => {
    const o = out<unknown>(event);
    return { [field]: o.result, violations: allViolations(context, o) };
  });
const gateBlocks = (c: CompressionResult) => c.ratio < c.gate && c.demand_over_budget;

/** The seed-002 machine with its guards and actions provided (its actors are provided by createNavigator). */
export const navigatorFsm = navigatorMachine.provide({
  guards: {
    inputsMissing: ({ context }) => (ctx(context).intake?.missing.length ?? 1) > 0,
    inputsDefined: ({ context }) => ctx(context).intake !== undefined && ctx(context).intake!.missing.length === 0,
    noMagicWords: ({ event }) => out<MagicWordsResult>(event).result.kind === 'none_found',
    magicWordsFound: ({ event }) => out<MagicWordsResult>(event).result.kind === 'found',
    trunkResolvesQuery: ({ event }) => out<TrunkResult>(event).result.resolves,
    trunkDoesNotResolveQuery: ({ event }) => !out<TrunkResult>(event).result.resolves,
    compressionBelowGateAndOverBudget: ({ event }) => gateBlocks(out<CompressionResult>(event).result),
    compressionGatePassed: ({ event }) => !gateBlocks(out<CompressionResult>(event).result),
    budgetExceededOrInvariantViolated: ({ context, event }) => {
      const o = out<ReviewResult>(event);
      return allViolations(context, o).length > 0 || o.result.limits_exceeded.length > 0 || !o.result.compression_valid || !ctx(context).artifacts?.complete;
    },
    critiqueRequiresRenavigationAndBudgetAllows: ({ event }) => {
      const r = out<ReviewResult>(event).result;
      return r.renavigate && r.budget_allows;
    },
    artifactsCompleteAndCompressionValid: ({ context, event }) => ctx(context).artifacts?.complete === true && out<ReviewResult>(event).result.compression_valid,
  },
  actions: {
    storeCapsule: assign({ capsule: ({ event }) => (event as { capsule: unknown }).capsule }),
    storeIntake: assign(({ event }) => ({ intake: out<IntakeResult>(event).result })),
    storeMagicWords: keep('magic'),
    storeTiers: keep('tiers'),
    storeTrunk: assign(({ context, event }) => {
      const o = out<TrunkResult>(event);
      return { trunk: o.result, branch: undefined, tier_path: [...context.tier_path, ...o.result.entries], violations: allViolations(context, o) };
    }),
    storeBranch: assign(({ context, event }) => {
      const o = out<BranchResult>(event);
      return { branch: o.result, tier_path: [...context.tier_path, ...o.result.entries], violations: allViolations(context, o) };
    }),
    storeLoad: keep('load'),
    storeCompression: keep('compression'),
    storeArtifacts: keep('artifacts'),
    storeReview: keep('review'),
    startNextPass: assign({ pass: ({ context }) => context.pass + 1 }),
  },
});
