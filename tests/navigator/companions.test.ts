// Companions (src/navigator/retrieval/companions.ts): files a fix needs beside the best-ranked one that share too few
// of the task's words to rank near it. Each class is a small repository written here, not taken from an eval.
import { describe, expect, it } from 'vitest';
import { COMPANION_PLACE, promote } from '../../src/navigator/retrieval/companions.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';


/** Report renderers: a base class and three formats overriding `visit_table`, and modules that talk about tables a lot. */
function renderers(extraDefiners = 0): Record<string, string> {
  const method = (fmt: string, body: string) => `    def visit_table(self, node):\n        ${body}\n\n    def depart_table(self, node):\n        self.out.append('</${fmt}>')\n`;
  // Many other node kinds: the renderers are long files in which the words are rare.
  const others = (fmt: string) => Array.from({ length: 40 }, (_, i) => `    def visit_kind${i}(self, node):\n        self.out.append('${fmt}-kind${i}')\n        self.out.extend(node.children)\n`).join('\n');
  const files: Record<string, string> = {
    'report/render/base.py': 'class Renderer:\n    """Turns a document tree into output."""\n\n    def __init__(self):\n        self.out = []\n\n    def visit_table(self, node):\n        raise NotImplementedError\n\n    def visit_para(self, node):\n        raise NotImplementedError\n',
    'report/render/html.py': 'from .base import Renderer\n\n\nclass HtmlRenderer(Renderer):\n    """HTML output."""\n\n' + method('table', "self.out.append('<table>')\n        for row in node.rows:\n            self.out.append('<tr>' + ''.join('<td>%s</td>' % c for c in row) + '</tr>')") + '\n    def visit_para(self, node):\n        self.out.append(\'<p>\' + node.text + \'</p>\')\n',
    'report/render/latex.py': 'from .base import Renderer\n\n\nclass LatexRenderer(Renderer):\n    """LaTeX output."""\n\n' + method('tabular', "self.out.append('\\\\begin{tabular}')\n        for row in node.rows:\n            self.out.append(' & '.join(row) + ' \\\\\\\\')") + '\n    def visit_para(self, node):\n        self.out.append(node.text)\n\n' + others('latex'),
    'report/render/plain.py': 'from .base import Renderer\n\n\nclass PlainRenderer(Renderer):\n    """Plain text output."""\n\n' + method('plain', "for row in node.rows:\n            self.out.append(' | '.join(row))") + '\n    def visit_para(self, node):\n        self.out.append(node.text)\n\n' + others('plain'),
  };
  // Modules that share the everyday words (caption, table, html, output) far more than the LaTeX renderer does.
  Object.assign(
    files,
    filler('report/tables', 'py', 10, (i) => `"""Table helpers ${i}: caption, html table output, rows."""\n\n\ndef table_caption_${i}(table, caption):\n    """Set the caption of an html table; the caption shows above the table rows in the output."""\n    table.caption = caption\n    return table\n\n\ndef caption_html_${i}(renderer, node, caption):\n    renderer.visit_table(node)  # the renderer writes the rows\n    return '<caption>' + caption + '</caption>'  # html caption output of a table\n`),
  );
  for (let i = 0; i < extraDefiners; i++) files[`report/more/fmt${i}.py`] = `class Fmt${i}:\n    def visit_table(self, node):\n        return None\n\n` + others(`fmt${i}`);
  return files;
}

const TASK = 'HTML output drops the table caption\n\nWhen a table has a caption, visit_table in the HTML renderer writes the rows but leaves the caption out. The caption is lost from the output.';

describe('override siblings: an issue names a method the best file defines and a few others override', () => {
  it('brings a sibling that overrides the named method into the first five files', async () => {
    const root = writeRepo(renderers());
    const { files, outcome } = await loadedFiles(root, TASK);
    expect(files[0]).toBe('report/render/html.py');
    const first = files.slice(0, COMPANION_PLACE);
    expect(first.some((p) => p === 'report/render/latex.py' || p === 'report/render/plain.py' || p === 'report/render/base.py')).toBe(true);
    // The plan says why the sibling is there.
    expect(JSON.stringify(outcome.artifacts.navigation_map)).toContain('overrides visit_table of report/render/html.py');
  });

  it('leaves a method that many files define (a common protocol) alone', async () => {
    const root = writeRepo(renderers(12));
    const { outcome } = await loadedFiles(root, TASK);
    expect(JSON.stringify(outcome.artifacts.navigation_map)).not.toContain('overrides visit_table');
  });
});

describe('promote', () => {
  it('moves the file to the last of the first places with the score there, the rest one down, keeping every file once and the list in score order', () => {
    const list = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((path, i) => ({ path, score: 10 - i }));
    const out = promote(list, 6, 'why');
    expect(out.map((f) => f.path)).toEqual(['a', 'b', 'c', 'd', 'g', 'e', 'f']);
    expect(out.map((f) => f.score)).toEqual([10, 9, 8, 7, 6, 6, 5]);
    expect(out[4]!.companion).toBe('why');
    expect(list[6]).toEqual({ path: 'g', score: 4 });
  });
});
