import { ablated } from './ablation.js';
import type { FileLanguage } from '../../repomap/languages.js';

/** A C/C++ include directive (`#include <x>`, `# include "y.h"`). */
const INCLUDE = /^\s*#\s*include\b/;

/**
 * In a C or C++ file, when the task speaks of including (`include <cstdint>`, "missing include"), the file's
 * `#include` lines, first to last, while `room` lines are left: such a fix adds or drops a directive among them, and
 * the windows chosen by the task's other words lie in the code below. Added last, from what is left of the allowance,
 * so nothing else shown is displaced (switch: c-include-lines). `terms` are the task's weighted terms, `lines` the
 * file's lines (index l-1 for line l), `chosen` the shown 1-based line numbers; returns the lines to add.
 */
export function includeLines(language: FileLanguage | undefined, terms: ReadonlyMap<string, number>, lines: readonly string[], chosen: ReadonlySet<number>, room: number): number[] {
  if (room <= 0 || (language !== 'c' && language !== 'cpp') || !terms.has('include') || ablated('c-include-lines')) return [];
  const add: number[] = [];
  for (let l = 1; l <= lines.length && add.length < room; l++) if (!chosen.has(l) && INCLUDE.test(lines[l - 1]!)) add.push(l);
  return add;
}
