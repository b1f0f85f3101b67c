import { stemmer } from 'stemmer';
import { splitWords, splitWordsOnce, splitWordsShared } from '../../repomap/words.js';

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
  const parts = splitWordsOnce(identifier);
  // No parts (`_`): '' without joining an empty array (of another elements kind: V8 would compile the lexer again).
  return parts.length === 0 ? '' : termsOfParts(parts).join(' ');
}

const WORD = /[A-Za-z0-9_]+/g;

/** The terms of a line of code or prose (identifiers and words alike), for finding where a task's words are. */
export function lineTerms(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(WORD)) identifierTerms(m[0], out);
  return out;
}

/** One shared regex (matchAll would clone it per line). */
const LINE_WORD = /[A-Za-z0-9_]+/g;

/** Lines longer than this are no code a reader looks at (minified, data): they match nothing. */
export const LINE_TERMS_MAX_CHARS = 2000;

const lineTermsMemo = new Map<string, (readonly string[] | undefined)[]>();
const LINE_TERMS_MEMO_MAX = 64;

/**
 * Every term of every line of a file's text (`lines` is `text` split at newlines), per line in order, undefined for a
 * line without terms or longer than LINE_TERMS_MAX_CHARS: what `lineTermsIn` filters, worked out once per text. A
 * long-lived process loads the same files for task after task; filtering the memoised terms by each task's words
 * gives `lineTermsIn`'s answer line by line.
 */
export function textLineTerms(text: string, lines: readonly string[]): readonly (readonly string[] | undefined)[] {
  let out = lineTermsMemo.get(text);
  if (out) return out;
  out = new Array<readonly string[] | undefined>(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length > LINE_TERMS_MAX_CHARS) continue;
    let terms: string[] | undefined;
    LINE_WORD.lastIndex = 0;
    for (let m = LINE_WORD.exec(line); m !== null; m = LINE_WORD.exec(line)) {
      const ts = termsOfIdentifier(m[0]);
      if (ts.length) (terms ??= []).push(...ts);
    }
    out[i] = terms;
  }
  if (lineTermsMemo.size >= LINE_TERMS_MEMO_MAX) lineTermsMemo.clear();
  lineTermsMemo.set(text, out);
  return out;
}
