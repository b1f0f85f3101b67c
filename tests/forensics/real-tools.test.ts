// Reports written by the real tools (see real-tools.ts) read into forensics: counts, findings and signatures,
// each result valid under schemas/route-request.schema.json; then routed twice at a build step.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileValidator } from '../../src/contracts/validate.js';
import { collectForensics } from '../../src/forensics/index.js';
import { createKernel, loadFlows } from '../../src/kernel/index.js';
import { runCli } from '../support/cli.js';
import { CHARTERS, ROOT } from '../support/kernel-fixtures.js';
import { makeToolReports, type ToolReports } from './real-tools.js';

let r: ToolReports;
const validate = compileValidator('route-request');
const asRequest = (forensics: unknown) => ({ run_id: 'r', flow: 'build', step_completed: 'build-step-3', status: 'FAILED', forensics });

beforeAll(() => {
  r = makeToolReports();
}, 180_000);
afterAll(() => rmSync(r.dir, { recursive: true, force: true }));

describe('forensics from real tools', () => {
  it('pytest --junitxml: counts, the collection error, the fixture error, entities decoded; missing_import first', async () => {
    const f = await collectForensics({ files: [r.junit] });
    expect(validate(asRequest(f)).success).toBe(true);
    expect(f.tests).toMatchObject({ passed: 1, failed: 1, errored: 2, skipped: 1 });
    const byName = Object.fromEntries(f.tests!.failures!.map((x) => [x.name, x]));
    expect(byName['test_b']).toMatchObject({ kind: 'error', type: 'ModuleNotFoundError', file: 'test_b.py', line: 1 });
    expect(byName['test_b']!.message).toContain("No module named 'helpers_missing'");
    expect(byName['test_a.test_fail']).toMatchObject({ kind: 'failure', type: 'AssertionError', file: 'test_a.py', message: 'AssertionError: one is not <two> & "so"' });
    expect(byName['test_a.test_fix']).toMatchObject({ kind: 'error', file: 'conftest.py', line: 5 });
    expect(byName['test_a.test_fix']!.message).toMatch(/^failed on setup with "RuntimeError: fixture exploded"/);
    expect(f.signatures).toEqual(['missing_import', 'test_fixture_error']);
    expect(f.failure_signature).toBe('missing_import');
    expect(f.read_from).toEqual([{ file: r.junit, format: 'junit' }].map((s) => ({ ...s, file: expect.stringMatching(/junit\.xml$/) })));
  });

  it("pytest's plain output gives the same counts and signatures", async () => {
    const f = await collectForensics({ files: [r.pytestText] });
    expect(f.tests).toMatchObject({ passed: 1, failed: 1, errored: 2, skipped: 1 });
    expect(f.tests!.failures!.find((x) => x.name === 'test_b.py')).toMatchObject({ kind: 'error', type: 'ModuleNotFoundError', file: 'test_b.py' });
    expect(f.signatures).toEqual(['missing_import', 'test_fixture_error']);
  });

  it('node --test --test-reporter=tap: leaf tests counted, the failing suite not counted twice', async () => {
    const f = await collectForensics({ files: [r.tap] });
    expect(validate(asRequest(f)).success).toBe(true);
    expect(f.tests).toMatchObject({ passed: 2, failed: 2, errored: 0, skipped: 1 });
    expect(f.tests!.failures!.map((x) => [x.name, x.type, x.line])).toEqual([
      ['fails', 'AssertionError', 4],
      ['suite > inner fails', 'TypeError', 7],
    ]);
    expect(f.failure_signature).toBeUndefined();
  });

  it('tsc --pretty false: diagnostics by code; TS2307 is missing_import, TS2322/TS2345 type_mismatch', async () => {
    const f = await collectForensics({ files: [r.tsc] });
    expect(validate(asRequest(f)).success).toBe(true);
    expect(f.types).toMatchObject({ errors: 3, warnings: 0, by_code: { TS2307: 1, TS2322: 1, TS2345: 1 } });
    expect(f.types!.diagnostics![0]).toMatchObject({ rule: 'TS2307', file: expect.stringMatching(/src\/a\.ts$/), line: 1, severity: 'error' });
    expect(f.signatures).toEqual(['missing_import', 'type_mismatch']);
    expect(f.failure_signature).toBe('missing_import');
  });

  it('ESLint JSON and SARIF agree: errors, warnings, rules; lint_errors', async () => {
    const json = await collectForensics({ files: [r.eslintJson] });
    const sarif = await collectForensics({ files: [r.eslintSarif] });
    expect(validate(asRequest(json)).success).toBe(true);
    expect(validate(asRequest(sarif)).success).toBe(true);
    expect(json.read_from![0]!.format).toBe('eslint-json');
    expect(sarif.read_from![0]!.format).toBe('sarif');
    for (const f of [json, sarif]) {
      // prefer-const flags both `let`s (neither is reassigned).
      expect(f.lint).toMatchObject({ errors: 4, warnings: 1, rules: { 'no-unused-vars': 1, 'prefer-const': 2, eqeqeq: 1, 'no-console': 1 } });
      expect(f.lint!.findings!.map((x) => x.severity)).toEqual(['error', 'error', 'error', 'error', 'warning']);
      expect(f.lint!.findings![0]).toMatchObject({ file: expect.stringMatching(/a\.js$/), line: 1 });
      expect(f.failure_signature).toBe('lint_errors');
    }
    expect(json.lint!.fixable).toBe(2);
  });

  it('pyright --outputjson: the missing import and the argument type', async () => {
    const f = await collectForensics({ files: [r.pyright] });
    expect(validate(asRequest(f)).success).toBe(true);
    expect(f.types!.by_code).toMatchObject({ reportMissingImports: 1, reportArgumentType: 1 });
    expect(f.types!.errors).toBeGreaterThanOrEqual(2);
    expect(f.signatures).toEqual(['missing_import', 'type_mismatch']);
  });

  it('mypy (Debian 1.0.1, the fixture written once by scripts/mypy-fixture.sh): codes and signatures', async () => {
    const fixture = path.join(ROOT, 'tests', 'fixtures', 'forensics', 'mypy.txt');
    expect(readFileSync(fixture, 'utf8')).toMatch(/^# written by scripts\/mypy-fixture\.sh with mypy \d+\.\d+/);
    const f = await collectForensics({ files: [fixture] });
    expect(validate(asRequest(f)).success).toBe(true);
    expect(f.read_from![0]!.format).toBe('mypy');
    expect(f.types).toMatchObject({ errors: 3, warnings: 0, by_code: { import: 1, 'arg-type': 1, assignment: 1 } });
    expect(f.types!.diagnostics![1]).toMatchObject({ rule: 'arg-type', file: 'm.py', line: 8 });
    expect(f.signatures).toEqual(['missing_import', 'type_mismatch']);
  });

  it('git: behind upstream read live and from a saved porcelain v2 file; a conflicted merge', async () => {
    const live = await collectForensics({ git: r.gitBehind });
    expect(live.git_status).toMatchObject({ branch: 'main', upstream: 'origin/main', ahead: 0, behind_upstream: 2, diverged: false });
    expect(live.failure_signature).toBe('upstream_diverged');
    const saved = await collectForensics({ files: [r.gitStatusFile] });
    expect(saved.git_status).toEqual(live.git_status);
    const conflict = await collectForensics({ git: r.gitConflict });
    expect(conflict.git_status).toMatchObject({ branch: 'main', conflicts: ['c.txt'] });
    expect(conflict.failure_signature).toBe('merge_conflict');
    expect(validate(asRequest(conflict)).success).toBe(true);
  });

  it('merges every input; the table priority picks one signature and keeps the others', async () => {
    const f = await collectForensics({ files: [r.junit, r.tsc, r.eslintJson], git: r.gitConflict });
    expect(f.signatures).toEqual(['merge_conflict', 'lint_errors', 'missing_import', 'type_mismatch', 'test_fixture_error']);
    expect(f.failure_signature).toBe('merge_conflict');
    expect(f.read_from!.map((s) => s.format)).toEqual(['junit', 'tsc', 'eslint-json', 'git-status']);
  });

  it('routing the same failing report twice at build-step-3 DETOURs to the fix the build flow names', async () => {
    const flows = await loadFlows(CHARTERS);
    const cases = [
      [r.tsc, 'missing_import', 'import-fixer'],
      [r.eslintJson, 'lint_errors', 'auto-linter'],
      [r.pyright, 'missing_import', 'import-fixer'],
    ] as const;
    for (const [file, signature, target] of cases) {
      const kernel = createKernel({ flows });
      const forensics = await collectForensics({ files: [file] });
      const request = { run_id: `twice-${signature}-${target}`, flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', iteration: { current: 1 }, forensics };
      const first = await kernel.route(request);
      expect(first.decision).not.toBe('DETOUR');
      const second = await kernel.route({ ...request, iteration: { current: 2 } });
      expect(second).toMatchObject({ decision: 'DETOUR', tier: 2, rule: 'signature_detour', detour_target: target });
      // Without failure_signature the kernel picks from `signatures` with the flow's own table: the same answer.
      const { failure_signature: _dropped, ...bare } = forensics;
      const k2 = createKernel({ flows });
      await k2.route({ ...request, forensics: bare });
      expect(await k2.route({ ...request, forensics: bare, iteration: { current: 2 } })).toMatchObject({ decision: 'DETOUR', detour_target: target });
    }
  });

  it('navkernel forensics prints the same object; an unreadable report is INVALID_REPORT, exit 2', () => {
    const out = runCli(['forensics', r.junit, r.tsc, '--git', r.gitBehind]);
    expect(out.code, out.stderr).toBe(0);
    const f = JSON.parse(out.stdout) as { failure_signature: string; tests: { errored: number }; types: { errors: number } };
    expect(f).toMatchObject({ failure_signature: 'upstream_diverged', tests: { errored: 2 }, types: { errors: 3 } });
    const bad = runCli(['forensics', r.tsc, '--as', 'junit', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: { code: 'INVALID_REPORT' } });
  });

  it('records the tool versions that wrote the fixtures', () => {
    for (const k of ['pytest', 'node', 'tsc', 'eslint', 'pyright', 'git']) expect(r.versions[k], k).toMatch(/\d+\.\d+/);
    expect(readFileSync(r.junit, 'utf8')).toContain('&lt;two&gt;');
  });
});
