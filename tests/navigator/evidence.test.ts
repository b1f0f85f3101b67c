import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { navigate } from '../../src/navigator/index.js';
import { errorMessages, readIssue, sourceLinks, splitIssue, tracebackFrames } from '../../src/navigator/retrieval/evidence/index.js';
import { startingFlightPlan } from '../../src/explorer/index.js';

// A small Python package of our own (tests/fixtures/repos/issues): one rule per test.
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/repos/issues');
// A tight budget, as on a real repository: the fixture is small, and loading most of it would fail the compression gate.
const nav = (task: string) => navigate({ task, repo_root: REPO, budget: { max_files: 2, max_lines: 40 } }, { cacheDir: false });
const lineOf = (file: string, needle: string) => readFileSync(path.join(REPO, file), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;
/** Line numbers shown for `file` in context.md (`N│text` lines of its section). */
function shown(context: string, file: string): Set<number> {
  const out = new Set<number>();
  let cur = '';
  for (const line of context.split('\n')) {
    if (line.startsWith('==> ')) cur = line.slice(4).split(' [')[0]!;
    const m = /^(\d+)│/.exec(line);
    if (m && cur === file) out.add(Number(m[1]));
  }
  return out;
}

describe('reading an issue (read-issue)', () => {
  it('splits prose from fenced, indented and >>> code', () => {
    const segs = splitIssue('Title here\n\n```python\nx = f(1)\n```\nsome prose\n\n    indented = g(2)\n\n>>> h(3)\nmore prose\n');
    // The indented block and the session after it are one code segment (the blank line between stays code).
    expect(segs.map((s) => s.kind)).toEqual(['prose', 'code', 'prose', 'code', 'prose']);
    expect(segs[1]!.text).toBe('x = f(1)\n');
  });

  it('reads Python, pytest, JavaScript and Go frames with the deepest frame at depth 0', () => {
    const py = tracebackFrames('Traceback (most recent call last):\n  File "a/x.py", line 3, in <module>\n  File "/site/pkg/y.py", line 10, in go\n    go()\nValueError: bad\n');
    expect(py).toEqual([
      { path: 'a/x.py', line: 3, depth: 1 },
      { path: '/site/pkg/y.py', line: 10, fn: 'go', depth: 0 },
    ]);
    // Windows paths, and a recursive frame repeated: one frame, at its deepest position.
    const win = tracebackFrames('Traceback (most recent call last):\n  File "C:\\py\\site-packages\\pkg\\m.py", line 5, in rec\n  File "C:\\py\\site-packages\\pkg\\m.py", line 5, in rec\n  File "C:\\py\\site-packages\\pkg\\m.py", line 9, in leaf\nRecursionError: x\n');
    expect(win).toEqual([
      { path: 'C:/py/site-packages/pkg/m.py', line: 5, fn: 'rec', depth: 1 },
      { path: 'C:/py/site-packages/pkg/m.py', line: 9, fn: 'leaf', depth: 0 },
    ]);
    expect(tracebackFrames('src/pkg/mod.py:42: in check\n    raise X\n')).toEqual([{ path: 'src/pkg/mod.py', line: 42, fn: 'check', depth: 0 }]);
    const js = tracebackFrames('TypeError: x\n    at parse (/app/node_modules/ky/source/core.ts:12:5)\n    at main (/app/index.js:3:1)\n');
    expect(js.map((f) => [f.path, f.fn, f.depth])).toEqual([
      ['/app/node_modules/ky/source/core.ts', 'parse', 0],
      ['/app/index.js', 'main', 1],
    ]);
    expect(tracebackFrames('panic: boom\n\ngoroutine 1 [running]:\n\t/go/src/chi/tree.go:120 +0x1\n\t/go/src/chi/mux.go:80 +0x2\n').map((f) => [f.path, f.depth])).toEqual([
      ['/go/src/chi/tree.go', 0],
      ['/go/src/chi/mux.go', 1],
    ]);
  });

  it('reads error messages, imports, aliases, dotted names, called names and backticked literals', () => {
    const ev = readIssue(
      [
        'Quantity.convert_to gives a wrong factor',
        '```python',
        'import numpy as np',
        'from gadget.units import Quantity, UnitSystem as US',
        'q = Quantity(1, "m").convert_to("km", US({}))',
        '```',
        'It fails with `bad-option` and:',
        '```',
        'ValueError: widget count must be a positive integer, got -1',
        '```',
      ].join('\n'),
    );
    expect(ev.imports).toEqual([
      { module: 'numpy', names: [] },
      { module: 'gadget.units', names: ['Quantity', 'UnitSystem'] },
    ]);
    expect(ev.aliases.get('np')).toBe('numpy');
    expect(ev.aliases.get('US')).toBe('gadget.units.UnitSystem');
    expect(ev.dotted).toContainEqual(['Quantity', 'convert_to']);
    expect(ev.names.get('convert_to')).toMatchObject({ attrs: 1 });
    expect(ev.names.get('Quantity')!.calls).toBeGreaterThan(0);
    expect(ev.messages).toEqual(['widget count must be a positive integer, got -1']);
    expect(ev.literals).toEqual(['bad-option']);
  });

  it('takes no names from markdown headings or <details> dumps', () => {
    const ev = readIssue('#### Output of `pkg.show_versions()`\n\nthe `real_name` fails\n<details>\ncommit: `other_name`\n</details>\n');
    expect([...ev.names.keys()]).toEqual(['real_name']);
    expect(ev.dotted).toEqual([]);
    expect(errorMessages('E   AssertionError: values differ at index 3\n')).toEqual(['values differ at index 3']);
  });
});

describe('navigating by evidence', () => {
  it('a traceback whose deepest in-repo frame is the fix: that function is the first definition, its file first, its raise line shown', async () => {
    const task = [
      'start() crashes on a negative count',
      '',
      'Traceback (most recent call last):',
      '  File "/home/me/app.py", line 3, in <module>',
      '    start({"count": -1})',
      '  File "/usr/lib/python3.11/site-packages/gadget/api.py", line 7, in start',
      '    return run_engine(config)',
      '  File "/usr/lib/python3.11/site-packages/gadget/core/engine.py", line 7, in run_engine',
      '    validate_config(config)',
      `  File "/usr/lib/python3.11/site-packages/gadget/core/engine.py", line ${lineOf('gadget/core/engine.py', 'raise ValueError')}, in validate_config`,
      '    raise ValueError(...)',
      'ValueError: boom',
    ].join('\n');
    const o = await nav(task);
    expect(o.exit).toBe('EXIT_PASS');
    const receipt = o.artifacts.context_load_receipt;
    expect(receipt.definitions![0]).toMatchObject({ path: 'gadget/core/engine.py', symbol: 'validate_config', loaded: true, line: lineOf('gadget/core/engine.py', 'raise ValueError') });
    expect(receipt.definitions![0]!.evidence[0]).toMatch(/^frame .*engine\.py:\d+ in validate_config \(deepest\)$/);
    // The caller frames rank below the deepest one.
    const order = receipt.definitions!.map((d) => d.symbol);
    expect(order.indexOf('validate_config')).toBeLessThan(order.indexOf('run_engine'));
    expect(order.indexOf('run_engine')).toBeLessThan(order.indexOf('start'));
    expect(receipt.files_loaded.map((f) => f.path)).toContain('gadget/core/engine.py');
    const lines = shown(o.artifacts.context_md, 'gadget/core/engine.py');
    const def = receipt.definitions![0]!;
    for (let l = def.range[0]; l <= def.range[1]; l++) expect(lines.has(l)).toBe(true);
  });

  it('an error message raised in one place: the raising definition ranks first, the test that expects it does not', async () => {
    const o = await nav('Engine refuses to run\n\nstarting it gives\n\n    ValueError: widget count must be a positive integer, got -3\n\nwhich is odd for a widget.');
    const d = o.artifacts.context_load_receipt.definitions!;
    expect(d[0]).toMatchObject({ path: 'gadget/core/engine.py', symbol: 'validate_config', line: lineOf('gadget/core/engine.py', 'raise ValueError') });
    expect(d[0]!.evidence[0]).toMatch(/^message "widget count must be a positive integer, got -3" at line \d+$/);
    expect(o.artifacts.context_load_receipt.files_loaded.map((f) => f.path)).toContain('gadget/core/engine.py');
    expect(shown(o.artifacts.context_md, 'gadget/core/engine.py').has(lineOf('gadget/core/engine.py', 'raise ValueError'))).toBe(true);
  });

  it('a snippet whose import resolves to a submodule: the module that defines the name, not the one that mentions it most', async () => {
    const o = await nav('convert_to returns the wrong unit\n\n```python\nfrom gadget.units import Quantity\nq = Quantity(2, "m")\nprint(q.convert_to("km", system))\n```\n\nThe result keeps the old unit of the quantity.');
    const d = o.artifacts.context_load_receipt.definitions!;
    expect(d[0]).toMatchObject({ path: 'gadget/units/quantities.py', symbol: 'Quantity.convert_to' });
    // systems.py says "Quantity" ten times, quantities.py three: by the text alone systems.py would rank first.
    const ranked = o.artifacts.navigation_map.tier_path_traversed.filter((e) => e.tier === 'T3').map((e) => e.files_loaded[0]);
    expect(ranked[0]).toBe('gadget/units/quantities.py');
  });

  it('a long issue repeating a common word: the repeats do not outweigh the one name the issue calls', async () => {
    const filler = Array.from({ length: 30 }, (_, i) => `The widget report number ${i} shows every widget and each widget label, widget after widget.`).join('\n');
    const task = `summary drops the last row\n\nCalling summarize_table(rows) on my widget rows loses the last row.\n\n${filler}\n`;
    const once = await nav(`summary drops the last row\n\nCalling summarize_table(rows) on my widget rows loses the last row.\n`);
    const long = await nav(task);
    for (const o of [once, long]) {
      expect(o.artifacts.context_load_receipt.definitions![0]).toMatchObject({ path: 'gadget/report.py', symbol: 'summarize_table' });
      const ranked = o.artifacts.navigation_map.tier_path_traversed.filter((e) => e.tier === 'T3').map((e) => e.files_loaded[0]);
      expect(ranked[0]).toBe('gadget/report.py');
    }
    // The faulty loop is shown.
    expect(shown(long.artifacts.context_md, 'gadget/report.py').has(lineOf('gadget/report.py', 'rows[:-1]'))).toBe(true);
  });

  it('a backticked literal the code spells exactly (a label format) points at the definition holding it', async () => {
    const o = await nav('labels come out as `widget-%d` instead of the name');
    expect(o.artifacts.context_load_receipt.definitions![0]).toMatchObject({ path: 'gadget/widgets.py', symbol: 'widget_label' });
    expect(o.artifacts.context_load_receipt.definitions![0]!.evidence[0]).toMatch(/^literal "widget-%d" at line \d+$/);
  });
});

describe('links to lines of the source', () => {
  it('reads /blob/<ref>/<path>#L<n> links and points at the definition holding the line', async () => {
    expect(sourceLinks('see https://github.com/o/r/blob/main/gadget/report.py#L7 and https://github.com/o/r/blob/abc123/gadget/api.py#L5-L7')).toEqual([
      { path: 'gadget/report.py', line: 7 },
      { path: 'gadget/api.py', line: 5, end: 7 },
    ]);
    const o = await nav('totals are wrong\n\nThe loop in https://github.com/someone/gadget/blob/main/gadget/report.py#L7 skips a row.');
    expect(o.artifacts.context_load_receipt.definitions![0]).toMatchObject({ path: 'gadget/report.py', symbol: 'summarize_table', line: 7 });
    expect(shown(o.artifacts.context_md, 'gadget/report.py').has(7)).toBe(true);
  });
});

describe('the explorer starts from the same evidence', () => {
  it("the starting plan boosts the evidenced definitions above the magic words and names them in its summary", async () => {
    const start = await startingFlightPlan(REPO, 'Engine refuses to run\n\n    ValueError: widget count must be a positive integer, got -3\n', 4000, { cacheDir: false });
    expect(start.definitions[0]).toMatchObject({ path: 'gadget/core/engine.py', symbol: 'validate_config' });
    const symbols = start.plan.focus!.symbols;
    expect(symbols[0]!.name).toBe('validate_config');
    expect(symbols[0]!.weight).toBeGreaterThan(10);
    expect(start.summary).toMatch(/evidence points at gadget\/core\/engine\.py:\d+-\d+ validate_config \(message "/);
  });
});
