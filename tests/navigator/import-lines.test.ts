import { describe, expect, it } from 'vitest';
import { importStatements } from '../../src/navigator/retrieval/import-lines.js';
import { selectLines } from '../../src/navigator/retrieval/windows.js';
import type { Definition } from '../../src/repomap/index.js';

// The imports a shown window uses (issue 21): a fix that calls something new adds to them.

const names = (st: { names: Map<string, number> }) => Object.fromEntries(st.names);

describe('import statements', () => {
  it('reads Python imports: aliases, parenthesised lists over lines, dotted modules, a backslash continuation', () => {
    const src = [
      '"""Module doc."""',
      'import os.path',
      'import numpy as np',
      'from .compat import (urljoin,',
      '    urlparse as parse_url)',
      'from pkg.mod import a, \\',
      '    b  # trailing comment',
      '',
      'def f():',
      '    import inner',
    ];
    const sts = importStatements('python', src);
    expect(sts.map((s) => [s.start, s.end])).toEqual([[2, 2], [3, 3], [4, 5], [6, 7]]);
    expect(sts.map(names)).toEqual([{ os: 2 }, { np: 3 }, { urljoin: 4, parse_url: 5 }, { a: 6, b: 7 }]);
  });

  it('reads TypeScript imports (named over lines, default, namespace, type-only, side effect) and Go import blocks', () => {
    const ts = ["import fs from 'node:fs';", 'import {', '  alpha,', '  beta as gamma,', "} from './x.js';", "import * as path from 'node:path';", "import type { T } from './t.js';", "import './side.js';", 'const x = 1;'];
    const sts = importStatements('typescript', ts);
    expect(sts.map((s) => [s.start, s.end])).toEqual([[1, 1], [2, 5], [6, 6], [7, 7], [8, 8]]);
    expect(sts.slice(0, 4).map(names)).toEqual([{ fs: 1 }, { alpha: 3, gamma: 4 }, { path: 6 }, { T: 7 }]);
    const go = ['package chi', '', 'import (', '\t"net/http"', '\tmw "github.com/x/middleware"', ')', 'import "strings"'];
    const gs = importStatements('go', go);
    expect(gs.map((s) => [s.start, s.end])).toEqual([[3, 6], [7, 7]]);
    expect(gs.map(names)).toEqual([{ http: 4, mw: 5 }, { strings: 7 }]);
  });
});

describe('the imports the shown code uses', () => {
  // 4 import lines, then a 40-line function whose matched window calls `urljoin` (imported on line 3) and not `unused`.
  const lines = ['import os', 'from .util import unused', 'from .compat import (cookielib,', '    urljoin, urlparse)', ''];
  lines.push('def fetch(url):');
  for (let l = 7; l <= 45; l++) lines.push(l === 30 ? '    target = urljoin(base_widget, url)' : `    step_${l} = ${l}`);
  const text = `${lines.join('\n')}\n`;
  const defs: Definition[] = [{ name: 'fetch', kind: 'function', start: 6, end: 45, header_end: 6, doc: null, parent: null }];
  const weights = new Map([['widget', 2]]);

  it('shows the statement and the line binding a name the window uses, from lines kept back for them', () => {
    const sel = selectLines(text, defs, weights, 30, [], 'python');
    expect(sel.lines).toContain(30);
    expect(sel.lines).toContain(3);
    expect(sel.lines).toContain(4);
    expect(sel.lines).not.toContain(1);
    expect(sel.lines).not.toContain(2);
    expect(sel.lines.length).toBeLessThanOrEqual(30);
  });

  it('shows no import without a language, or when the allowance is small', () => {
    expect(selectLines(text, defs, weights, 30).lines.filter((l) => l <= 4)).toEqual([]);
    expect(selectLines(text, defs, weights, 12, [], 'python').lines.filter((l) => l <= 4)).toEqual([]);
  });
});
