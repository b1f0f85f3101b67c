import { describe, expect, it } from 'vitest';
import { readIssue } from '../../src/navigator/retrieval/evidence/index.js';
import { keywordArguments } from '../../src/navigator/retrieval/evidence/keyword-arguments.js';
import { repoViewOf } from '../../src/navigator/retrieval/evidence/resolvers/index.js';
import { KEYWORD_FILES_MAX, resolveKeywords } from '../../src/navigator/retrieval/evidence/resolvers/keywords.js';
import { LEX_FIELDS_EXTRAS } from '../../src/navigator/retrieval/lex-fields.js';
import { openTextIndex } from '../../src/navigator/index.js';
import { indexRepo } from '../../src/repomap/index.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A plotting library whose figure keeps its keyword options and hands them on by name through a registry to the
// class that takes them: the issue's snippet passes `gutter_width=...` to `Figure.update`, and only `Panel.__init__` declares a parameter
// of that name. Many modules use `gutter_width` as an attribute or a local, so its words alone do not single out the
// file: the signature does.
const uses = (i: number) =>
  `"""Layout step ${i}: the gutter between drawn panels; a negative gutter makes the panels overlap."""\n\n\ndef step${i}(panel, data):\n    """Draw step ${i}: raise an error when the panels overlap."""\n    gutter_width = panel.gutter_width\n    if gutter_width < 0:\n        raise ValueError("panels overlap: negative gutter")\n    width = len(data) + gutter_width\n    return width * ${i}\n\n\ndef draw_gutter${i}(panel):\n    return panel.gutter_width + ${i}\n`;
const REPO = {
  'pyproject.toml': '[project]\nname = "quilt"\n',
  'quilt/__init__.py': '"""Quilt draws data as panels."""\nfrom quilt.figure import Figure\n',
  'quilt/registry.py': '"""Kinds of drawn things by name."""\nKINDS = {}\n\n\ndef make(kind, options):\n    return KINDS[kind](**options)\n',
  'quilt/figure.py': '"""A figure holds the panels drawn for the data."""\nfrom quilt import registry\n\n\nclass Figure:\n    def __init__(self):\n        self.options = {}\n\n    def update(self, **kwargs):\n        """Options for the next drawing (checked when it is drawn)."""\n        self.options.update(kwargs)\n\n    def show(self, data):\n        return registry.make("panel", self.options).place(data)\n',
  'quilt/panel.py': [
    '"""A panel of a figure."""',
    '',
    '',
    'class Panel:',
    '    def __init__(self, title=None, gutter_width=0, border=1):',
    '        self.title = title',
    '        self.gutter = gutter_width',
    '        self.border = border',
    '',
    ...Array.from({ length: 30 }, (_, i) => `    def corner${i}(self, x):\n        """Corner ${i} of the panel."""\n        return x + self.border * ${i}\n`),
    '    def place(self, x):',
    '        return x + self.gutter',
    '',
  ].join('\n'),
  ...filler('quilt/layout', 'py', 10, uses),
  ...filler('quilt/styles', 'py', 14, (i) => `"""Style ${i}."""\n\n\nclass Style${i}:\n    def __init__(self, title=None):\n        self.title = title\n\n    def update(self, **kwargs):\n        """Update style ${i}."""\n        self.__dict__.update(kwargs)\n`),
};

const ISSUE = [
  'A negative gutter is accepted silently',
  '',
  'Drawing with a negative gutter gives overlapping panels instead of an error:',
  '',
  '```python',
  'import quilt',
  'fig = quilt.Figure()',
  'fig.update(title="overlap", gutter_width=-2)',
  'fig.show([1, 2, 3])',
  '```',
  '',
  'The panels overlap and no error is raised.',
].join('\n');

describe('keyword arguments of a snippet matched to the parameters code declares', () => {
  it('reads the keyword arguments of calls in code, one line or several, and not assignments or comparisons', () => {
    const kw = keywordArguments(['quilt.draw(data, gutter_width=-2, title="a=b")', 'x = 3', 'if a == b: pass', 'plot(', '    data,', '    line_style="--",', ')', 'y = f(a) == g(b=1)'].join('\n'));
    expect(kw).toEqual(['gutter_width', 'title', 'line_style']);
  });

  it('a keyword handed on through **kwargs and a registry: the class declaring the parameter is among the first five files', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, ISSUE);
    expect(files.slice(0, 5)).toContain('quilt/panel.py');
  });

  it('credits the signature declaring a rare keyword, and nothing for one that many files declare (`title`)', async () => {
    const root = writeRepo(REPO);
    const index = await indexRepo(root, { extras: LEX_FIELDS_EXTRAS, cacheDir: false });
    const text = openTextIndex(index, false);
    const credits = resolveKeywords(repoViewOf(index, text, (p) => text.classOf(p)), readIssue(ISSUE));
    expect(credits.map((c) => (c.to === 'definition' ? [c.ref.file.path, c.ref.file.outline.defs[c.ref.i]!.name, c.why] : []))).toEqual([['quilt/panel.py', '__init__', 'keyword gutter_width=']]);
    expect(KEYWORD_FILES_MAX).toBeLessThan(14);
  });
});
