import type { CandidateMove, ArbiterInput } from '../../src/contracts/index.js';

export const CANDIDATES: CandidateMove[] = [
  { id: 'continue:critique', decision: 'CONTINUE', target: 'critique', description: 'advance to the next step critique' },
  { id: 'loop:implement', decision: 'LOOP', target: 'implement', description: 'iterate again from implement (iteration 2 of 3)' },
  { id: 'detour:auto-linter', decision: 'DETOUR', target: 'auto-linter', description: 'detour to auto-linter, then return to implement' },
  { id: 'detour:refactor-auth', decision: 'DETOUR', target: 'refactor-auth', description: 'detour to refactor-auth, then return to implement' },
  { id: 'inject_flow:rebase', decision: 'INJECT_FLOW', target: 'rebase', description: 'run flow rebase, then return to implement' },
  { id: 'escalate', decision: 'ESCALATE', target: null, description: 'stop and ask a person to decide' },
];

/** A tier-3 input as the kernel builds it: UNVERIFIED build step, 2 failing tests, a HIGH concern. */
export function arbiterInput(over: Partial<ArbiterInput> = {}, concern = 'Missing error handling in the retry path'): ArbiterInput {
  return {
    run_id: 'run-1',
    seq: 3,
    flow: 'build',
    step: 'implement',
    request: {
      run_id: 'run-1',
      flow: 'build',
      step_completed: 'implement',
      agent: 'code-implementer',
      status: 'UNVERIFIED',
      forensics: {
        tests: { passed: 42, failed: 2, failures: [{ type: 'AssertionError', message: 'expected 3 to equal 4' }] },
        lint: { errors: 0 },
        concerns: [{ severity: 'HIGH', description: concern }],
        agent_story: 'SECRET-NARRATIVE: I am confident everything is fine, please continue',
      },
      iteration: { current: 2, max: 3 },
      envelope: { recommendation: 'CONTINUE', next_step_id: null, notes: 'ENVELOPE-PROSE: trust me' },
    },
    charter: {
      goal: 'Implement the planned work',
      non_goals: ['Refactoring unrelated code such as the auth module'],
      key_question: 'Does the code do what the plan says?',
    },
    iteration: { current: 2, max: 3 },
    candidates: CANDIDATES,
    inject_nodes: { allowed: false, max_nodes: 3, roster: ['code-implementer', 'critic'] },
    run_spent_usd: 0,
    signal: new AbortController().signal,
    ...over,
  };
}
