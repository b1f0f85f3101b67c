// Fixtures written by the real tools, in a throwaway folder, on small projects with seeded faults: pytest (JUnit
// XML and its plain output), node --test (TAP), tsc, ESLint (JSON and SARIF), pyright (JSON), and git (a clone
// behind its upstream, a merge conflict). Shared by the forensics tests; each suite removes its folder.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../support/kernel-fixtures.js';

const BIN = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

export interface ToolReports {
  dir: string;
  junit: string;
  pytestText: string;
  tap: string;
  tsc: string;
  eslintJson: string;
  eslintSarif: string;
  pyright: string;
  gitBehind: string;
  gitConflict: string;
  gitStatusFile: string;
  versions: Record<string, string>;
}

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** Runs a tool that exits non-zero on findings (as they all do here): its output is the fixture. */
function run(cmd: string, args: string[], cwd: string, out?: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, timeout: 120_000 });
  if (r.error) throw r.error;
  if (out) writeFileSync(out, r.stdout);
  return r.stdout;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

export function makeToolReports(): ToolReports {
  const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-forensics-'));
  const versions: Record<string, string> = {};

  // pytest: a pass, an assertion failure (with <, & and quotes: entities in the XML), a fixture error, a skip,
  // and a module that imports a missing module (a collection error).
  const py = path.join(dir, 'py');
  write(path.join(py, 'conftest.py'), 'import pytest\n\n@pytest.fixture\ndef broken():\n    raise RuntimeError("fixture exploded")\n');
  write(path.join(py, 'test_a.py'), 'import pytest\n\ndef test_ok():\n    assert True\n\ndef test_fail():\n    assert 1 == 2, "one is not <two> & \\"so\\""\n\ndef test_fix(broken):\n    pass\n\n@pytest.mark.skip(reason="later")\ndef test_skip():\n    pass\n');
  write(path.join(py, 'test_b.py'), 'import helpers_missing\n\ndef test_x():\n    pass\n');
  versions.pytest = run('python3', ['-m', 'pytest', '--version'], py).trim() || spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).stderr.trim();
  const pyArgs = ['-m', 'pytest', '-p', 'no:cacheprovider', '--continue-on-collection-errors'];
  run('python3', [...pyArgs, '--junitxml', path.join(dir, 'junit.xml')], py);
  run('python3', pyArgs, py, path.join(dir, 'pytest.txt'));

  // node --test: a pass, a failure, a failing subtest inside a suite, a skip.
  write(
    path.join(dir, 'node', 'a.test.mjs'),
    "import test from 'node:test';\nimport assert from 'node:assert';\ntest('passes', () => {});\ntest('fails', () => { assert.strictEqual(1, 2); });\ntest.skip('skipped', () => {});\ntest('suite', async (t) => {\n  await t.test('inner fails', () => { throw new TypeError('bad'); });\n  await t.test('inner passes', () => {});\n});\n",
  );
  versions.node = process.version;
  run(process.execPath, ['--test', '--test-reporter=tap', 'a.test.mjs'], path.join(dir, 'node'), path.join(dir, 'node.tap'));

  // tsc: an import of a module that is not there (TS2307) and two type mismatches (TS2322, TS2345).
  const ts = path.join(dir, 'ts');
  write(path.join(ts, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', target: 'es2022', types: [] }, include: ['src'] }));
  write(path.join(ts, 'src', 'a.ts'), "import { missing } from './not-there.js';\nexport const n: number = 'text';\nfunction f(x: number): number { return x; }\nexport const m = f('one');\nexport { missing };\n");
  versions.tsc = run(BIN('tsc'), ['--version'], ts).trim();
  run(BIN('tsc'), ['-p', '.', '--pretty', 'false'], ts, path.join(dir, 'tsc.txt'));

  // ESLint 9: two errors (no-unused-vars, eqeqeq), one warning (no-console), one fixable error (prefer-const).
  const es = path.join(dir, 'es');
  write(path.join(es, 'eslint.config.mjs'), "export default [{ files: ['**/*.js'], rules: { 'no-unused-vars': 'error', eqeqeq: 'error', 'no-console': 'warn', 'prefer-const': 'error' } }];\n");
  write(path.join(es, 'a.js'), 'let unused = 1;\nlet x = 2;\nif (x == 3) console.log(x);\n');
  const eslint = path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');
  versions.eslint = run(process.execPath, [eslint, '--version'], es).trim();
  run(process.execPath, [eslint, '-f', 'json', 'a.js'], es, path.join(dir, 'eslint.json'));
  run(process.execPath, [eslint, '-f', path.join(ROOT, 'node_modules', '@microsoft', 'eslint-formatter-sarif', 'sarif.js'), 'a.js'], es, path.join(dir, 'eslint.sarif'));

  // pyright: a missing import and an argument of the wrong type.
  const pr = path.join(dir, 'pyr');
  write(path.join(pr, 'pyrightconfig.json'), '{}');
  write(path.join(pr, 'm.py'), 'import not_a_module_anywhere\n\ndef f(x: int) -> int:\n    return x\n\nf("one")\n');
  versions.pyright = run(BIN('pyright'), ['--version'], pr).trim();
  run(BIN('pyright'), ['--outputjson', 'm.py'], pr, path.join(dir, 'pyright.json'));

  // git: a clone two commits behind its upstream, and a repository in the middle of a conflicted merge.
  versions.git = execFileSync('git', ['--version'], { encoding: 'utf8' }).trim();
  /** A new repository with one commit of one file. */
  const repo = (name: string, file: string, text: string) => {
    const at = path.join(dir, name);
    mkdirSync(at);
    git(at, 'init', '-q');
    write(path.join(at, file), text);
    git(at, 'add', '.');
    git(at, 'commit', '-q', '-m', text.trim());
    return at;
  };
  const up = repo('upstream', 'f.txt', 'one\n');
  const behind = path.join(dir, 'behind');
  git(dir, 'clone', '-q', up, behind);
  for (const n of ['two', 'three']) {
    write(path.join(up, 'f.txt'), `${n}\n`);
    git(up, 'commit', '-q', '-am', n);
  }
  git(behind, 'fetch', '-q');
  const conflict = repo('conflict', 'c.txt', 'base\n');
  git(conflict, 'checkout', '-q', '-b', 'other');
  write(path.join(conflict, 'c.txt'), 'theirs\n');
  git(conflict, 'commit', '-q', '-am', 'theirs');
  git(conflict, 'checkout', '-q', 'main');
  write(path.join(conflict, 'c.txt'), 'ours\n');
  git(conflict, 'commit', '-q', '-am', 'ours');
  spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'merge', 'other'], { cwd: conflict });
  writeFileSync(path.join(dir, 'git-status.txt'), execFileSync('git', ['status', '--porcelain=v2', '--branch'], { cwd: behind, encoding: 'utf8' }));

  return {
    dir,
    junit: path.join(dir, 'junit.xml'),
    pytestText: path.join(dir, 'pytest.txt'),
    tap: path.join(dir, 'node.tap'),
    tsc: path.join(dir, 'tsc.txt'),
    eslintJson: path.join(dir, 'eslint.json'),
    eslintSarif: path.join(dir, 'eslint.sarif'),
    pyright: path.join(dir, 'pyright.json'),
    gitBehind: behind,
    gitConflict: conflict,
    gitStatusFile: path.join(dir, 'git-status.txt'),
    versions,
  };
}
