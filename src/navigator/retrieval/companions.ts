import type { IndexedFile } from '../../repomap/repo-index.js';
import { splitWordsShared } from '../../repomap/words.js';
import { ablated } from './ablation.js';

/**
 * Companions: files a fix needs beside the best-ranked one that share too few of the task's words to rank near it on
 * their own. A file of the first places is kept; a companion found further down takes the last of the first
 * COMPANION_PLACE places (acc@5: every file of a fix among the first five given) with the score of the file it moves
 * down (the list stays in score order: the plan orders files by score), and the files after it move one down.
 */

/** What a companion rule reads and writes of a ranked file. */
export interface CompanionCandidate {
  path: string;
  score: number;
  /** Why a companion rule moved the file up (absent when its score put it where it is). */
  companion?: string;
}
export const COMPANION_PLACE = 5;
/** How far down the ranking a companion is looked for. */
export const COMPANION_DEPTH = 60;
/** A method defined in more files than this is a common protocol (`__init__`, `toString`), not an override family. */
export const OVERRIDE_DEFINERS_MAX = 8;
/** The best-ranked files whose task-named methods are followed to their overrides. */
export const OVERRIDE_SOURCES = 2;

const CALLABLE = new Set(['function', 'method']);

/**
 * The names of the callables a file defines, each once (methods and functions; classes, types and variables left out:
 * an override family shares a method's name, not a class's).
 */
function callableNames(f: IndexedFile): Set<string> {
  const out = new Set<string>();
  for (const d of f.outline.defs) if (CALLABLE.has(d.kind) && d.name.length >= 4) out.add(d.name);
  return out;
}

/**
 * Override siblings: an issue names a method (`visit_table`, `_print_Mul`, `parse`) that the best-ranked file defines;
 * the same method defined in a few other files (a base class and its subclasses, parallel implementations of one
 * protocol) is usually changed with it. The best-ranked such file below the first places moves up to the last of them.
 * `named(name)` says whether the task names the definition's name as a whole word.
 */
export function overrideSiblings<T extends CompanionCandidate>(ranked: T[], fileOf: (path: string) => IndexedFile | undefined, files: readonly IndexedFile[], named: (name: string) => boolean): T[] {
  if (ablated('override-siblings') || ranked.length <= COMPANION_PLACE) return ranked;
  const names = new Set<string>();
  for (const r of ranked.slice(0, OVERRIDE_SOURCES)) {
    const f = fileOf(r.path);
    if (f) for (const n of callableNames(f)) if (named(n)) names.add(n);
  }
  if (!names.size) return ranked;
  // How many files of the repository define each name: a name everyone defines says nothing.
  const definers = new Map<string, number>();
  for (const f of files)
    for (const n of callableNames(f))
      if (names.has(n)) definers.set(n, (definers.get(n) ?? 0) + 1);
  const family = new Set([...names].filter((n) => (definers.get(n) ?? 0) >= 2 && (definers.get(n) ?? 0) <= OVERRIDE_DEFINERS_MAX));
  if (!family.size) return ranked;
  let shared = '';
  const at = ranked.slice(COMPANION_PLACE, COMPANION_DEPTH).findIndex((r) => {
    const f = fileOf(r.path);
    shared = f ? ([...callableNames(f)].find((n) => family.has(n)) ?? '') : '';
    return shared !== '';
  });
  if (at < 0) return ranked;
  return promote(ranked, COMPANION_PLACE + at, `overrides ${shared} of ${ranked[0]!.path}`);
}

/** The list with the file at `from` moved to the last of the first COMPANION_PLACE places, with the score of the file there. */
export function promote<T extends CompanionCandidate>(ranked: readonly T[], from: number, why: string): T[] {
  const out = [...ranked];
  const [moved] = out.splice(from, 1);
  const place = COMPANION_PLACE - 1;
  out.splice(place, 0, { ...moved!, score: out[place]!.score, companion: why });
  return out;
}

/** A name's whole form as the ranking matches words (`visit_table` → `visittable`). */
export const wholeForm = (name: string): string => splitWordsShared(name).join('');
