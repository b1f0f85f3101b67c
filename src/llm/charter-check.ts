import { stems } from '../contracts/charter-terms.js';
import type { CandidateMove, Charter } from '../contracts/index.js';

/**
 * The charter's non-goal that puts a name (a step, flow or node id) out of scope, if any: every significant word
 * of the name appears in the non-goal (after stemming), so `refactor-auth` matches "refactoring the auth module".
 */
export function nonGoalMatching(name: string, charter: Charter): string | undefined {
  const want = stems(name);
  if (want.length === 0) return undefined;
  return charter.non_goals.find((ng) => {
    const have = new Set(stems(ng));
    return want.every((w) => have.has(w));
  });
}

/** Why the charter refuses this move, or undefined when it is in scope. */
export function charterViolation(candidate: CandidateMove, charter: Charter, nodeIds: readonly string[] = []): string | undefined {
  for (const name of [candidate.target, ...nodeIds]) {
    if (!name) continue;
    const ng = nonGoalMatching(name, charter);
    if (ng !== undefined) return `${name} falls under the charter's non-goal "${ng}"`;
  }
  return undefined;
}
