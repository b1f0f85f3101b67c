const memo = new Map<string, readonly string[]>();
const MEMO_MAX = 100_000;

const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
/** The class of an ASCII code unit: 0 for anything but a letter or a digit. */
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) CLASS[c] = c >= 65 && c <= 90 ? UPPER : c >= 97 && c <= 122 ? LOWER : c >= 48 && c <= 57 ? DIGIT : 0;
const classAt = (text: string, i: number): number => {
  const c = text.charCodeAt(i);
  return c < 128 ? CLASS[c]! : 0;
};

/**
 * One pass over the code units: runs of ASCII letters and digits, cut where a lowercase letter or digit meets
 * an uppercase one (`fooBar`, `v2X`), before the last capital of a capital run that a lowercase letter follows
 * (`HTTPRequest` → HTTP, Request), and where letters and digits meet (`utf8` → utf, 8); parts lowercased.
 */
function split(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let start = -1;
  let prev = 0;
  for (let i = 0; i <= n; i++) {
    const cur = i < n ? classAt(text, i) : 0;
    if (cur === 0) {
      if (start !== -1) out.push(text.slice(start, i).toLowerCase());
      start = -1;
    } else if (start === -1) start = i;
    else if (
      (cur === UPPER && (prev === LOWER || prev === DIGIT || (prev === UPPER && i + 1 < n && classAt(text, i + 1) === LOWER))) ||
      (cur === DIGIT && prev !== DIGIT) ||
      (prev === DIGIT && cur !== DIGIT)
    ) {
      out.push(text.slice(start, i).toLowerCase());
      start = i;
    }
    prev = cur;
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

/** `splitWords` without the memo, for a caller that keeps its own (a new array each call). */
export function splitWordsOnce(text: string): string[] {
  return split(text);
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
