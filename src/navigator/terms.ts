import { stemmer } from 'stemmer';
import type { FileLanguage } from '../repomap/languages.js';
import { splitWords, splitWordsShared } from '../repomap/words.js';

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
    const parts = splitWordsShared(identifier);
    terms = parts.map(stemOf);
    if (parts.length > 1) {
      const whole = parts.join('');
      if (whole.length <= 60) terms.push(whole);
    }
    if (termMemo.size >= STEM_MEMO_MAX) termMemo.clear();
    termMemo.set(identifier, terms);
  }
  return terms;
}
const termMemo = new Map<string, string[]>();

/** The fields lexed out of one file's text. */
export interface LexedText {
  /** Terms of the identifiers in code (comments and strings removed). */
  idents: string[];
  /** Terms of the words in comments and string literals (all of a document). */
  text: string[];
}

const C_LIKE = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\[\s\S]|[^`\\])*`/g;
const HASH_LIKE = /#[^\n]*|"""[\s\S]*?"""|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g;
const IDENT = /[A-Za-z_$][A-Za-z0-9_$]*|\d+[A-Za-z]\w*/g;
const WORD = /[A-Za-z0-9_]+/g;

const HASH_LANGS = new Set(['python']);
const HASH_EXT = /\.(py|pyi|rb|sh|bash|zsh|ya?ml|toml|pl|r|cfg|ini|conf|mk|cmake|tf|nix|ps1|dockerfile)$|(^|\/)(makefile|dockerfile|\.?[a-z]*rc)$/i;

function wordsInto(text: string, out: string[]): void {
  for (const m of text.matchAll(WORD)) identifierTerms(m[0], out);
}

/**
 * Lexes a file into identifier terms and comment/string terms with a small language-family lexer
 * (C-like `//`, `/* *\/` and quotes; `#` and triple quotes for Python, shell, YAML, TOML). Documents
 * and unknown text are all words. Not a parser: good enough to tell code names from prose.
 */
export function lexText(language: FileLanguage, relPath: string, text: string): LexedText {
  const idents: string[] = [];
  const words: string[] = [];
  if (language === 'markdown' || (language === 'text' && !HASH_EXT.test(relPath) && !/\.(json|c|h|cc|cpp|hpp|cs|swift|kt|kts|scala|php|dart|css|scss|less|vue|svelte|lua|zig|sql)$/i.test(relPath))) {
    wordsInto(text, words);
    return { idents, text: words };
  }
  const re = HASH_LANGS.has(language) || HASH_EXT.test(relPath) ? HASH_LIKE : C_LIKE;
  let last = 0;
  const code = (s: string) => {
    for (const m of s.matchAll(IDENT)) identifierTerms(m[0], idents);
  };
  re.lastIndex = 0;
  for (const m of text.matchAll(re)) {
    code(text.slice(last, m.index));
    wordsInto(m[0], words);
    last = m.index + m[0].length;
  }
  code(text.slice(last));
  return { idents, text: words };
}

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
