import { stemmer } from 'stemmer';
import { splitWords, splitWordsOnce, splitWordsShared } from '../repomap/words.js';

/**
 * The terms of the full-text index and of a task, the same way on both sides: identifiers split at
 * camelCase / snake_case / kebab-case into lowercase parts, each part stemmed (Porter, the `stemmer`
 * package), and a compound identifier kept whole too (`backoffLimit` → `backoff`, `limit`,
 * `backofflimit`), so an exact name scores above its parts.
 */

const stems = new Map<string, string>();
const STEM_MEMO_MAX = 200_000;

/** The stem of one lowercase word part (numbers and one-letter parts unchanged). */
export function stemOf(part: string): string {
  let s = stems.get(part);
  if (s === undefined) {
    s = part.length < 3 || /^\d/.test(part) ? part : stemmer(part);
    if (stems.size >= STEM_MEMO_MAX) stems.clear();
    stems.set(part, s);
  }
  return s;
}

/** The whole form of an identifier: its lowercase parts joined (`backoff_limit`, `backoffLimit` → `backofflimit`). */
export function wholeOf(identifier: string): string {
  return splitWords(identifier).join('');
}

/** Appends the index terms of one identifier or word to `out`. */
export function identifierTerms(identifier: string, out: string[]): void {
  for (const t of termsOfIdentifier(identifier)) out.push(t);
}

/** The index terms of one identifier or word (memoised; the array is shared, never to be changed). */
function termsOfIdentifier(identifier: string): readonly string[] {
  let terms = termMemo.get(identifier);
  if (!terms) {
    terms = termsOfParts(splitWordsShared(identifier));
    if (termMemo.size >= STEM_MEMO_MAX) termMemo.clear();
    termMemo.set(identifier, terms);
  }
  return terms;
}

function termsOfParts(parts: readonly string[]): string[] {
  const terms = parts.map(stemOf);
  if (parts.length > 1) {
    const whole = parts.join('');
    if (whole.length <= 60) terms.push(whole);
  }
  return terms;
}
const termMemo = new Map<string, string[]>();

/**
 * The index terms of one identifier or word joined by spaces ('' when it has none): how a lexed file's fields
 * are written. Not memoised (its caller, the lexer's table of identifiers, is the memo).
 */
export function identifierPiece(identifier: string): string {
  return termsOfParts(splitWordsOnce(identifier)).join(' ');
}

const WORD = /[A-Za-z0-9_]+/g;

/** The terms of a line of code or prose (identifiers and words alike), for finding where a task's words are. */
export function lineTerms(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(WORD)) identifierTerms(m[0], out);
  return out;
}

const LINE_WORD = /[A-Za-z0-9_]+/g;

/**
 * `lineTerms(line).filter((t) => wanted.has(t))`, without the intermediate arrays: one shared regex
 * (matchAll would clone it per line) and only the wanted terms kept. Undefined when none.
 */
export function lineTermsIn(line: string, wanted: ReadonlyMap<string, unknown>): string[] | undefined {
  let out: string[] | undefined;
  LINE_WORD.lastIndex = 0;
  for (let m = LINE_WORD.exec(line); m !== null; m = LINE_WORD.exec(line)) {
    for (const t of termsOfIdentifier(m[0])) if (wanted.has(t)) (out ??= []).push(t);
  }
  return out;
}
