import { createHash } from 'node:crypto';
import o200k from 'js-tiktoken/ranks/o200k_base';

/** The encoding every navkernel token count uses (repomix's default too, so counts compare). */
export const TOKEN_ENCODING = 'o200k_base';

/** js-tiktoken's BPE is quadratic in the length of one pre-token: long runs without whitespace are cut. */
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

/**
 * o200k_base ranks keyed by the token's bytes as a latin1 string (one char per byte). Built from the
 * same rank file js-tiktoken reads, several times faster than its encoder (no per-byte string joins).
 */
let ranks: Map<string, number> | undefined;
function rankMap(): Map<string, number> {
  if (ranks) return ranks;
  ranks = new Map();
  for (const line of o200k.bpe_ranks.split('\n')) {
    if (!line) continue;
    const parts = line.split(' ');
    const offset = Number.parseInt(parts[1]!, 10);
    // atob gives the decoded bytes as a latin1 string directly.
    for (let i = 2; i < parts.length; i++) ranks.set(atob(parts[i]!), offset + i - 2);
  }
  return ranks;
}

const PRE_TOKEN = new RegExp(o200k.pat_str, 'gu');
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Tokens of one pre-token (its UTF-8 bytes as latin1): tiktoken's byte-pair merge, repeatedly joining
 * the adjacent pair of lowest rank, leftmost first, exactly as js-tiktoken does. js-tiktoken re-joins
 * every pair each round (quadratic, and slow on long whitespace runs); here pairs sit in a heap keyed
 * by (rank, position) and stale entries are skipped, so a merge costs O(log n).
 */
function bpeCount(bytes: string, map: Map<string, number>): number {
  const n = bytes.length;
  if (n <= 1 || map.has(bytes)) return n === 0 ? 0 : 1;
  // Parts are identified by their start offset; next[s] is the start of the following part (n at the end).
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const alive = new Uint8Array(n).fill(1);
  for (let s = 0; s < n; s++) {
    next[s] = s + 1;
    prev[s] = s - 1;
  }
  // Min-heap of pairs: key = rank * stride + start of the left part (ties go to the leftmost pair), with
  // the pair's end alongside to recognise entries a later merge made stale.
  const stride = n + 1;
  const keys: number[] = [];
  const ends: number[] = [];
  const push = (s: number): void => {
    const t = next[s]!;
    if (t >= n) return;
    const e = next[t]!;
    const rank = map.get(bytes.slice(s, e));
    if (rank === undefined) return;
    let i = keys.length;
    keys.push(0);
    ends.push(0);
    const key = rank * stride + s;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (keys[p]! <= key) break;
      keys[i] = keys[p]!;
      ends[i] = ends[p]!;
      i = p;
    }
    keys[i] = key;
    ends[i] = e;
  };
  const pop = (): void => {
    const lastKey = keys.pop()!;
    const lastEnd = ends.pop()!;
    const len = keys.length;
    if (len === 0) return;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= len) break;
      if (c + 1 < len && keys[c + 1]! < keys[c]!) c++;
      if (keys[c]! >= lastKey) break;
      keys[i] = keys[c]!;
      ends[i] = ends[c]!;
      i = c;
    }
    keys[i] = lastKey;
    ends[i] = lastEnd;
  };
  for (let s = 0; s < n - 1; s++) push(s);
  let parts = n;
  while (keys.length > 0) {
    const s = keys[0]! % stride;
    const e = ends[0]!;
    pop();
    const t = next[s]!;
    if (!alive[s] || t >= n || next[t] !== e) continue;
    alive[t] = 0;
    next[s] = e;
    if (e < n) prev[e] = s;
    parts--;
    push(s);
    if (prev[s]! >= 0) push(prev[s]!);
  }
  return parts;
}

/** Token counts of pre-tokens already seen: code repeats the same identifiers and indentation. */
const preTokenCounts = new Map<string, number>();
const PRE_TOKEN_CACHE_MAX = 500_000;

function countPiece(piece: string, map: Map<string, number>): number {
  let total = 0;
  PRE_TOKEN.lastIndex = 0;
  for (let m = PRE_TOKEN.exec(piece); m; m = PRE_TOKEN.exec(piece)) {
    const s = m[0];
    let c = preTokenCounts.get(s);
    if (c === undefined) {
      // ASCII is its own UTF-8: only other text needs converting to bytes.
      c = bpeCount(NON_ASCII.test(s) ? Buffer.from(s, 'utf8').toString('latin1') : s, map);
      if (preTokenCounts.size >= PRE_TOKEN_CACHE_MAX) preTokenCounts.clear();
      preTokenCounts.set(s, c);
    }
    total += c;
  }
  return total;
}

const cache = new Map<string, number>();
const CACHE_MAX = 200_000;
let counted = { calls: 0, chars: 0 };

/**
 * Token count of `text` (o200k_base; special tokens are counted as plain text). Cached by content hash.
 * Equal, piece by piece, to js-tiktoken's `encode(piece, [], []).length` summed over `tokenPieces(text)`.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const key = text.length < 64 ? text : createHash('sha1').update(text).digest('base64');
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let total = 0;
  const map = rankMap();
  forEachPiece(text, (s, e) => {
    total += countPiece(s === 0 && e === text.length ? text : text.slice(s, e), map);
  });
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(key, total);
  counted.calls++;
  counted.chars += text.length;
  return total;
}

/** Characters actually encoded so far (cache misses), for benchmarks. */
export function tokenCounterStats(): { calls: number; chars: number } {
  return { ...counted };
}
