// Test hygiene (issue 22.4): `npm test` gives each run, and each test file, a temp directory of its own, and a test
// file that leaves anything there fails, naming what it left (tests/support/temp-dir-*.ts). Checked here on a small
// vitest run of its own: one file that cleans up, one that does not.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

describe('temp directory hygiene', () => {
  it('this file runs in a temp directory of its own, inside the run’s', () => {
    const run = process.env.NAVKERNEL_TEST_RUN_DIR;
    expect(run).toBeDefined();
    expect(path.dirname(tmpdir())).toBe(run);
    expect(path.basename(tmpdir())).toMatch(/^file-/);
  });

  it('fails a test file that leaves a folder behind, names it, and leaves nothing in the OS temp directory', () => {
    const dir = tempDir('nk-hygiene-');
    const outerTmp = path.join(dir, 'tmp');
    mkdirSync(outerTmp);
    const test = (body: string) => `import { mkdtempSync, rmSync } from 'node:fs';\nimport { tmpdir } from 'node:os';\nimport path from 'node:path';\ntest('t', () => {\n${body}\n});\n`;
    writeFileSync(path.join(dir, 'leaks.test.ts'), test("  mkdtempSync(path.join(tmpdir(), 'nk-leak-'));"));
    writeFileSync(path.join(dir, 'tidy.test.ts'), test("  rmSync(mkdtempSync(path.join(tmpdir(), 'nk-tidy-')), { recursive: true });"));
    const support = path.join(ROOT, 'tests', 'support');
    writeFileSync(
      path.join(dir, 'vitest.config.mjs'),
      `export default { test: { globals: true, include: ['*.test.ts'], pool: 'forks', globalSetup: [${JSON.stringify(path.join(support, 'temp-dir-global-setup.ts'))}], setupFiles: [${JSON.stringify(path.join(support, 'temp-dir-per-file.ts'))}] } };\n`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: outerTmp, TMP: outerTmp, TEMP: outerTmp, NO_COLOR: '1' };
    delete env.NAVKERNEL_TEST_RUN_DIR;
    delete env.VITEST;
    const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', dir, '--config', path.join(dir, 'vitest.config.mjs')], { cwd: dir, env, encoding: 'utf8' });
    const out = r.stdout + r.stderr;
    expect(r.status, out).toBe(1);
    expect(out).toMatch(/leaks\.test\.ts/);
    expect(out).toMatch(/this test file left 1 entry in the temp directory .*: nk-leak-\w{6}/);
    expect(out).not.toMatch(/nk-tidy-/);
    expect(out).toMatch(/1 failed \| 1 passed/);
    expect(readdirSync(outerTmp)).toEqual([]); // the run's directory is gone, the leaked folder with it
  });

  it('waits for the processes a test left running before it looks: what they write is counted, whatever the machine speed', () => {
    const dir = tempDir('nk-hygiene-late-');
    const outerTmp = path.join(dir, 'tmp');
    mkdirSync(outerTmp);
    // The test starts a child that writes into the temp directory a moment later and does not wait for it: listing at
    // once would race it (pass on a fast machine, or see a half-written folder on a slow one).
    writeFileSync(
      path.join(dir, 'late.test.ts'),
      `import { spawn } from 'node:child_process';\nimport { tmpdir } from 'node:os';\nimport path from 'node:path';\ntest('t', () => {\n  spawn('sh', ['-c', 'sleep 1; mkdir "$0"', path.join(tmpdir(), 'nk-late')], { stdio: 'ignore' });\n});\n`,
    );
    const support = path.join(ROOT, 'tests', 'support');
    writeFileSync(
      path.join(dir, 'vitest.config.mjs'),
      `export default { test: { globals: true, include: ['*.test.ts'], pool: 'forks', globalSetup: [${JSON.stringify(path.join(support, 'temp-dir-global-setup.ts'))}], setupFiles: [${JSON.stringify(path.join(support, 'temp-dir-per-file.ts'))}] } };\n`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: outerTmp, TMP: outerTmp, TEMP: outerTmp, NO_COLOR: '1' };
    delete env.NAVKERNEL_TEST_RUN_DIR;
    delete env.VITEST;
    const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', dir, '--config', path.join(dir, 'vitest.config.mjs')], { cwd: dir, env, encoding: 'utf8' });
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/this test file left 1 entry in the temp directory .*: nk-late/);
    expect(r.status, out).toBe(1);
    expect(readdirSync(outerTmp)).toEqual([]);
  });

  it('the navigator and explorer tests leave nothing in the temp directory when a filter skips every test (no folder made at collection)', () => {
    const dir = tempDir('nk-hygiene-skip-');
    const outerTmp = path.join(dir, 'tmp');
    mkdirSync(outerTmp);
    // No temp harness here: this is what `vitest -t NAME` leaves in a plain temp directory.
    writeFileSync(path.join(dir, 'vitest.config.mjs'), `export default { test: { root: ${JSON.stringify(ROOT)}, include: ['tests/navigator/**/*.test.ts', 'tests/explorer/**/*.test.ts'], pool: 'forks' } };\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: outerTmp, TMP: outerTmp, TEMP: outerTmp, NO_COLOR: '1' };
    delete env.NAVKERNEL_TEST_RUN_DIR;
    delete env.VITEST;
    const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', path.join(dir, 'vitest.config.mjs'), '-t', 'no test is called like this'], { cwd: ROOT, env, encoding: 'utf8', timeout: 600_000 });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/skipped/);
    expect(readdirSync(outerTmp)).toEqual([]);
  }, 600_000);
});
