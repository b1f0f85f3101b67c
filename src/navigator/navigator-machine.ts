// The navigator machine's guards and actions: machines/navigator.machine.ts names them, this module provides them
// (each guard reads a step's result, each action keeps it in the context). The actors are provided per navigator
// (createNavigator), with its steps.
import { assign } from 'xstate';
import { navigatorMachine } from '../../machines/navigator.machine.js';
import type { TierPathEntry } from '../contracts/index.js';
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
    storeMagicWords: assign(({ context, event }) => {
      const o = out<MagicWordsResult>(event);
      return { magic: o.result, violations: allViolations(context, o) };
    }),
    storeTiers: assign(({ context, event }) => {
      const o = out<TierMap>(event);
      return { tiers: o.result, violations: allViolations(context, o) };
    }),
    storeTrunk: assign(({ context, event }) => {
      const o = out<TrunkResult>(event);
      return { trunk: o.result, branch: undefined, tier_path: [...context.tier_path, ...o.result.entries], violations: allViolations(context, o) };
    }),
    storeBranch: assign(({ context, event }) => {
      const o = out<BranchResult>(event);
      return { branch: o.result, tier_path: [...context.tier_path, ...o.result.entries], violations: allViolations(context, o) };
    }),
    storeLoad: assign(({ context, event }) => {
      const o = out<LoadResult>(event);
      return { load: o.result, violations: allViolations(context, o) };
    }),
    storeCompression: assign(({ context, event }) => {
      const o = out<CompressionResult>(event);
      return { compression: o.result, violations: allViolations(context, o) };
    }),
    storeArtifacts: assign(({ context, event }) => {
      const o = out<Artifacts>(event);
      return { artifacts: o.result, violations: allViolations(context, o) };
    }),
    storeReview: assign(({ context, event }) => {
      const o = out<ReviewResult>(event);
      return { review: o.result, violations: allViolations(context, o) };
    }),
    startNextPass: assign({ pass: ({ context }) => context.pass + 1 }),
  },
});
