// `navkernel navigate` runs from the bundled CLI in dist/cli/ (scripts/build-cli.ts, made by `npm run build`, which
// `npm test` runs first): it must be the same program as the compiled one in dist/src/, and each module copied into
// it must still find the files it names beside itself (worker files, the extras module, the package root).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/kernel-fixtures.js';
import { BIN } from '../support/cli.js';
import { scratch, SHOP } from '../repomap/fixture.js';

const { tmp, cleanup } = scratch();
afterAll(cleanup);

const BUNDLE = path.join(ROOT, 'dist', 'cli');
const COMPILED_MAIN = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');

/** Runs `main(argv)` of a CLI module (the bundle's or the compiled one) in a fresh process. */
function runMain(mainFile: string, args: string[], env: Record<string, string> = {}) {
  const script = `const { main } = await import(${JSON.stringify(pathToFileURL(mainFile).href)}); process.exitCode = await main(['node', 'navkernel', ...JSON.parse(process.argv[1])]);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(args)], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The navigate JSON without the artifact folder (each run writes its own). */
const outcome = (stdout: string) => {
  const j = JSON.parse(stdout) as Record<string, unknown>;
  delete j.artifacts;
  return j;
};

describe('the bundled CLI', () => {
  it('is built, and every module URL rewritten in it names a file of dist/', () => {
    expect(existsSync(path.join(BUNDLE, 'main.js'))).toBe(true);
    const targets = new Set<string>();
    for (const f of readdirSync(BUNDLE)) {
      const text = readFileSync(path.join(BUNDLE, f), 'utf8');
      for (const m of text.matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)) targets.add(m[1]!);
    }
    // At least the extract pool (its worker file) and the full-text fields (the extras module the workers load).
    expect([...targets]).toEqual(expect.arrayContaining(['../src/repomap/extract-pool.js', '../src/navigator/retrieval/lex-fields.js']));
    for (const t of targets) expect(existsSync(fileURLToPath(new URL(t, pathToFileURL(path.join(BUNDLE, 'main.js')))))).toBe(true);
  });

  it('navigates as the compiled CLI does, cold (parsing, with the extras) and warm', () => {
    const task = 'refund a charge through stripe and format the receipt';
    const cacheDir = tmp('nk-bundle-cache-');
    const args = (out: string, cache: string[]) => ['navigate', '--repo', SHOP, '--task', task, '--out', path.join(tmp('nk-bundle-out-'), out), '--json', '-q', ...cache];
    const compiled = runMain(COMPILED_MAIN, args('a', ['--no-cache']));
    expect(compiled.code, compiled.stderr).toBe(0);
    const cold = runMain(path.join(BUNDLE, 'main.js'), args('b', ['--cache-dir', cacheDir]));
    const warm = runMain(path.join(BUNDLE, 'main.js'), args('c', ['--cache-dir', cacheDir]));
    for (const r of [cold, warm]) {
      expect(r.code, r.stderr).toBe(0);
      expect(outcome(r.stdout)).toEqual(outcome(compiled.stdout));
    }
  });

  it('reports a bad capsule with the compiled CLI\'s message (zod\'s English messages are in the bundle)', () => {
    const capsule = path.join(tmp('nk-bundle-capsule-'), 'capsule.json');
    spawnSync(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(capsule)}, JSON.stringify({ task: 5, repo_root: ${JSON.stringify(SHOP)}, budget: { max_files: 'x' } }))`]);
    const args = ['navigate', '--capsule', capsule, '--json', '-q', '--out', tmp('nk-bundle-out-')];
    const bundled = runMain(path.join(BUNDLE, 'main.js'), args);
    const compiled = runMain(COMPILED_MAIN, args);
    expect(bundled.code).toBe(2);
    expect(bundled.stdout).toBe(compiled.stdout);
    expect(bundled.stdout).toContain('expected string, received number');
  });

  it('is what bin/navkernel.js runs for navigate (and only for navigate)', () => {
    const debug = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_DEBUG: 'esm' } }).stderr;
    const bundled = pathToFileURL(path.join(BUNDLE, 'main.js')).href;
    expect(debug(['navigate', '--repo', SHOP, '--task', 'refund', '--json', '-q', '--no-cache', '--out', tmp('nk-bundle-out-')])).toContain(bundled);
    const other = debug(['diagram', '--help']);
    expect(other).toContain(pathToFileURL(COMPILED_MAIN).href);
    expect(other).not.toContain(bundled);
  });
});
