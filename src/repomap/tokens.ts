import { createHash } from 'node:crypto';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';

/** The encoding every navkernel token count uses (repomix's default too, so counts compare). */
export const TOKEN_ENCODING = 'o200k_base';

let encoder: Tiktoken | undefined;
function enc(): Tiktoken {
  encoder ??= new Tiktoken(o200k);
  return encoder;
}

/** js-tiktoken's BPE is quadratic in the length of one pre-token: long runs without whitespace are cut. */
const MAX_RUN = 64;
/** Text is encoded in pieces of about this many characters, cut at whitespace. */
const CHUNK = 16_384;

/**
 * Pieces of `text` to encode one by one: whitespace-free runs longer than MAX_RUN characters are cut
 * into MAX_RUN pieces (minified code, base64, lock files), so counting stays linear. The count of such
 * a run can differ from an uncut encoding by at most one token per cut.
 */
export function tokenPieces(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    let end = Math.min(n, i + CHUNK);
    if (end < n) {
      const ws = text.lastIndexOf('\n', end);
      if (ws > i) end = ws + 1;
    }
    const piece = text.slice(i, end);
    i = end;
    if (!/\S{65}/.test(piece)) {
      out.push(piece);
      continue;
    }
    const re = /\S{65,}/g;
    let last = 0;
    for (let m = re.exec(piece); m; m = re.exec(piece)) {
      if (m.index > last) out.push(piece.slice(last, m.index));
      for (let j = 0; j < m[0].length; j += MAX_RUN) out.push(m[0].slice(j, j + MAX_RUN));
      last = m.index + m[0].length;
    }
    if (last < piece.length) out.push(piece.slice(last));
  }
  return out;
}

const cache = new Map<string, number>();
const CACHE_MAX = 200_000;
let counted = { calls: 0, chars: 0 };

/** Token count of `text` (o200k_base; special tokens are counted as plain text). Cached by content hash. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const key = text.length < 64 ? text : createHash('sha1').update(text).digest('base64');
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let total = 0;
  const e = enc();
  for (const piece of tokenPieces(text)) total += e.encode(piece, [], []).length;
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
