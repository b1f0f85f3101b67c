import type { FileLanguage } from '../../repomap/languages.js';

/**
 * The brace blocks of a file in a language whose blocks are `{ … }` (C, C++, Go, Rust, Java, JavaScript, TypeScript):
 * for each line, the blocks that hold it, so a window of matched words in a function too long to show whole can
 * be widened to the statement around it — a `case` of a long `switch`, the body of an `if` or a loop — instead of
 * a fixed radius that cuts it in the middle (issue 40, item 5: lines where the fix goes; C and C++ line hit was
 * lowest where the file was found). Strings, character literals and comments are skipped; a file whose braces do
 * not balance (macros that open a block, preprocessor branches) gives what it can: an unclosed block is no block.
 */
const BRACE_LANGUAGES = new Set<FileLanguage>(['c', 'cpp', 'go', 'rust', 'java', 'javascript', 'typescript', 'tsx']);

/** Whether a language's blocks are braces. */
export function hasBraceBlocks(language: FileLanguage | undefined): boolean {
  return language !== undefined && BRACE_LANGUAGES.has(language);
}

/** A block: the lines of its opening and closing braces (1-based, inclusive). */
export type Block = readonly [open: number, close: number];

/** Every closed brace block of `lines` (1-based line numbers), in the order they close. */
export function braceBlocks(lines: readonly string[], language: FileLanguage): Block[] {
  const out: Block[] = [];
  const stack: number[] = [];
  let block = false; // inside /* … */
  let raw: string | undefined; // inside a string that spans lines (Go's `…`, JavaScript's template)
  const rustLike = language === 'rust';
  for (let li = 0; li < lines.length; li++) {
    const s = lines[li]!;
    let i = 0;
    while (i < s.length) {
      if (block) {
        const end = s.indexOf('*/', i);
        if (end < 0) break;
        block = false;
        i = end + 2;
        continue;
      }
      if (raw !== undefined) {
        const end = s.indexOf(raw, i);
        if (end < 0) break;
        raw = undefined;
        i = end + 1;
        continue;
      }
      const c = s[i]!;
      if (c === '/' && s[i + 1] === '/') break;
      if (c === '/' && s[i + 1] === '*') {
        block = true;
        i += 2;
        continue;
      }
      if (c === '"') {
        i++;
        while (i < s.length && s[i] !== '"') i += s[i] === '\\' ? 2 : 1;
        i++;
        continue;
      }
      if (c === '`' && language !== 'c' && language !== 'cpp') {
        raw = '`';
        i++;
        continue;
      }
      if (c === "'") {
        // A character literal ('x', '\n', '\''); Rust's lifetimes ('a) and a stray quote are left alone.
        const m = /^'(?:\\.[^']{0,6}|[^'\\])'/.exec(s.slice(i, i + 12));
        if (m) {
          i += m[0].length;
          continue;
        }
        if (!rustLike && language !== 'c' && language !== 'cpp') {
          i++;
          while (i < s.length && s[i] !== "'") i += s[i] === '\\' ? 2 : 1;
          i++;
          continue;
        }
        i++;
        continue;
      }
      if (c === '{') stack.push(li + 1);
      else if (c === '}' && stack.length) out.push([stack.pop()!, li + 1]);
      i++;
    }
  }
  return out;
}

/**
 * The widest block around line `at` of at most `max` lines that is longer than `min` lines and lies inside
 * [`within[0]`, `within[1]`] without being that range's own outer block, or undefined: the statement a window
 * should show whole.
 */
export function blockAround(blocks: readonly Block[], at: number, min: number, max: number, within: readonly [number, number]): Block | undefined {
  let best: Block | undefined;
  for (const b of blocks) {
    const [a, z] = b;
    if (a > at || z < at) continue;
    const len = z - a + 1;
    if (len <= min || len > max) continue;
    if (a <= within[0] || z >= within[1]) continue;
    if (!best || len > best[1] - best[0] + 1) best = b;
  }
  return best;
}
