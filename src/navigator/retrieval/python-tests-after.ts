// In a Python repository, a pick gives its Python sources before its Python tests, examples and documentation
// scripts (`tests/test_x.py`, `conftest.py`, `examples/demo.py`, `docs/conf.py`): they share an issue's words with
// the code they exercise, but the fix goes in the source, and a test ranked third pushed a second source file out of
// the first five. A file the evidence points at keeps its place, and nothing moves when the task speaks of
// tests (then a test file may be what it is about). Only places and line shares change, never which files are picked.
// Own sets (Python projects outside the eval): acc@5 150 commits 70.0 → 71.3, written reports 93.3 → 100 (docs/navigator.md).
// Switch: NAVKERNEL_ABLATE=python-tests-after.
import type { FileClass } from '../../repomap/file-class.js';
import { ablated } from './ablation.js';
import { isPythonRepository } from './python-first.js';
import type { RepositoryLanguage } from './repository-language.js';
import type { RankedFile } from './ranking.js';
import { scoresBelow } from './scores-below.js';

/** The classes of Python files that go after the pick's sources. */
const AFTER: ReadonlySet<FileClass> = new Set(['test', 'example', 'doc']);

/** A task that speaks of tests ("the test fails", "add tests", "testing with …"); `pytest` alone does not. */
const SPEAKS_OF_TESTS = /\btest(?:s|ing|ed)?\b/i;

/**
 * The pick with its Python tests, examples and documentation scripts (no evidence on them) after its other files, in
 * their own order: each gets a score just below the lowest of the others' (the plan orders and shares lines by
 * score). The moved ones are copies; the pick's files are the same.
 */
export function pythonTestsAfter(top: RankedFile[], language: RepositoryLanguage, task: string): RankedFile[] {
  if (ablated('python-tests-after') || !isPythonRepository(language) || SPEAKS_OF_TESTS.test(task)) return top;
  const after = (f: RankedFile) => f.path.endsWith('.py') && AFTER.has(f.class) && f.evidence <= 0;
  const moved = top.filter(after);
  const kept = top.filter((f) => !after(f));
  if (!moved.length || !kept.length || top.indexOf(moved[0]!) >= kept.length) return top;
  return [...kept, ...moved.map(scoresBelow(kept))];
}
