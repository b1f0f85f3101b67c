/**
 * Plain BM25 over whole files beside the ranking (issue 40, recall). The ranking weighs a file by the task's chosen
 * words in its names and places, by evidence and by the reference graph: a file whose body uses many of the task's
 * words, none of them in a name, ranks below files that name one. Plain search finds those files, and it misses what
 * the ranking finds: the two disagree on the files below the first few. So a full pick (no conclusive stop) keeps
 * the ranking's first files and gives its last WHOLE_FILE_SLOTS places to plain search's best sources not already
 * picked, when the ranking has them (a file is loaded for a word it contains).
 */
import { ablated } from './ablation.js';
import { dumpWhole } from './rank-dump.js';
import type { RankedFile } from './ranking.js';
import { lineTerms } from './terms.js';
import type { TextIndex } from './text-index.js';

/** Places of a full pick given to plain search's best files. */
export const WHOLE_FILE_SLOTS = 2;
/** Plain search's files read at most (its best sources among them fill the places). */
const WHOLE_FILE_LIMIT = 24;

/**
 * Plain search's best files for a task, in order: every term of the task the index knows, weighted alike. A term in
 * half the files or more is left out: BM25 gives it no weight (FTS5 floors its idf at 1e-6), and its long list of
 * files is most of the query's time (25 → 6 ms on a sympy-sized index).
 */
export function wholeFileBest(task: string, text: Pick<TextIndex, 'searchWhole' | 'docFreq' | 'size'>): string[] {
  if (ablated('whole-file')) return [];
  const terms = [...new Set(lineTerms(task))].filter((t) => {
    if (t.length < 2) return false;
    const df = text.docFreq(t);
    return df > 0 && 2 * df < text.size;
  });
  const hits = text.searchWhole(terms, WHOLE_FILE_LIMIT);
  dumpWhole(task, hits);
  return hits.map((h) => h.path);
}

/**
 * A full pick (`top` holds `max` files) with its last WHOLE_FILE_SLOTS places given to the best of `whole` (plain
 * search's order) that are ranked sources not among the files kept; the ranking's next files fill what is left.
 */
export function withWholeFileBest(top: RankedFile[], ranked: readonly RankedFile[], whole: readonly string[], max: number): RankedFile[] {
  if (top.length < max || max <= WHOLE_FILE_SLOTS || !whole.length) return top;
  const head = top.slice(0, max - WHOLE_FILE_SLOTS);
  const kept = new Set(head.map((f) => f.path));
  const byPath = new Map(ranked.map((f) => [f.path, f]));
  const extra: RankedFile[] = [];
  for (const p of whole) {
    if (extra.length >= WHOLE_FILE_SLOTS) break;
    const f = byPath.get(p);
    if (f && f.class === 'source' && !kept.has(p)) extra.push(f);
  }
  const taken = new Set([...kept, ...extra.map((f) => f.path)]);
  const rest = top.slice(max - WHOLE_FILE_SLOTS).filter((f) => !taken.has(f.path));
  return [...head, ...extra, ...rest].slice(0, max);
}
