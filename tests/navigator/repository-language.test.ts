import { describe, expect, it } from 'vitest';
import { isMostly, repositoryLanguage } from '../../src/navigator/retrieval/repository-language.js';

const files = (spec: Record<string, number>) =>
  Object.entries(spec).flatMap(([pattern, n]) => Array.from({ length: n }, (_, i) => ({ path: pattern.replace('*', `f${i}`) })));

describe('the repository language (one count for c-data-files and python-first)', () => {
  it('a Python package with a vendored C library in a folder of its own is Python: its tests count', () => {
    // 40 Python modules, 50 C files of a bundled library, 30 Python test modules.
    const repo = files({ 'pkg/*.py': 40, 'cextern/wcslib/C/*.c': 50, 'pkg/tests/test_*.py': 30 });
    expect(repositoryLanguage(repo)).toEqual({ family: 'python', share: 70 / 120 });
    expect(isMostly(repositoryLanguage(repo), 'python')).toBe(true);
    expect(isMostly(repositoryLanguage(repo), 'c')).toBe(false);
  });

  it('shell, documentation, examples and vendored code do not vote; the main family needs more than half for isMostly', () => {
    const repo = files({ 'src/*.c': 30, 'src/*.h': 10, 'scripts/*.sh': 80, 'docs/*.py': 50, 'examples/*.py': 50, 'vendor/lib/*.py': 50, 'bindings/*.py': 35 });
    expect(repositoryLanguage(repo).family).toBe('c');
    expect(isMostly(repositoryLanguage(repo), 'c')).toBe(true);
    const mixed = files({ 'src/*.c': 30, 'py/*.py': 25, 'web/*.ts': 20 });
    expect(repositoryLanguage(mixed).family).toBe('c');
    expect(isMostly(repositoryLanguage(mixed), 'c')).toBe(false);
  });

  it('no code: no family', () => {
    expect(repositoryLanguage(files({ 'README.md': 1, 'docs/*.md': 3 }))).toEqual({ family: undefined, share: 0 });
  });
});
