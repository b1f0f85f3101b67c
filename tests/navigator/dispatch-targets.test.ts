import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { errorMessages, readIssue, resolveEvidence, type ResolvedEvidence } from '../../src/navigator/retrieval/evidence/index.js';
import { LEX_FIELDS_EXTRAS } from '../../src/navigator/retrieval/lex-fields.js';
import { openTextIndex } from '../../src/navigator/index.js';
import { indexRepo } from '../../src/repomap/index.js';
import { scratch } from '../repomap/fixture.js';

const dirs = scratch();
afterAll(() => dirs.cleanup());

/**
 * A small package where the code an issue names is not where the code runs: a public alias of a class, a class
 * whose constructor is its base's, a property implemented by a hook (`is_zero` → `_eval_is_zero`), an abstract
 * method overridden in a subclass.
 */
function repo(): string {
  const root = dirs.tmp('nk-targets-');
  const files: Record<string, string> = {
    'calc/__init__.py': ['from calc.arrays import DenseArray', 'from calc.shapes import Shape, Square', '', 'Array = DenseArray', ''].join('\n'),
    'calc/base.py': [
      'class Base:',
      '    """The root of every value."""',
      '',
      '    def __new__(cls, *args):',
      '        if not args:',
      '            raise ValueError("a value needs arguments")',
      '        obj = object.__new__(cls)',
      '        obj.args = args',
      '        return obj',
      '',
      '    @property',
      '    def is_zero(self):',
      '        return self._eval_is_zero()',
      '',
      '    def _eval_is_zero(self):',
      '        return None',
      '',
    ].join('\n'),
    'calc/arrays.py': ['from calc.base import Base', '', '', 'class DenseArray(Base):', '    """A dense array of values."""', '', '    def total(self):', '        return sum(self.args)', ''].join('\n'),
    'calc/sums.py': [
      'from calc.base import Base',
      '',
      '',
      'class Sum(Base):',
      '    """A sum of terms."""',
      '',
      '    def _eval_is_zero(self):',
      '        return all(a == 0 for a in self.args)',
      '',
      '    def describe(self):',
      '        return "sum of %d terms" % len(self.args)',
      '',
    ].join('\n'),
    'calc/shapes.py': [
      'class Shape:',
      '    def area(self):',
      '        raise NotImplementedError',
      '',
      '',
      'class Square(Shape):',
      '    def __init__(self, side):',
      '        self.side = side',
      '',
      '    def area(self):',
      '        return self.side + self.side',
      '',
      '',
      'class Plot:',
      '    def area(self):',
      '        return 0',
      '',
    ].join('\n'),
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

async function resolve(task: string): Promise<ResolvedEvidence> {
  const index = await indexRepo(repo(), { extras: LEX_FIELDS_EXTRAS, cacheDir: false });
  return resolveEvidence(readIssue(task), index, openTextIndex(index, false));
}
const def = (r: ResolvedEvidence, symbol: string) => r.definitions.find((d) => d.symbol === symbol);

describe('where named code runs (resolve-evidence)', () => {
  it('an alias is the definition it names, and a called class credits its constructor, inherited from its base', async () => {
    const r = await resolve(['Empty arrays crash', '```python', '>>> from calc import Array', '>>> Array()', '```'].join('\n'));
    expect(def(r, 'DenseArray')?.evidence).toContain('alias Array = DenseArray');
    const ctor = def(r, 'Base.__new__');
    expect(ctor?.evidence).toContain('constructs DenseArray');
    expect(ctor?.path).toBe('calc/base.py');
    // A member the issue never reaches gets nothing.
    expect(def(r, 'DenseArray.total')).toBeUndefined();
  });

  it('a class only named, not called, lends nothing to its constructor', async () => {
    const r = await resolve('The `DenseArray` docs are unclear about totals');
    expect(def(r, 'DenseArray')).toBeDefined();
    expect(def(r, 'Base.__new__')).toBeUndefined();
  });

  it('an attribute the issue uses credits the member of an evidenced class that implements it (`_eval_is_zero` for `.is_zero`)', async () => {
    const r = await resolve(['is_zero is wrong for a Sum', '```python', '>>> from calc.sums import Sum', '>>> Sum(1, -1).is_zero', 'False', '```'].join('\n'));
    const hook = def(r, 'Sum._eval_is_zero');
    expect(hook?.evidence).toContain('implements .is_zero of Sum');
    // The sibling that implements nothing the issue uses stays below it.
    expect(def(r, 'Sum.describe')).toBeUndefined();
  });

  it("an evidenced method credits its subclasses' overrides, not a same-named method of an unrelated class", async () => {
    const r = await resolve('`Shape.area` gives the perimeter for squares');
    expect(def(r, 'Square.area')?.evidence).toContain('overrides Shape.area');
    expect(def(r, 'Plot.area')?.evidence ?? []).not.toContain('overrides Shape.area');
  });
});

describe('error messages quoted inline (read-issue)', () => {
  it('reads `SomeError: message` in backticks up to the closing backtick', () => {
    expect(errorMessages('Calling `Max()` raises `ValueError: The Max/Min functions must have arguments.` right now.')).toEqual(['The Max/Min functions must have arguments.']);
    // Backticked code that is no error stays out.
    expect(errorMessages('Use `x: int = 3` instead.')).toEqual([]);
  });

  it('a string in backticked code is a value the code spells (a literal), not a name', () => {
    const ev = readIssue("With `render_mode='compact'` the output is wrong, with `render_mode = \"verbose\"` it is right.");
    expect(ev.literals).toEqual(expect.arrayContaining(['compact', 'verbose']));
    expect(ev.names.has('render_mode')).toBe(true);
    expect(ev.names.has('compact')).toBe(false);
    expect(ev.names.has('verbose')).toBe(false);
    // A dotted string names a module: read as a dotted name, not as a literal other files happen to quote.
    const mod = readIssue("In `conf.py` I have `extensions = ['pkg.ext.tool']` and it fails.");
    expect(mod.literals).not.toContain('pkg.ext.tool');
    expect(mod.dotted).toContainEqual(['pkg', 'ext', 'tool']);
  });
});
