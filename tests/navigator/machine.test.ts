import { getAdjacencyMap } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { transition, type AnyStateNode } from 'xstate';
import { navigatorMachine } from '../../machines/navigator.machine.js';
import { navigatorFsm, type NavigatorContext } from '../../src/navigator/pipeline/navigator-machine.js';

// Seed 002 §5, typed in from the seed: [from, to, condition]. The guard names are ours.
const SEED: [string, string, string, string | null][] = [
  ['INIT', 'INTAKE_QUERY', 'on CNF capsule received', null],
  ['INTAKE_QUERY', 'NULL_CHECK', 'always', null],
  ['NULL_CHECK', 'EXIT_NEED_INFO', 'if query == null OR repo_root undefined', 'inputsMissing'],
  ['NULL_CHECK', 'EXTRACT_MAGIC_WORDS', 'if inputs defined', 'inputsDefined'],
  ['EXTRACT_MAGIC_WORDS', 'EXIT_NEED_INFO', 'if no magic words extractable AND no hint provided', 'noMagicWords'],
  ['EXTRACT_MAGIC_WORDS', 'MAP_TO_TIERS', 'if magic_words list non-empty', 'magicWordsFound'],
  ['MAP_TO_TIERS', 'TRAVERSE_TRUNK', 'always', null],
  ['TRAVERSE_TRUNK', 'BRANCH_IF_NEEDED', 'if trunk does not resolve query', 'trunkDoesNotResolveQuery'],
  ['TRAVERSE_TRUNK', 'LOAD_CONTEXT', 'if trunk resolves query', 'trunkResolvesQuery'],
  ['BRANCH_IF_NEEDED', 'LOAD_CONTEXT', 'always', null],
  ['LOAD_CONTEXT', 'VALIDATE_COMPRESSION', 'always', null],
  ['VALIDATE_COMPRESSION', 'EXIT_BLOCKED', 'if compression_ratio < 2.0 AND budget_exceeded', 'compressionBelowGateAndOverBudget'],
  ['VALIDATE_COMPRESSION', 'BUILD_ARTIFACTS', 'if compression gate passed', 'compressionGatePassed'],
  ['BUILD_ARTIFACTS', 'SOCRATIC_REVIEW', 'always', null],
  ['SOCRATIC_REVIEW', 'TRAVERSE_TRUNK', 'if critique requires re-navigation AND budget allows', 'critiqueRequiresRenavigationAndBudgetAllows'],
  ['SOCRATIC_REVIEW', 'EXIT_PASS', 'if artifacts complete and compression valid', 'artifactsCompleteAndCompressionValid'],
  ['SOCRATIC_REVIEW', 'EXIT_BLOCKED', 'if budget exceeded or invariant violated', 'budgetExceededOrInvariantViolated'],
];
const STATES = ['INIT', 'INTAKE_QUERY', 'NULL_CHECK', 'EXTRACT_MAGIC_WORDS', 'MAP_TO_TIERS', 'TRAVERSE_TRUNK', 'BRANCH_IF_NEEDED', 'LOAD_CONTEXT', 'VALIDATE_COMPRESSION', 'BUILD_ARTIFACTS', 'SOCRATIC_REVIEW', 'EXIT_PASS', 'EXIT_NEED_INFO', 'EXIT_BLOCKED'];

const key = (from: string, to: string, guard: string | null) => `${from} -> ${to} [${guard ?? '-'}]`;

/** Every transition defined in the machine, eventful and eventless. */
function definedTransitions(): string[] {
  const out: string[] = [];
  for (const node of Object.values(navigatorMachine.root.states) as AnyStateNode[]) {
    const defs = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
    for (const t of defs) for (const target of t.target ?? []) out.push(key(node.key, target.key, typeof t.guard === 'string' ? t.guard : ((t.guard as { type?: string } | undefined)?.type ?? null)));
  }
  return out.sort();
}

const done = (id: string, result: unknown, violations: unknown[] = [], progress: unknown = { at: 'received' }) => ({ type: `xstate.done.actor.${id}`, output: { result, violations, progress } }) as never;

/** Events that, between them, satisfy and falsify every guard. */
const EVENTS = {
  capsule: { type: 'CAPSULE', capsule: { task: 't', repo_root: '.' } } as never,
  intakeOk: done('intakeQuery', { missing: [] }, [], { at: 'intake', intake: { missing: [] } }),
  intakeMissing: done('intakeQuery', { missing: ['TASK is missing'] }, [], { at: 'intake', intake: { missing: ['TASK is missing'] } }),
  noWords: done('extractMagicWords', { kind: 'none_found', reason: 'none', hint: 'absent' }),
  words: done('extractMagicWords', { kind: 'found', words: [{ word: 'cart' }] }),
  tiers: done('mapToTiers', { words: [] }),
  trunkResolves: done('traverseTrunk', { resolves: true, entries: [] }),
  trunkOpen: done('traverseTrunk', { resolves: false, entries: [] }),
  branch: done('branchIfNeeded', { entries: [] }),
  load: done('loadContext', {}),
  gateBlocked: done('validateCompression', { ratio: 1.5, gate: 2, demand_over_budget: true }),
  gateLowButInBudget: done('validateCompression', { ratio: 1.5, gate: 2, demand_over_budget: false }),
  gateOk: done('validateCompression', { ratio: 12, gate: 2, demand_over_budget: true }),
  artifacts: done('buildArtifacts', { complete: true }, [], { at: 'navigating', prior: null, pass: { at: 'built', artifacts: { complete: true } } }),
  reviewOverBudget: done('socraticReview', { limits_exceeded: ['tokens 9000 > 8000'], compression_valid: true, renavigate: false, budget_allows: false }),
  reviewViolation: done('socraticReview', { limits_exceeded: [], compression_valid: true, renavigate: false, budget_allows: true }, [{ state: 'SKIP_TRUNK', at: 'x', detail: 'y' }]),
  reviewRenavigate: done('socraticReview', { limits_exceeded: [], compression_valid: true, renavigate: true, budget_allows: true }),
  reviewRenavigateNoBudget: done('socraticReview', { limits_exceeded: [], compression_valid: true, renavigate: true, budget_allows: false }),
  reviewPass: done('socraticReview', { limits_exceeded: [], compression_valid: true, renavigate: false, budget_allows: true }),
};

// Guards and actions are the navigator's (src/navigator provides them): the walks below run the provided machine.
function at(value: string, context: Partial<NavigatorContext> = {}) {
  return navigatorFsm.resolveState({ value, context: { capsule: {}, pass: 1, tier_path: [], violations: [], ...context } as NavigatorContext });
}
const next = (value: string, event: never, context: Partial<NavigatorContext> = {}) => String(transition(navigatorFsm, at(value, context), event)[0].value);

describe('navigator machine topology', () => {
  it('has exactly the seed\'s 14 states', () => {
    expect(Object.keys(navigatorMachine.root.states).sort()).toEqual([...STATES].sort());
    for (const s of ['EXIT_PASS', 'EXIT_NEED_INFO', 'EXIT_BLOCKED']) expect(navigatorMachine.root.states[s]!.type).toBe('final');
  });

  it('defines exactly the seed\'s 17 transitions, each conditional one behind its named guard', () => {
    expect(definedTransitions()).toEqual(SEED.map(([f, t, , g]) => key(f, t, g)).sort());
  });

  it('reaches every seed transition when @xstate/graph explores the machine with actor results', () => {
    const adj = getAdjacencyMap(navigatorFsm, { events: Object.values(EVENTS), serializeState: (s) => JSON.stringify([s.value, s.context.pass > 1]) });
    const walked = new Set<string>();
    for (const v of Object.values(adj))
      for (const t of Object.values(v.transitions) as { state: { value: unknown } }[]) {
        const from = String(v.state.value);
        const to = String(t.state.value);
        if (from === to) continue; // an event the state does not handle
        // NULL_CHECK is transient: INTAKE_QUERY's done event passes through it in one macrostep.
        if (from === 'INTAKE_QUERY') {
          walked.add('INTAKE_QUERY -> NULL_CHECK');
          walked.add(`NULL_CHECK -> ${to}`);
        } else walked.add(`${from} -> ${to}`);
      }
    expect([...walked].sort()).toEqual([...new Set(SEED.map(([f, t]) => `${f} -> ${t}`))].sort());
  });
});

describe('navigator machine guards', () => {
  it('INIT waits for the capsule', () => {
    expect(next('INIT', EVENTS.capsule)).toBe('INTAKE_QUERY');
    expect(next('INIT', EVENTS.intakeOk)).toBe('INIT');
  });
  it('NULL_CHECK: inputsMissing → EXIT_NEED_INFO, inputsDefined → EXTRACT_MAGIC_WORDS', () => {
    expect(next('INTAKE_QUERY', EVENTS.intakeMissing)).toBe('EXIT_NEED_INFO');
    expect(next('INTAKE_QUERY', EVENTS.intakeOk)).toBe('EXTRACT_MAGIC_WORDS');
  });
  it('EXTRACT_MAGIC_WORDS: noMagicWords → EXIT_NEED_INFO, magicWordsFound → MAP_TO_TIERS', () => {
    expect(next('EXTRACT_MAGIC_WORDS', EVENTS.noWords)).toBe('EXIT_NEED_INFO');
    expect(next('EXTRACT_MAGIC_WORDS', EVENTS.words)).toBe('MAP_TO_TIERS');
  });
  it('MAP_TO_TIERS → TRAVERSE_TRUNK always', () => {
    expect(next('MAP_TO_TIERS', EVENTS.tiers)).toBe('TRAVERSE_TRUNK');
  });
  it('TRAVERSE_TRUNK: trunkResolvesQuery → LOAD_CONTEXT, trunkDoesNotResolveQuery → BRANCH_IF_NEEDED', () => {
    expect(next('TRAVERSE_TRUNK', EVENTS.trunkResolves)).toBe('LOAD_CONTEXT');
    expect(next('TRAVERSE_TRUNK', EVENTS.trunkOpen)).toBe('BRANCH_IF_NEEDED');
    expect(next('BRANCH_IF_NEEDED', EVENTS.branch)).toBe('LOAD_CONTEXT');
    expect(next('LOAD_CONTEXT', EVENTS.load)).toBe('VALIDATE_COMPRESSION');
  });
  it('VALIDATE_COMPRESSION: blocks only when the ratio is below 2.0 AND the budget was exceeded', () => {
    expect(next('VALIDATE_COMPRESSION', EVENTS.gateBlocked)).toBe('EXIT_BLOCKED');
    expect(next('VALIDATE_COMPRESSION', EVENTS.gateLowButInBudget)).toBe('BUILD_ARTIFACTS');
    expect(next('VALIDATE_COMPRESSION', EVENTS.gateOk)).toBe('BUILD_ARTIFACTS');
    expect(next('BUILD_ARTIFACTS', EVENTS.artifacts)).toBe('SOCRATIC_REVIEW');
  });
  it('SOCRATIC_REVIEW: blocked on budget or invariant, re-navigates once when asked and allowed, else passes', () => {
    // SOCRATIC_REVIEW's guards read the current pass's artifacts from the progress BUILD_ARTIFACTS left.
    const built = (complete: boolean) => ({ progress: { at: 'navigating', prior: null, pass: { at: 'built', artifacts: { complete } } } as never });
    const complete = built(true);
    expect(next('SOCRATIC_REVIEW', EVENTS.reviewOverBudget, complete)).toBe('EXIT_BLOCKED');
    expect(next('SOCRATIC_REVIEW', EVENTS.reviewViolation, complete)).toBe('EXIT_BLOCKED');
    expect(next('SOCRATIC_REVIEW', EVENTS.reviewPass, { ...complete, violations: [{ state: 'SCOPE_EXPANSION', at: 'LOAD_CONTEXT', detail: 'x' }] })).toBe('EXIT_BLOCKED');
    expect(next('SOCRATIC_REVIEW', EVENTS.reviewPass, built(false))).toBe('EXIT_BLOCKED');
    const [after] = transition(navigatorFsm, at('SOCRATIC_REVIEW', complete), EVENTS.reviewRenavigate);
    expect(after.value).toBe('TRAVERSE_TRUNK');
    expect(after.context.pass).toBe(2);
    expect(next('SOCRATIC_REVIEW', EVENTS.reviewRenavigateNoBudget, complete)).toBe('EXIT_PASS');
    expect(next('SOCRATIC_REVIEW', EVENTS.reviewPass, complete)).toBe('EXIT_PASS');
  });
});
