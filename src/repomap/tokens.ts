import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

/** The encoding of the repo map's token counts (repomix's default too, so counts compare); LLM estimates use cl100k_base. */
export const TOKEN_ENCODING = 'o200k_base';

/** Longest whitespace-free run encoded whole; longer runs are cut into pieces this long (see `tokenPieces`). */
const MAX_RUN = 64;
/** Text is encoded in pieces of about this many characters, cut at whitespace. */
const CHUNK = 16_384;

/** Code units JavaScript's `\s` matches (the pieces below must equal the regex-based cut they replace). */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Calls `emit(start, end)` for the pieces of `text` (see `tokenPieces`), in order, without copying.
 * One linear pass: a regex test for `\S{65}` backtracks up to 65 characters per position.
 */
function forEachPiece(text: string, emit: (start: number, end: number) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let end = Math.min(n, i + CHUNK);
    if (end < n) {
      const ws = text.lastIndexOf('\n', end);
      if (ws > i) end = ws + 1;
    }
    let last = i;
    let run = -1;
    for (let j = i; j <= end; j++) {
      if (j < end && !isSpace(text.charCodeAt(j))) {
        if (run < 0) run = j;
        continue;
      }
      if (run >= 0 && j - run > MAX_RUN) {
        if (run > last) emit(last, run);
        for (let k = run; k < j; k += MAX_RUN) emit(k, Math.min(j, k + MAX_RUN));
        last = j;
      }
      run = -1;
    }
    if (last < end) emit(last, end);
    i = end;
  }
}

/**
 * Pieces of `text` to encode one by one: whitespace-free runs longer than MAX_RUN characters are cut
 * into MAX_RUN pieces (minified code, base64, lock files), so counting stays linear. The count of such
 * a run can differ from an uncut encoding by at most one token per cut.
 */
export function tokenPieces(text: string): string[] {
  const out: string[] = [];
  forEachPiece(text, (s, e) => out.push(text.slice(s, e)));
  return out;
}

// gpt-tokenizer's o200k_base: the same ranks and pre-token split as js-tiktoken (counts are tested equal to
// js-tiktoken's `encode(piece, [], [])`), with a linear-time merge and its own caches, several times faster.
// Special-token text counts as plain text, as a file that mentions `<|endoftext|>` is still just text.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

type GptCount = (text: string, options: typeof PLAIN_TEXT) => number;
let gptCountTokens: GptCount | undefined;
let tokenizerLoads = 0;

/** The o200k_base ranks (2.4 MB of JavaScript) are loaded on the first count the caches cannot answer. */
function countPiece(piece: string): number {
  return (gptCountTokens ?? loadTokenizer())(piece, PLAIN_TEXT);
}

function loadTokenizer(): GptCount {
  if (!gptCountTokens) {
    const require = createRequire(import.meta.url);
    gptCountTokens = (require('gpt-tokenizer/encoding/o200k_base') as { countTokens: GptCount }).countTokens;
    tokenizerLoads++;
  }
  return gptCountTokens;
}

/**
 * Loads the tokenizer now (a few hundred milliseconds of compiling its ranks) rather than at the first count:
 * for a caller that has this thread's time to spare while other threads work and will count uncached text.
 */
export function preloadTokenizer(): void {
  loadTokenizer();
}

/**
 * A persistent store of token counts keyed like the in-process cache (the text itself when short, else
 * its sha1): a warm run whose loaded text is unchanged answers every count from it and never loads the
 * tokenizer. Counts are exact either way (the store holds what the tokenizer returned).
 */
export interface TokenCountStore {
  get(key: string): number | undefined;
  set(key: string, count: number): void;
}
let store: TokenCountStore | undefined;

/** Sets (or with undefined clears) the persistent token-count store consulted after the in-process cache. */
export function setTokenCountStore(s: TokenCountStore | undefined): void {
  store = s;
}

const cache = new Map<string, number>();
const CACHE_MAX = 200_000;
let counted = { calls: 0, chars: 0 };

/**
 * Token count of `text` (o200k_base; special tokens are counted as plain text). Cached by content hash.
 * Equal, piece by piece, to js-tiktoken's `encode(piece, [], []).length` summed over `tokenPieces(text)`,
 * except that U+FEFF counts as two tokens (one with js-tiktoken); tests pin both.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const key = text.length < 64 ? text : createHash('sha1').update(text).digest('base64');
  const hit = cache.get(key) ?? store?.get(key);
  if (hit !== undefined) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, hit);
    return hit;
  }
  let total = 0;
  forEachPiece(text, (s, e) => {
    total += countPiece(s === 0 && e === text.length ? text : text.slice(s, e));
  });
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(key, total);
  store?.set(key, total);
  counted.calls++;
  counted.chars += text.length;
  return total;
}

/** Empties the in-process count cache (tests and benchmarks: what a new process would see). */
export function resetTokenCache(): void {
  cache.clear();
}

/** Characters actually encoded so far (cache misses), for benchmarks. */
export function tokenCounterStats(): { calls: number; chars: number; tokenizer_loads: number } {
  return { ...counted, tokenizer_loads: tokenizerLoads };
}
