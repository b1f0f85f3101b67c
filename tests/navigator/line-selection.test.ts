import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMPRESSION_GATE, loadRegistry, measureCompression } from '../../src/navigator/index.js';
import { loadContext } from '../../src/navigator/pipeline/load.js';
import { rankDefinitionsByTerms } from '../../src/navigator/retrieval/definition-scores.js';
import { inInlineTests, proseShares, selectLines } from '../../src/navigator/retrieval/windows.js';
import type { MagicWord, PlannedFile } from '../../src/navigator/pipeline/types.js';
import { indexRepo, type Definition } from '../../src/repomap/index.js';
import { tmpDir } from '../repomap/fixture.js';

// Which lines of a chosen file are shown (issue 21): fixtures of our own, no eval repository.

const def = (name: string, start: number, end: number, parent: number | null = null): Definition => ({ name, kind: 'function', start, end, header_end: start, doc: null, parent });

/** A 60-line function holding three task words on three adjacent lines, then a 35-line function holding four, spread out. */
function twoFunctions(): { text: string; defs: Definition[] } {
  const lines: string[] = ['def unrelated(x):'];
  for (let l = 2; l <= 60; l++) lines.push(l === 10 ? '    alpha = 1' : l === 11 ? '    bravo = 2' : l === 12 ? '    charlie = 3' : `    x = x + ${l}`);
  lines.push('');
  lines.push('def target(y):');
  for (let l = 63; l <= 96; l++) lines.push(l === 64 ? '    alpha(y)' : l === 74 ? '    bravo(y)' : l === 84 ? '    charlie(y)' : l === 94 ? '    delta(y)' : `    y = y * ${l}`);
  return { text: `${lines.join('\n')}\n`, defs: [def('unrelated', 1, 60), def('target', 62, 96)] };
}
const W = new Map([
  ['alpha', 2],
  ['bravo', 2],
  ['charlie', 2],
  ['delta', 2],
]);

describe('definitions ranked by their own lines', () => {
  it('scores a definition by the task words on its own lines (a method\'s lines are not its class\'s), a long body shrinking its score', () => {
    const { text, defs } = twoFunctions();
    const hits = text.split('\n').map((l) => [...W.keys()].filter((w) => l.includes(w)));
    const ranked = rankDefinitionsByTerms(defs, [undefined, ...hits], W, 96);
    expect(ranked.map((r) => defs[r.index]!.name)).toEqual(['target', 'unrelated']);
    // A class around the target owns none of its lines: it holds no word of its own and is left out.
    const nested = [def('Box', 61, 96), { ...def('target', 62, 96, 0), kind: 'method' }, def('unrelated', 1, 60)];
    expect(rankDefinitionsByTerms(nested, [undefined, ...hits], W, 96).map((r) => nested[r.index]!.name)).toEqual(['target', 'unrelated']);
  });

  it('shows the best-matching definition whole, though a denser window lies in another definition', () => {
    const { text, defs } = twoFunctions();
    const sel = selectLines(text, defs, W, 60);
    for (let l = 62; l <= 96; l++) expect(sel.lines).toContain(l);
    expect(sel.lines.length).toBeLessThanOrEqual(60);
    expect(sel.windows[0]).toEqual([62, 96]);
  });
});

describe('the line budget across files', () => {
  // Made in beforeAll, not at collection: a filter (-t) that skips every test runs no afterAll to remove it.
  let root: string;
  beforeAll(() => {
    root = path.join(tmpDir('nk-lines-'), 'repo');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    const body = (n: number, width: number) => Array.from({ length: n }, (_, i) => `export const widget${i} = gadget(${i}, '${'w'.repeat(width)}');`).join('\n') + '\n';
    writeFileSync(path.join(root, 'src/top.ts'), body(400, 4));
    writeFileSync(path.join(root, 'src/tail.ts'), body(400, 4));
    writeFileSync(path.join(root, 'src/wide.ts'), body(300, 160));
    writeFileSync(path.join(root, 'src/other.ts'), 'export const unrelated = 1;\n');
  });
  const words: MagicWord[] = [{ word: 'gadget', tier: 0, source: 'task', via: 'gadget' }];
  const plan = (p: string, relevance: number): PlannedFile => ({ path: p, tier: 0, words: ['gadget'], relevance, level: 3 });
  const run = async (planned: PlannedFile[], maxTokens: number) => {
    const index = await indexRepo(root, { cacheDir: false });
    const text = loadRegistry(index).text;
    return loadContext({ task: 'gadget', words, planned, index, text, budget: { max_files: 8, max_lines: 400, max_tool_calls: 30, max_tokens: maxTokens }, constraints: { scope: [], exclude: [] }, pass: 1, tool_calls_before: 0 });
  };

  it('gives a file twice as relevant four times the lines (relevance squared), and counts exactly the lines shown', async () => {
    const r = await run([plan('src/top.ts', 2), plan('src/tail.ts', 1)], 100_000);
    const [top, tail] = r.files;
    expect(top!.lines_shown).toBeGreaterThanOrEqual(3 * tail!.lines_shown);
    expect(top!.lines_shown + tail!.lines_shown).toBeLessThanOrEqual(400);
    const fromRanges = r.receipt.files_loaded.map((f) => f.ranges!.reduce((s, [a, b]) => s + b - a + 1, 0));
    expect(fromRanges).toEqual([top!.lines_shown, tail!.lines_shown]);
  });

  it('stays within the compression gate on a tiny repository, though the budget would show every file whole', async () => {
    const tiny = path.join(tmpDir('nk-tiny-lines-'), 'repo');
    mkdirSync(tiny, { recursive: true });
    const fn = (name: string) => [`export function ${name}(size: number): number {`, ...Array.from({ length: 14 }, (_, i) => `  size = gadget(size, ${i});`), '  return size;', '}', ''].join('\n');
    writeFileSync(path.join(tiny, 'one.ts'), fn('first') + fn('second'));
    writeFileSync(path.join(tiny, 'two.ts'), fn('third') + fn('fourth'));
    const index = await indexRepo(tiny, { cacheDir: false });
    const text = loadRegistry(index).text;
    const planned = [plan('one.ts', 1), plan('two.ts', 1)];
    const r = await loadContext({ task: 'gadget', words, planned, index, text, budget: { max_files: 8, max_lines: 400, max_tool_calls: 30, max_tokens: 8000 }, constraints: { scope: [], exclude: [] }, pass: 1, tool_calls_before: 0 });
    expect(r.files.map((f) => f.path)).toEqual(['one.ts', 'two.ts']);
    expect(r.lines_shown).toBeLessThan(r.lines_read);
    const c = measureCompression('gadget', r);
    expect(c.ratio).toBeGreaterThanOrEqual(COMPRESSION_GATE);
    expect(c.report.compression_gate_passed).toBe(true);
  });

  it('keeps tokens back for the later files: a token-heavy first file does not crowd the next one out', async () => {
    const probe = await run([plan('src/wide.ts', 1), plan('src/tail.ts', 1)], 1_000_000);
    const title = probe.tokens_loaded - probe.files.reduce((s, f) => s + f.tokens, 0);
    // Just enough for the first file's lines as chosen without a limit, and a few tokens more: less than the second file's header.
    const r = await run([plan('src/wide.ts', 1), plan('src/tail.ts', 1)], title + probe.files[0]!.tokens + 20);
    expect(r.files.map((f) => f.path)).toEqual(['src/wide.ts', 'src/tail.ts']);
    expect(r.tokens_loaded).toBeLessThanOrEqual(title + probe.files[0]!.tokens + 20);
  });
});

describe('docstrings folded', () => {
  // A Python function documented at length (parsed by the real grammar): 3 signature lines, a 50-line docstring, 20 lines of code.
  let root: string;
  const doc = Array.from({ length: 48 }, (_, i) => (i === 20 ? '    The gadget widget gadget example: swap the gadget widget.' : `    Prose line ${i} about parameters.`));
  const code = Array.from({ length: 19 }, (_, i) => (i === 15 ? '    result = swap(widget)' : `    value_${i} = compute(${i})`));
  const source = ['import os', '', 'def swap_things(widget,', '               other,', '               more):', '    """Swap the things.', ...doc, '    """', ...code, '    return result', ''].join('\n');
  beforeAll(() => {
    root = path.join(tmpDir('nk-fold-'), 'repo');
    mkdirSync(root, { recursive: true });
    writeFileSync(path.join(root, 'things.py'), source);
  });
  const weights = new Map([
    ['swap', 2],
    ['widget', 2],
    ['gadget', 2],
  ]);

  it('shows a long-documented function whole but for its docstring, whose first line stays', async () => {
    const index = await indexRepo(root, { cacheDir: false });
    const defs = index.files[0]!.outline.defs;
    const fn = defs.find((d) => d.name === 'swap_things')!;
    expect(fn.doc).toEqual([6, 55]);
    const sel = selectLines(source, defs, weights, 40, [{ start: fn.start, end: fn.end, header_end: fn.header_end }]);
    // Signature, the docstring's first line, every line of code: 3 + 1 + 20 of the function's 73 lines.
    const whole = [3, 4, 5, 6, ...Array.from({ length: 20 }, (_, i) => 56 + i)];
    expect(sel.windows[0]).toEqual([fn.start, fn.end]);
    expect(sel.lines.slice(0, 4)).toEqual([3, 4, 5, 6]);
    for (const l of whole) expect(sel.lines).toContain(l);
    // The 16 lines left go to the words' window, which lies in the docstring: shown around its line, not the rest of the docstring.
    const docShown = sel.lines.filter((l) => l > 6 && l < 56);
    expect(docShown).toContain(26);
    expect(docShown.length).toBeLessThanOrEqual(7);
    expect(sel.lines.length).toBeLessThanOrEqual(40);
  });

  it('ranks a window in the code above a denser one in the docstring', async () => {
    const index = await indexRepo(root, { cacheDir: false });
    const defs = index.files[0]!.outline.defs;
    // Too few lines for the function: windows of matched words decide, and the code's (line 71) wins over the docstring's (line 26).
    const sel = selectLines(source, defs, weights, 10);
    expect(sel.lines).toContain(71);
    expect(sel.lines).not.toContain(26);
  });
});

describe('tests inside a source file rank below its code', () => {
  // A Rust method with a long doc comment and a test module calling it again and again.
  const filler = (from: number, k: number) => Array.from({ length: k }, (_, i) => `        let v${from + i} = self.data[${i}] as usize + ${i};`);
  const source = [
    'pub struct Buffer {',
    '    data: Vec<u8>,',
    '    len: usize,',
    '}',
    '',
    'impl Buffer {',
    '    /// Splits the buffer in two at `at`, returning the head.',
    '    ///',
    '    /// # Panics',
    '    ///',
    '    /// When `at` is past the end.',
    '    ///',
    '    /// Added in 0.4.',
    '    ///',
    '    /// See also: `truncate`.',
    '    #[inline]',
    '    pub fn split_to(&mut self, at: usize) -> Buffer {',
    ...filler(0, 12),
    '        assert!(at <= self.len, "split_to out of bounds");',
    ...filler(12, 12),
    '        Buffer { data: self.data.drain(..at).collect(), len: at }',
    '    }',
    '}',
    '',
    '#[cfg(test)]',
    'mod tests {',
    '    use super::*;',
    '',
    '    #[test]',
    '    fn split_to_twice() {',
    '        let mut buffer = Buffer::from("abcdef");',
    '        let a = buffer.split_to(2);',
    '        let b = buffer.split_to(3);',
    '        assert_eq!(buffer.split_to(1).len, 1);',
    '    }',
    '}',
    '',
  ].join('\n');
  const weights = new Map([
    ['splitto', 3],
    ['buffer', 1],
  ]);
  const assertLine = source.split('\n').findIndex((l) => l.includes('out of bounds')) + 1;
  // Made in beforeAll, not at collection: a filter (-t) that skips every test runs no afterAll to remove it.
  let root: string;
  beforeAll(() => {
    root = path.join(tmpDir('nk-prose-'), 'repo');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    writeFileSync(path.join(root, 'src/buffer.rs'), source);
  });

  it('reads a Rust doc comment above the attributes as the method\'s doc', async () => {
    const index = await indexRepo(root, { cacheDir: false });
    const fn = index.files[0]!.outline.defs.find((d) => d.name === 'split_to')!;
    expect(fn.doc).toEqual([7, 15]);
  });

  it('a window in the method\'s code beats a denser one in the test module', async () => {
    const index = await indexRepo(root, { cacheDir: false });
    const defs = index.files[0]!.outline.defs;
    const sel = selectLines(source, defs, weights, 12);
    expect(sel.lines).toContain(assertLine);
    // The test's calls are not shown.
    expect(sel.lines.filter((l) => l >= 48)).toEqual([]);
  });

  it('ranks the method above the test calling it, and leaves the test module\'s definitions out', async () => {
    const index = await indexRepo(root, { cacheDir: false });
    const defs = index.files[0]!.outline.defs;
    const lines = source.split('\n');
    const hits = [undefined, ...lines.map((l) => [...weights.keys()].filter((w) => l.replace(/_/g, '').toLowerCase().includes(w)))];
    const ranked = rankDefinitionsByTerms(defs, hits, weights, lines.length, proseShares(defs, lines.length), (i) => inInlineTests(defs, i));
    const names = ranked.map((r) => defs[r.index]!.name);
    expect(names[0]).toBe('split_to');
    expect(names).not.toContain('split_to_twice');
    expect(names).not.toContain('tests');
  });
});

describe('evidenced definitions shown first', () => {
  it('shows the strongly evidenced definition whole, not one the evidence names in passing', () => {
    const lines = [
      'def crash(x):',
      ...Array.from({ length: 9 }, (_, i) => `    x = step_${i}(x)`),
      'def mentioned(y):',
      ...Array.from({ length: 14 }, (_, i) => `    y = other_${i}(y)`),
    ];
    const text = `${lines.join('\n')}\n`;
    const defs = [def('crash', 1, 10), def('mentioned', 11, 25)];
    const focus = [
      { start: 1, end: 10, header_end: 1, line: 5, score: 3 },
      { start: 11, end: 25, header_end: 11, score: 0.5 },
    ];
    const sel = selectLines(text, defs, new Map([['step', 1]]), 40, focus);
    for (let l = 1; l <= 10; l++) expect(sel.lines).toContain(l);
    expect(sel.lines.filter((l) => l > 11)).toEqual([]);
    // Without scores every focus counts alike (the old contract): both are shown whole.
    const plain = selectLines(text, defs, new Map([['step', 1]]), 40, focus.map(({ score: _, ...f }) => f));
    expect(plain.lines.length).toBe(25);
  });
});
