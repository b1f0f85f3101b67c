import { describe, expect, it } from 'vitest';
import { selectLines } from '../../src/navigator/retrieval/windows.js';
import { windowGrowth } from '../../src/navigator/retrieval/window-growth.js';
import type { Definition } from '../../src/repomap/index.js';

// A word window cut from a long Rust/C/C++ function grows into the file's unused lines (issue 40, switch
// `window-growth`): the statement a fix changes often sits a few lines off the densest line of the task's words.
// Fails with NAVKERNEL_ABLATE=window-growth (the window then stays ±3 lines).

/** A 120-line function whose only matched line is `at`, and the statement a fix changes `off` lines below it. */
function longFunction(at: number, fix: number, open: string, close: string): { text: string; defs: Definition[] } {
  const lines = [open];
  for (let l = 2; l < 120; l++) lines.push(l === at ? '    let limit = walker_depth(args); // the walker depth' : l === fix ? '    if limit > 0 { return stop(limit); }' : `    step_${l}(state);`);
  lines.push(close);
  return { text: `${lines.join('\n')}\n`, defs: [{ name: 'run', kind: 'function', start: 1, end: 120, header_end: 1, doc: null, parent: null }] };
}

describe('window growth in long functions', () => {
  it('widens a cut Rust window to reach a statement a few lines past the matched line', () => {
    const { text, defs } = longFunction(60, 66, 'pub fn run(args: &Args) {', '}');
    const sel = selectLines(text, defs, new Map([['walker', 2]]), 40, [], 'rust');
    expect(sel.lines).toContain(60);
    expect(sel.lines).toContain(66);
    expect(sel.lines.length).toBeLessThanOrEqual(40);
  });

  it('does the same in C, and stays within the allowance', () => {
    const { text, defs } = longFunction(60, 54, 'int run(struct args *args) {', '}');
    const sel = selectLines(text, defs, new Map([['walker', 2]]), 14, [], 'c');
    expect(sel.lines).toContain(54);
    expect(sel.lines.length).toBeLessThanOrEqual(14);
  });

  it('leaves other languages and uncut windows alone', () => {
    const { text, defs } = longFunction(60, 66, 'function run(args) {', '}');
    const sel = selectLines(text, defs, new Map([['walker', 2]]), 40, [], 'typescript');
    expect(sel.lines).not.toContain(66);
    expect(windowGrowth('rust', [], new Set([1]), 10)).toEqual([]);
    // Growth stops at the definition's ends and at GROWTH_LINES per side.
    expect(windowGrowth('rust', [{ a: 3, b: 9, start: 1, end: 10 }], new Set(), 50)).toEqual([1, 2, 10]);
    expect(windowGrowth('cpp', [{ a: 50, b: 56, start: 1, end: 200 }], new Set(), 50)).toEqual([45, 46, 47, 48, 49, 57, 58, 59, 60, 61]);
  });
});
