/**
 * The navigator's FSM (seed 002 §5): exactly its 14 states and 17 transitions. Topology and names only: each
 * working state invokes a named actor, every transition the seed makes conditional is a named guard over the
 * actor's output or the context, and each state's result is kept by a named action; src/navigator provides them all
 * (src/navigator/pipeline/navigator-machine.ts, `createNavigator`) with `.provide()`, so this file imports nothing from src/. Forbidden states (seed §6) are reported by the actors as violations; they make the
 * SOCRATIC_REVIEW → EXIT_BLOCKED guard true, so the machine never needs a transition the seed lacks.
 */
import { fromPromise, setup } from 'xstate';

/** The seed-002 forbidden states (§6). Entering one ends the run in EXIT_BLOCKED naming it. */
export const FORBIDDEN_STATES = [
  'FULL_CORPUS_LOAD',
  'SKIP_TRUNK',
  'COMPRESSION_BYPASS',
  'MAGIC_WORD_INVENTION',
  'SCOPE_EXPANSION',
  'NULL_ZERO_CONFUSION',
  'CONTEXT_ACCUMULATION',
  // Issue 16: a NORTHSTAR given but not read before BUILD_ARTIFACTS; loaded context that contradicts a stated non-goal.
  'NORTHSTAR_UNREAD',
  'NORTHSTAR_MISALIGNED',
] as const;

/**
 * The machine's context. The steps' results are the navigator's (src/navigator/pipeline/navigator-machine.ts types them as
 * NavigatorContext); the machine never looks inside them.
 */
export interface NavigatorMachineContext {
  /** The raw capsule, as received. */
  capsule: unknown;
  /** 1 on the first traversal, 2 after SOCRATIC_REVIEW sent the machine back. */
  pass: number;
  /** How far the navigation got: each step's output, the next step's input (src/navigator/pipeline/types.ts, `Progress`). */
  progress: unknown;
  /** Every visited node of every pass, in visiting order. */
  tier_path: unknown[];
  violations: unknown[];
}

export type NavigatorMachineEvent = { type: 'CAPSULE'; capsule: unknown };

/** The actors' input: the whole context (they read what they need). */
type ActorInput = { context: NavigatorMachineContext };

const notProvided = (what: string) => () => {
  throw new Error(`navigator machine: ${what} not provided (use createNavigator from src/navigator)`);
};
const actor = (name: string) => fromPromise<unknown, ActorInput>(async () => notProvided(`actor ${name}`)());

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

export const navigatorMachine = setup({
  types: {
    context: {} as NavigatorMachineContext,
    events: {} as NavigatorMachineEvent,
    output: {} as NavigatorMachineContext,
  },
  actors: {
    intakeQuery: actor('intakeQuery'),
    extractMagicWords: actor('extractMagicWords'),
    mapToTiers: actor('mapToTiers'),
    traverseTrunk: actor('traverseTrunk'),
    branchIfNeeded: actor('branchIfNeeded'),
    loadContext: actor('loadContext'),
    validateCompression: actor('validateCompression'),
    buildArtifacts: actor('buildArtifacts'),
    socraticReview: actor('socraticReview'),
  },
  guards: {
    /** NULL_CHECK → EXIT_NEED_INFO: query == null OR repo_root undefined. */
    inputsMissing: notProvided('guard inputsMissing'),
    /** NULL_CHECK → EXTRACT_MAGIC_WORDS: inputs defined. */
    inputsDefined: notProvided('guard inputsDefined'),
    /** EXTRACT_MAGIC_WORDS → EXIT_NEED_INFO: no magic word extractable from the task, and none from a hint. */
    noMagicWords: notProvided('guard noMagicWords'),
    /** EXTRACT_MAGIC_WORDS → MAP_TO_TIERS: magic words were found (an empty "found" list is NULL_ZERO_CONFUSION). */
    magicWordsFound: notProvided('guard magicWordsFound'),
    /** TRAVERSE_TRUNK → LOAD_CONTEXT: the trunk covers every magic word. */
    trunkResolvesQuery: notProvided('guard trunkResolvesQuery'),
    /** TRAVERSE_TRUNK → BRANCH_IF_NEEDED: some magic word is not covered by the trunk. */
    trunkDoesNotResolveQuery: notProvided('guard trunkDoesNotResolveQuery'),
    /** VALIDATE_COMPRESSION → EXIT_BLOCKED: compression_ratio < gate AND the load exceeded the budget. */
    compressionBelowGateAndOverBudget: notProvided('guard compressionBelowGateAndOverBudget'),
    /** VALIDATE_COMPRESSION → BUILD_ARTIFACTS: the compression gate let the load through. */
    compressionGatePassed: notProvided('guard compressionGatePassed'),
    /** SOCRATIC_REVIEW → EXIT_BLOCKED: a limit exceeded, a forbidden state entered, or nothing valid to pass. */
    budgetExceededOrInvariantViolated: notProvided('guard budgetExceededOrInvariantViolated'),
    /** SOCRATIC_REVIEW → TRAVERSE_TRUNK: the critique asks for re-navigation AND the budget allows it. */
    critiqueRequiresRenavigationAndBudgetAllows: notProvided('guard critiqueRequiresRenavigationAndBudgetAllows'),
    /** SOCRATIC_REVIEW → EXIT_PASS: artifacts complete and compression valid. */
    artifactsCompleteAndCompressionValid: notProvided('guard artifactsCompleteAndCompressionValid'),
  },
  actions: {
    storeCapsule: notProvided('action storeCapsule'),
    storeIntake: notProvided('action storeIntake'),
    storeMagicWords: notProvided('action storeMagicWords'),
    storeTiers: notProvided('action storeTiers'),
    storeTrunk: notProvided('action storeTrunk'),
    storeBranch: notProvided('action storeBranch'),
    storeLoad: notProvided('action storeLoad'),
    storeCompression: notProvided('action storeCompression'),
    storeArtifacts: notProvided('action storeArtifacts'),
    storeReview: notProvided('action storeReview'),
    startNextPass: notProvided('action startNextPass'),
  },
}).createMachine({
  id: 'navigator',
  initial: 'INIT',
  context: { capsule: undefined, pass: 1, progress: { at: 'received' }, tier_path: [], violations: [] },
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
