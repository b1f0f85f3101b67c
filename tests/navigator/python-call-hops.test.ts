import { describe, expect, it } from 'vitest';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A template engine: the issue names `Context.snapshot()`, whose body is one line; the fault is in the debug helper of
// another module that calls it and changes what it returns (the frame's overrides go into the live variables). The
// report's words (snapshot, frame, traceback, live, template, variables) fill six other modules far more than the
// helper's three lines, which share only `overrides` and `locals` with the report.
const REPO = {
  'setup.py': 'from setuptools import setup\n\nsetup(name="tmpl")\n',
  'tmpl/__init__.py': 'from tmpl.environment import Environment\n\n__all__ = ["Environment"]\n',
  'tmpl/context.py':
    'class Context:\n    """The variables a template sees while it renders."""\n\n    def __init__(self, parent, name):\n        self.parent = dict(parent)\n        self.name = name\n\n    def snapshot(self):\n        """Every variable of the context."""\n        return self.parent\n',
  'tmpl/debug.py': `${Array.from({ length: 12 }, (_, i) => `def source_line${i}(path, lineno):\n    with open(path) as fh:\n        text = fh.read().splitlines()\n    return text[lineno - 1].strip() + " ${i}"\n\n\n`).join('')}def fake_locals(ctx, frame):\n    data = ctx.snapshot()\n    data.update(frame.overrides)\n    return data\n`,
  'tmpl/runtime.py':
    '"""Runtime of a template: the live variables of each frame."""\n\n\ndef frame_snapshot(frame):\n    """A snapshot of the live template variables of a frame, for the traceback."""\n    return {name: frame.variables[name] for name in frame.variables}\n',
  'tmpl/frames.py':
    '"""Frames of a render: a template frame holds live variables."""\n\n\nclass TemplateFrame:\n    """A frame of a template render; the traceback shows its variables."""\n\n    def __init__(self, template, variables):\n        self.template = template\n        self.variables = variables\n',
  'tmpl/loader.py':
    '"""Loads templates by name; an error names the template in its traceback."""\n\n\ndef load_template(name, search_path):\n    """The template called name, found on the search path (an error gives a traceback)."""\n    return search_path.get(name)\n',
  'tmpl/environment.py':
    '"""The environment: global template variables and the next render\'s settings."""\n\n\nclass Environment:\n    """Global variables of every template; live settings of the render."""\n\n    def __init__(self, variables=None):\n        self.variables = variables or {}\n',
  'tmpl/errors.py':
    '"""Errors of a template render, with the failing template and its traceback."""\n\n\nclass TemplateError(Exception):\n    """An error in a template: the traceback points at the failing frame."""\n\n    def __init__(self, message, template=None):\n        super().__init__(message)\n        self.template = template\n',
  'tmpl/tracebacks.py':
    '"""Tracebacks of templates: each frame of a failing render, with its variables."""\n\n\ndef render_traceback(error, frames):\n    """The traceback of a failing template render: frame by frame, the live variables."""\n    return [(frame.template, frame.variables) for frame in frames]\n',
  ...filler('tmpl/filters', 'py', 30, (i) => `def filter${i}(value):\n    """Formats a value for output ${i}."""\n    return str(value) + "${i}"\n`),
};

const ISSUE = `Frame overrides leak into the live template variables

Calling \`Context.snapshot()\` while a traceback is rewritten changes the template's variables: after an error, the
overrides of the failing frame show up in the live context of the next render.

Expected: the traceback's frame locals are a copy; the template variables stay as they were.
`;

// The same engine, a report that names the method and none of the words of its one caller: a method called from one
// place is followed to that place all the same.
const ISSUE_LONE = `Context.snapshot() gives the wrong template variables after an error

After a failing render, \`Context.snapshot()\` no longer returns what the template saw: the live variables changed.
`;

describe('Python functions one call away in another file (the python-call-hops rule)', () => {
  it('a caller of the named method whose body speaks of the issue is given before the files sharing its words', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, ISSUE);
    expect(JSON.stringify(outcome.artifacts)).toContain('calls Context.snapshot');
    // Without the rule (NAVKERNEL_ABLATE=python-call-hops) the helper is not picked at all: the modules repeating the
    // report's words fill the pick.
    expect(files.indexOf('tmpl/debug.py')).toBeGreaterThanOrEqual(0);
    expect(files.indexOf('tmpl/debug.py')).toBeLessThan(3);
    expect(files.indexOf('tmpl/context.py')).toBeLessThan(3);
  });

  it('the one caller of the named method is followed even when its lines share no word of the report', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, ISSUE_LONE);
    // Without the rule the helper gets no evidence (it shares no rarer word with the report).
    expect(JSON.stringify(outcome.artifacts.context_load_receipt.definitions)).toContain('calls Context.snapshot');
    expect(files).toContain('tmpl/debug.py');
  });
});
