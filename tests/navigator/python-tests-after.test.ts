import { describe, expect, it } from 'vitest';
import type { IndexedFile } from '../../src/repomap/repo-index.js';
import type { FileClass } from '../../src/repomap/file-class.js';
import { pythonTestsAfter } from '../../src/navigator/retrieval/python-tests-after.js';
import { repositoryLanguage } from '../../src/navigator/retrieval/repository-language.js';
import type { RankedFile } from '../../src/navigator/retrieval/ranking.js';

// A Python templating library's pick for an issue about trimming whitespace after block tags: its test module spells
// the issue's words (trim, blocks, whitespace) more often than the lexer the fix goes in, and ranks second, pushing
// the lexer to sixth place. Fails with NAVKERNEL_ABLATE=python-tests-after (the order is then the ranking's; the switch is read at start).
const ranked = (path: string, score: number, cls: FileClass = 'source', evidence = 0): RankedFile =>
  ({ path, score, text: score, definition: 0, graph: 0, evidence, class: cls, words: ['trim_blocks'] }) as RankedFile;

const FILES = ['setup.py', 'tmpl/__init__.py', 'tmpl/environment.py', 'tmpl/lexer.py', 'tmpl/compiler.py', 'tmpl/nodes.py', 'tmpl/utils.py', 'tmpl/runtime.py', 'tests/test_lexer.py', 'tests/conftest.py', 'examples/basic.py'].map(
  (path) => ({ path, language: 'python' }) as IndexedFile,
);

const PICK = [
  ranked('tmpl/environment.py', 9),
  ranked('tests/test_lexer.py', 8, 'test'),
  ranked('tmpl/compiler.py', 7),
  ranked('examples/basic.py', 6.5, 'example'),
  ranked('tmpl/nodes.py', 6),
  ranked('tmpl/lexer.py', 5),
  ranked('tests/conftest.py', 4, 'test'),
  ranked('tmpl/utils.py', 3),
];

const LANGUAGE = repositoryLanguage(FILES);

const ISSUE = 'trim_blocks removes whitespace after a block when lstrip_blocks is also set';

/** The paths of a pick in the order the plan gives them (by score, best first). */
const order = (pick: RankedFile[]) => [...pick].sort((a, b) => b.score - a.score).map((f) => f.path);

describe('a Python pick gives its sources before its tests and examples (the python-tests-after rule)', () => {
  it('the test module and the example go after every source; the lexer enters the first five', () => {
    const out = order(pythonTestsAfter(PICK, LANGUAGE, ISSUE));
    expect(out).toEqual(['tmpl/environment.py', 'tmpl/compiler.py', 'tmpl/nodes.py', 'tmpl/lexer.py', 'tmpl/utils.py', 'tests/test_lexer.py', 'examples/basic.py', 'tests/conftest.py']);
    expect(out.slice(0, 5)).toContain('tmpl/lexer.py');
  });

  it('keeps a test module the issue’s evidence points at in its place', () => {
    const pick = PICK.map((f) => (f.path === 'tests/test_lexer.py' ? { ...f, evidence: 1 } : f));
    expect(order(pythonTestsAfter(pick, LANGUAGE, ISSUE))[1]).toBe('tests/test_lexer.py');
  });

  it('keeps the order when the task speaks of tests, or in a repository of another language', () => {
    expect(order(pythonTestsAfter(PICK, LANGUAGE, `${ISSUE}; the tests of the lexer do not catch it`))).toEqual(order(PICK));
    const ts = [...FILES, ...Array.from({ length: 20 }, (_, i) => ({ path: `web/part${i}.ts`, language: 'typescript' }) as IndexedFile)];
    expect(order(pythonTestsAfter(PICK, repositoryLanguage(ts), ISSUE))).toEqual(order(PICK));
  });

});
