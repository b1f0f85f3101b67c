import { describe, expect, it } from 'vitest';
import { namedScripts } from '../../src/navigator/retrieval/file-kind.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A Python library with its shell helpers: the scripts are another family than the code (ranked below it) unless
// the issue names one of them in prose ("the install script", "the script bootstrap").
const REPO = {
  'pyproject.toml': '[project]\nname = "spindle"\n',
  'spindle/__init__.py': '"""Spindle: winds thread on a prefix of spools."""\n',
  'spindle/prefix.py':
    '"""Where spindle keeps its spools: the install prefix and the paths under it."""\nimport os\n\n\ndef prefix_path(prefix, name):\n    """The path of a spool under the install prefix (a prefix with spaces is quoted by the caller)."""\n    return os.path.join(prefix, name)\n',
  'spindle/wind.py': '"""Winds thread on a spool."""\n\n\ndef wind(spool, turns):\n    return spool + turns\n',
  'scripts/install.sh':
    '#!/bin/sh\n# Installs spindle under a prefix.\nPREFIX=${1:-/usr/local}\nmkdir -p $PREFIX/lib/spindle\ncp -r spindle $PREFIX/lib/spindle\necho "installed under $PREFIX"\n',
  'scripts/bootstrap.sh': '#!/bin/sh\n# Sets up a development prefix.\npython -m venv .venv\n. .venv/bin/activate\npip install -e .\n',
  'ci/check.sh': '#!/bin/sh\n# Runs the checks of every prefix.\npython -m pytest\n',
  ...filler('spindle/spools', 'py', 8, (i) => `"""Spool ${i}: the thread it holds under the prefix."""\n\n\ndef spool${i}(prefix):\n    return prefix + "${i}"\n`),
};

describe('a script the issue names in prose (the script-class exception)', () => {
  it('reads the names put beside the word "script": before it, after it, hyphenated or quoted', () => {
    const stems = ['install', 'bootstrap', 'check', 'gen_docs'];
    expect([...namedScripts('The install script breaks', stems)]).toEqual(['install']);
    expect([...namedScripts('Running the script `bootstrap` twice fails', stems)]).toEqual(['bootstrap']);
    expect([...namedScripts('the gen-docs script drops a page', stems)]).toEqual(['gen_docs']);
    expect([...namedScripts('the gen docs script drops a page', stems)]).toEqual(['gen_docs']);
    // "my script", "this script", a name no script has, and a stem far from the word "script": nothing.
    expect([...namedScripts('When I run my script to install it, this script fails', stems)]).toEqual([]);
    expect([...namedScripts('the release script fails', stems)]).toEqual([]);
  });

  it('a prose issue about the install script: the script first, above the module that shares its words', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, 'The install script breaks with a prefix that has spaces\n\nRunning the install script with a prefix like "/opt/my tools" stops: mkdir makes two folders and the copy fails.');
    expect(files[0]).toBe('scripts/install.sh');
  });

  it('the same words without naming the script keep the library code first and the scripts below it', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, 'A prefix that has spaces breaks the install\n\nWith a prefix like "/opt/my tools" the install path of a spool is split in two.');
    expect(files[0]).toBe('spindle/prefix.py');
    const why = (file: string) => outcome.artifacts.navigation_map.tier_path_traversed.find((e) => e.files_loaded.includes(file))?.justification ?? '';
    if (files.includes('scripts/install.sh')) expect(why('scripts/install.sh')).toMatch(/, script\)$/);
  });
});
