import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { navigate } from '../../src/navigator/index.js';
import { scratch } from '../repomap/fixture.js';

const dirs = scratch();
afterAll(() => dirs.cleanup());

/** A package with an expression class and two printers that dispatch on class names, plus a module that mentions the class a lot. */
function repo(): string {
  const root = dirs.tmp('nk-dispatch-');
  const files: Record<string, string> = {
    'pkg/__init__.py': 'from pkg.core import Subs, Add\n',
    'pkg/core.py': ['class Add:', '    def __init__(self, *args):', '        self.args = args', '', 'class Subs:', '    def __init__(self, expr, old, new):', '        self.expr, self.old, self.new = expr, old, new', ''].join('\n'),
    'pkg/printing/__init__.py': '',
    'pkg/printing/latex.py': [
      'class LatexPrinter:',
      '    """Prints expressions as LaTeX."""',
      '',
      '    def _print_Add(self, expr):',
      '        return " + ".join(self.doprint(a) for a in expr.args)',
      '',
      '    def _print_Subs(self, expr):',
      '        body = self.doprint(expr.expr)',
      '        return r"\\left. %s \\right|_{%s=%s}" % (body, expr.old, expr.new)',
      '',
    ].join('\n'),
    'pkg/printing/text.py': ['class TextPrinter:', '    """Prints expressions as text."""', '', '    def _print_Subs(self, expr):', '        return "Subs(%s, %s, %s)" % (expr.expr, expr.old, expr.new)', ''].join('\n'),
    'pkg/simplify.py': ['from pkg.core import Subs', '', 'def expand_subs(e):', '    """Expands every Subs: a Subs of a Subs is one Subs."""', '    return Subs(e.expr, e.old, e.new) if isinstance(e, Subs) else e', ''].join('\n'),
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

describe('dispatch by name (resolve-evidence)', () => {
  it("credits the methods a printer runs for an evidenced class (`_print_Subs`), so the printer the prose names is loaded", async () => {
    const task = ['Incorrect parenthesizing of Subs in LaTeX', '```python', '>>> from pkg.core import Subs', '>>> latex(3*Subs(-x + y, x, 1))', '```', 'LaTeX printing of this gives no parentheses.'].join('\n');
    const o = await navigate({ task, repo_root: repo(), budget: { max_files: 2, max_lines: 40 } }, { cacheDir: false });
    const receipt = o.artifacts.context_load_receipt;
    const latex = receipt.definitions!.find((d) => d.symbol === 'LatexPrinter._print_Subs');
    expect(latex?.evidence).toContain('dispatched for Subs');
    // Both printers get the class's credit; the prose ("LaTeX printing") picks the LaTeX one.
    expect(receipt.definitions!.find((d) => d.symbol === 'TextPrinter._print_Subs')?.evidence).toContain('dispatched for Subs');
    expect(receipt.files_loaded.map((f) => f.path)).toContain('pkg/printing/latex.py');
    // The method for another class (`_print_Add`) gets nothing from `Subs`.
    expect(receipt.definitions!.find((d) => d.symbol === 'LatexPrinter._print_Add')?.evidence ?? []).not.toContain('dispatched for Subs');
  });
});
