import type { CandidateMove, Charter } from '../contracts/index.js';

// Words that name the kind of thing, not what it does: they never decide a match.
const GENERIC = new Set(['step', 'flow', 'node', 'agent', 'stage', 'task', 'the', 'a', 'an', 'and', 'or', 'of', 'to', 'for', 'in', 'on', 'with', 'any', 'all', 'new']);
const SUFFIXES = ['ations', 'ation', 'ments', 'ment', 'ings', 'ing', 'ers', 'er', 'ed', 'es', 's'];

function stem(word: string): string {
  for (const suf of SUFFIXES) if (word.endsWith(suf) && word.length - suf.length >= 3) return word.slice(0, -suf.length);
  return word.endsWith('e') && word.length >= 5 ? word.slice(0, -1) : word;
}

/** Significant stems of an id or a phrase: split on non-alphanumerics and camelCase, lower-cased, generic words dropped. */
export function stems(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !GENERIC.has(w))
    .map(stem);
}

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
