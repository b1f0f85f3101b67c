import { ablated } from './ablation.js';
import type { FileLanguage } from '../../repomap/languages.js';

/** A preprocessor conditional's line: `#if`, `#ifdef`, `#ifndef`, `#elif`, `#else`, `#endif` (spaces after `#` allowed). */
const CONDITIONAL = /^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b/;

/**
 * In a C or C++ file, the preprocessor conditional lines just outside each run of shown lines (the `#if` before a
 * function shown whole, the `#endif` after it, the `#elif` after a window of a header's platform block), while
 * `room` lines are left. A fix often moves or drops such a guard, and the shown code's build condition is read
 * from it. Added last, from what is left of the allowance, so nothing else shown is displaced (switch: c-guard-lines).
 * `lines` are the file's lines (index l-1 for line l), `chosen` the shown 1-based line numbers; returns the lines to add.
 */
export function guardLines(language: FileLanguage | undefined, lines: readonly string[], chosen: ReadonlySet<number>, room: number): number[] {
  if (room <= 0 || (language !== 'c' && language !== 'cpp') || ablated('c-guard-lines')) return [];
  const n = lines.length;
  const add = new Set<number>();
  const sorted = [...chosen].sort((a, b) => a - b);
  for (let i = 0; i < sorted.length && add.size < room; i++) {
    const l = sorted[i]!;
    const before = l - 1;
    const after = l + 1;
    if (before >= 1 && !chosen.has(before) && CONDITIONAL.test(lines[before - 1]!)) add.add(before);
    if (add.size < room && after <= n && !chosen.has(after) && CONDITIONAL.test(lines[after - 1]!)) add.add(after);
  }
  return [...add].sort((a, b) => a - b).slice(0, room);
}
