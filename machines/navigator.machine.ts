/**
 * The navigator's FSM (seed 002 §5): exactly its 14 states and 17 transitions. Topology only: each
 * working state invokes a named actor whose implementation src/navigator provides (`createNavigator`),
 * and every transition the seed makes conditional is a named guard over the actor's output or the
 * context. Forbidden states (seed §6) are reported by the actors as violations; they make the
 * SOCRATIC_REVIEW → EXIT_BLOCKED guard true, so the machine never needs a transition the seed lacks.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { TierPathEntry } from '../src/contracts/index.js';
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
} from '../src/navigator/types.js';
import { FORBIDDEN_STATES } from '../src/navigator/types.js';

/** What every actor resolves to: its result and the forbidden states it detected. */
export interface StepOutput<T> {
  result: T;
  violations: Violation[];
}

export interface NavigatorMachineContext {
  /** The raw capsule, as received. */
  capsule: unknown;
  /** 1 on the first traversal, 2 after SOCRATIC_REVIEW sent the machine back. */
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
  /** Every visited node of every pass, in visiting order. */
  tier_path: TierPathEntry[];
  violations: Violation[];
}

export type NavigatorMachineEvent = { type: 'CAPSULE'; capsule: unknown };

/** The actors' input: the whole context (they read what they need). */
type ActorInput = { context: NavigatorMachineContext };

function notProvided(name: string) {
  return fromPromise<never, ActorInput>(async () => {
    throw new Error(`navigator machine: actor ${name} not provided (use createNavigator from src/navigator)`);
  });
}

/** Names of the invoked actors, one per working state. */
export const NAVIGATOR_ACTORS = [
  'intakeQuery',
  'extractMagicWords',
  'mapToTiers',
  'traverseTrunk',
  'branchIfNeeded',
  'loadContext',
  'validateCompression',
  'buildArtifacts',
  'socraticReview',
] as const;

const allViolations = (context: NavigatorMachineContext, out: StepOutput<unknown>) => [...context.violations, ...out.violations];

export const navigatorMachine = setup({
  types: {
    context: {} as NavigatorMachineContext,
    events: {} as NavigatorMachineEvent,
    output: {} as NavigatorMachineContext,
  },
  actors: {
    intakeQuery: notProvided('intakeQuery') as unknown as ReturnType<typeof fromPromise<StepOutput<IntakeResult>, ActorInput>>,
    extractMagicWords: notProvided('extractMagicWords') as unknown as ReturnType<typeof fromPromise<StepOutput<MagicWordsResult>, ActorInput>>,
    mapToTiers: notProvided('mapToTiers') as unknown as ReturnType<typeof fromPromise<StepOutput<TierMap>, ActorInput>>,
    traverseTrunk: notProvided('traverseTrunk') as unknown as ReturnType<typeof fromPromise<StepOutput<TrunkResult>, ActorInput>>,
    branchIfNeeded: notProvided('branchIfNeeded') as unknown as ReturnType<typeof fromPromise<StepOutput<BranchResult>, ActorInput>>,
    loadContext: notProvided('loadContext') as unknown as ReturnType<typeof fromPromise<StepOutput<LoadResult>, ActorInput>>,
    validateCompression: notProvided('validateCompression') as unknown as ReturnType<typeof fromPromise<StepOutput<CompressionResult>, ActorInput>>,
    buildArtifacts: notProvided('buildArtifacts') as unknown as ReturnType<typeof fromPromise<StepOutput<Artifacts>, ActorInput>>,
    socraticReview: notProvided('socraticReview') as unknown as ReturnType<typeof fromPromise<StepOutput<ReviewResult>, ActorInput>>,
  },
  guards: {
    /** NULL_CHECK → EXIT_NEED_INFO: query == null OR repo_root undefined. */
    inputsMissing: ({ context }) => (context.intake?.missing.length ?? 1) > 0,
    /** NULL_CHECK → EXTRACT_MAGIC_WORDS: inputs defined. */
    inputsDefined: ({ context }) => context.intake !== undefined && context.intake.missing.length === 0,
    /** EXTRACT_MAGIC_WORDS → EXIT_NEED_INFO: no magic word extractable from the task, and none from a hint. */
    noMagicWords: ({ event }) => (event as unknown as { output: StepOutput<MagicWordsResult> }).output.result.kind === 'none_found',
    /** EXTRACT_MAGIC_WORDS → MAP_TO_TIERS: magic words were found (an empty "found" list is NULL_ZERO_CONFUSION). */
    magicWordsFound: ({ event }) => (event as unknown as { output: StepOutput<MagicWordsResult> }).output.result.kind === 'found',
    /** TRAVERSE_TRUNK → LOAD_CONTEXT: the trunk covers every magic word. */
    trunkResolvesQuery: ({ event }) => (event as unknown as { output: StepOutput<TrunkResult> }).output.result.resolves,
    /** TRAVERSE_TRUNK → BRANCH_IF_NEEDED: some magic word is not covered by the trunk. */
    trunkDoesNotResolveQuery: ({ event }) => !(event as unknown as { output: StepOutput<TrunkResult> }).output.result.resolves,
    /** VALIDATE_COMPRESSION → EXIT_BLOCKED: compression_ratio < gate AND the load exceeded the budget. */
    compressionBelowGateAndOverBudget: ({ event }) => {
      const c = (event as unknown as { output: StepOutput<CompressionResult> }).output.result;
      return c.ratio < c.gate && c.demand_over_budget;
    },
    /** VALIDATE_COMPRESSION → BUILD_ARTIFACTS: the compression gate let the load through. */
    compressionGatePassed: ({ event }) => {
      const c = (event as unknown as { output: StepOutput<CompressionResult> }).output.result;
      return !(c.ratio < c.gate && c.demand_over_budget);
    },
    /** SOCRATIC_REVIEW → EXIT_BLOCKED: a limit exceeded, a forbidden state entered, or nothing valid to pass. */
    budgetExceededOrInvariantViolated: ({ context, event }) => {
      const out = (event as unknown as { output: StepOutput<ReviewResult> }).output;
      return allViolations(context, out).length > 0 || out.result.limits_exceeded.length > 0 || !out.result.compression_valid || !context.artifacts?.complete;
    },
    /** SOCRATIC_REVIEW → TRAVERSE_TRUNK: the critique asks for re-navigation AND the budget allows it. */
    critiqueRequiresRenavigationAndBudgetAllows: ({ event }) => {
      const r = (event as unknown as { output: StepOutput<ReviewResult> }).output.result;
      return r.renavigate && r.budget_allows;
    },
    /** SOCRATIC_REVIEW → EXIT_PASS: artifacts complete and compression valid. */
    artifactsCompleteAndCompressionValid: ({ context, event }) => {
      const r = (event as unknown as { output: StepOutput<ReviewResult> }).output.result;
      return context.artifacts?.complete === true && r.compression_valid;
    },
  },
  actions: {
    storeCapsule: assign({ capsule: ({ event }) => (event as NavigatorMachineEvent).capsule }),
    storeIntake: assign(({ event }) => ({ intake: (event as unknown as { output: StepOutput<IntakeResult> }).output.result })),
    storeMagicWords: assign(({ context, event }) => {
      const out = (event as unknown as { output: StepOutput<MagicWordsResult> }).output;
      return { magic: out.result, violations: allViolations(context, out) };
    }),
    storeTiers: assign(({ context, event }) => {
      const out = (event as unknown as { output: StepOutput<TierMap> }).output;
      return { tiers: out.result, violations: allViolations(context, out) };
    }),
    storeTrunk: assign(({ context, event }) => {
      const out = (event as unknown as { output: StepOutput<TrunkResult> }).output;
      return { trunk: out.result, branch: undefined, tier_path: [...context.tier_path, ...out.result.entries], violations: allViolations(context, out) };
    }),
    storeBranch: assign(({ context, event }) => {
      const out = (event as unknown as { output: StepOutput<BranchResult> }).output;
      return { branch: out.result, tier_path: [...context.tier_path, ...out.result.entries], violations: allViolations(context, out) };
    }),
    storeLoad: assign(({ context, event }) => {
      const out = (event as unknown as { output: StepOutput<LoadResult> }).output;
      return { load: out.result, violations: allViolations(context, out) };
    }),
    storeCompression: assign(({ context, event }) => {
      const out = (event as unknown as { output: StepOutput<CompressionResult> }).output;
      return { compression: out.result, violations: allViolations(context, out) };
    }),
    storeArtifacts: assign(({ context, event }) => {
      const out = (event as unknown as { output: StepOutput<Artifacts> }).output;
      return { artifacts: out.result, violations: allViolations(context, out) };
    }),
    storeReview: assign(({ context, event }) => {
      const out = (event as unknown as { output: StepOutput<ReviewResult> }).output;
      return { review: out.result, violations: allViolations(context, out) };
    }),
    startNextPass: assign({ pass: ({ context }) => context.pass + 1 }),
  },
}).createMachine({
  id: 'navigator',
  initial: 'INIT',
  context: { capsule: undefined, pass: 1, tier_path: [], violations: [] },
  output: ({ context }) => context,
  states: {
    INIT: {
      on: { CAPSULE: { target: 'INTAKE_QUERY', actions: 'storeCapsule' } },
    },
    INTAKE_QUERY: {
      invoke: { id: 'intakeQuery', src: 'intakeQuery', input: ({ context }) => ({ context }), onDone: { target: 'NULL_CHECK', actions: 'storeIntake' } },
    },
    NULL_CHECK: {
      always: [
        { guard: 'inputsMissing', target: 'EXIT_NEED_INFO' },
        { guard: 'inputsDefined', target: 'EXTRACT_MAGIC_WORDS' },
      ],
    },
    EXTRACT_MAGIC_WORDS: {
      invoke: {
        id: 'extractMagicWords',
        src: 'extractMagicWords',
        input: ({ context }) => ({ context }),
        onDone: [
          { guard: 'noMagicWords', target: 'EXIT_NEED_INFO', actions: 'storeMagicWords' },
          { guard: 'magicWordsFound', target: 'MAP_TO_TIERS', actions: 'storeMagicWords' },
        ],
      },
    },
    MAP_TO_TIERS: {
      invoke: { id: 'mapToTiers', src: 'mapToTiers', input: ({ context }) => ({ context }), onDone: { target: 'TRAVERSE_TRUNK', actions: 'storeTiers' } },
    },
    TRAVERSE_TRUNK: {
      invoke: {
        id: 'traverseTrunk',
        src: 'traverseTrunk',
        input: ({ context }) => ({ context }),
        onDone: [
          { guard: 'trunkDoesNotResolveQuery', target: 'BRANCH_IF_NEEDED', actions: 'storeTrunk' },
          { guard: 'trunkResolvesQuery', target: 'LOAD_CONTEXT', actions: 'storeTrunk' },
        ],
      },
    },
    BRANCH_IF_NEEDED: {
      invoke: { id: 'branchIfNeeded', src: 'branchIfNeeded', input: ({ context }) => ({ context }), onDone: { target: 'LOAD_CONTEXT', actions: 'storeBranch' } },
    },
    LOAD_CONTEXT: {
      invoke: { id: 'loadContext', src: 'loadContext', input: ({ context }) => ({ context }), onDone: { target: 'VALIDATE_COMPRESSION', actions: 'storeLoad' } },
    },
    VALIDATE_COMPRESSION: {
      invoke: {
        id: 'validateCompression',
        src: 'validateCompression',
        input: ({ context }) => ({ context }),
        onDone: [
          { guard: 'compressionBelowGateAndOverBudget', target: 'EXIT_BLOCKED', actions: 'storeCompression' },
          { guard: 'compressionGatePassed', target: 'BUILD_ARTIFACTS', actions: 'storeCompression' },
        ],
      },
    },
    BUILD_ARTIFACTS: {
      invoke: { id: 'buildArtifacts', src: 'buildArtifacts', input: ({ context }) => ({ context }), onDone: { target: 'SOCRATIC_REVIEW', actions: 'storeArtifacts' } },
    },
    SOCRATIC_REVIEW: {
      invoke: {
        id: 'socraticReview',
        src: 'socraticReview',
        input: ({ context }) => ({ context }),
        onDone: [
          { guard: 'budgetExceededOrInvariantViolated', target: 'EXIT_BLOCKED', actions: 'storeReview' },
          { guard: 'critiqueRequiresRenavigationAndBudgetAllows', target: 'TRAVERSE_TRUNK', actions: ['storeReview', 'startNextPass'] },
          { guard: 'artifactsCompleteAndCompressionValid', target: 'EXIT_PASS', actions: 'storeReview' },
        ],
      },
    },
    EXIT_PASS: { type: 'final' },
    EXIT_NEED_INFO: { type: 'final' },
    EXIT_BLOCKED: {
      type: 'final',
      description: `entered from SOCRATIC_REVIEW [budgetExceededOrInvariantViolated] on any forbidden state: ${FORBIDDEN_STATES.join(', ')}`,
    },
  },
});
