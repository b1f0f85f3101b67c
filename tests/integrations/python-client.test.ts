// The Python client as a Python user gets it: `pip install ./clients/python` into a fresh virtual environment with
// no package index at all (the in-tree build backend needs nothing), typed for a type checker (py.typed, checked with
// pyright reading only declared types), and its own pytest suite (clients/python/tests) against a real
// `navkernel serve`, run with the installed package.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.js';
import { CHARTERS, ROOT } from '../support/kernel-fixtures.js';

const CLIENT = path.join(ROOT, 'clients', 'python');

// pip with no index and no machine configuration (this machine's pip.conf names local mirrors): nothing to fetch.
const OFFLINE_ENV = { ...process.env, PIP_CONFIG_FILE: '/dev/null', PIP_NO_INDEX: '1', PIP_FIND_LINKS: '', PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONDONTWRITEBYTECODE: '1' };

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = OFFLINE_ENV, cwd = ROOT) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 180_000 });
  return { code: r.status, stdout: r.stdout ?? '', out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

describe('the Python client, installed with pip offline', () => {
  let dir: string;
  let python: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'nk-py-'));
    // --system-site-packages: the image's pytest is visible inside the environment.
    const venv = run('python3', ['-m', 'venv', '--system-site-packages', path.join(dir, 'venv')]);
    expect(venv.code, venv.out).toBe(0);
    python = path.join(dir, 'venv', 'bin', 'python');
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('pip installs ./clients/python with no index, and the package carries py.typed', () => {
    const pip = run(python, ['-m', 'pip', 'install', '--no-index', CLIENT]);
    expect(pip.code, pip.out).toBe(0);
    expect(pip.out).toMatch(/Successfully installed navkernel-client-0\.1\.0/);
    const where = run(python, ['-c', 'import importlib.resources as r, navkernel_client as m; print(m.__file__); print(r.files(m).joinpath("py.typed").is_file())'], OFFLINE_ENV, dir);
    expect(where.code, where.out).toBe(0);
    const [file, typed] = where.stdout.trim().split('\n');
    expect(file).toContain(path.join(dir, 'venv'));
    expect(typed).toBe('True');
  });

  it('is typed: pyright, told to use only declared types, checks a consumer against the installed package', () => {
    writeFileSync(path.join(dir, 'pyrightconfig.json'), JSON.stringify({ venvPath: dir, venv: 'venv', useLibraryCodeForTypes: false, include: ['consumer.py'] }));
    writeFileSync(
      path.join(dir, 'consumer.py'),
      [
        'from navkernel_client import Client',
        'c = Client("http://127.0.0.1:1")',
        'd = c.route({"run_id": "r", "flow": "f", "step_completed": "s", "status": "OK"})',
        'reveal_type(d)',
        'c.route({"run_id": "r", "flow": "f", "step_completed": "s", "status": 3})',
        '',
      ].join('\n'),
    );
    const r = run(process.execPath, [path.join(ROOT, 'node_modules', 'pyright', 'index.js'), '--outputjson', '-p', path.join(dir, 'pyrightconfig.json')], process.env, dir);
    const report = JSON.parse(r.stdout) as { generalDiagnostics: { severity: string; message: string; range: { start: { line: number } } }[] };
    const at = (line: number) => report.generalDiagnostics.filter((d) => d.range.start.line === line);
    expect(at(3).map((d) => d.message)).toEqual([expect.stringContaining('Decision')]);
    // status must be a str: the TypedDict reaches the checker through py.typed.
    expect(at(4).map((d) => d.severity)).toEqual(['error']);
    expect(report.generalDiagnostics.filter((d) => d.severity === 'error' && d.range.start.line !== 4)).toEqual([]);
  });

  it("passes its own pytest suite against a real navkernel serve, importing the installed package", () => {
    // --basetemp: pytest's tmp_path folders inside this test's folder (removed after it), not in the temp directory.
    const r = run(python, ['-m', 'pytest', path.join(CLIENT, 'tests'), '-q', '-p', 'no:cacheprovider', '--basetemp', path.join(dir, 'pytest-tmp')], { ...OFFLINE_ENV, NAVKERNEL: `${process.execPath} ${BIN}`, NAVKERNEL_TEST_FLOWS: CHARTERS }, dir);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/\b15 passed\b/);
    expect(r.out).not.toMatch(/skipped|failed|error/);
  });
});
