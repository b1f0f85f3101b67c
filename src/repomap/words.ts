const memo = new Map<string, readonly string[]>();
const MEMO_MAX = 100_000;

const LOWER = /^[a-z]+$/;

function split(text: string): string[] {
  // Most parts of most identifiers are plain lowercase words: no regex work for them.
  if (LOWER.test(text)) return [text];
  const out: string[] = [];
  for (const raw of text.split(/[^A-Za-z0-9]+/)) {
    if (!raw) continue;
    // A snake_case part (`is`, `real` of `_eval_is_real`): nothing to cut, already lower case.
    if (LOWER.test(raw)) {
      out.push(raw);
      continue;
    }
    const parts = raw
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .replace(/([A-Za-z])([0-9])/g, '$1 $2')
      .replace(/([0-9])([A-Za-z])/g, '$1 $2')
      .split(' ');
    for (const p of parts) if (p) out.push(p.toLowerCase());
  }
  return out;
}

/**
 * Splits text into lowercase word parts: on non-alphanumerics, snake_case, kebab-case and camelCase
 * boundaries (`parseHTTPRequest2` → parse, http, request, 2). Order kept, duplicates kept.
 * Memoised: ranking and rendering split the same definition names and paths many times over.
 */
export function splitWords(text: string): string[] {
  // A copy: callers may change what they get.
  return splitWordsShared(text).slice();
}

/** `splitWords` without the copy, for hot loops that only read the parts (never change the array). */
export function splitWordsShared(text: string): readonly string[] {
  let words = memo.get(text);
  if (!words) {
    words = split(text);
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(text, words);
  }
  return words;
}
