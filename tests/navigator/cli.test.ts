import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli.js';
import { SHOP, tmpDir } from '../repomap/fixture.js';

describe('navkernel navigate', () => {
  it('prints the exit, files with levels, tokens and ratio, writes the four artifacts, and --check verifies rung 641', async () => {
    const out = tmpDir('nk-out-');
    const cache = tmpDir('nk-cache-');
    const r = await runCliHere(['navigate', '--repo', SHOP, '--task', 'apply a discount coupon to the cart', '--out', out, '--cache-dir', cache, '--max-files', '4']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^EXIT_PASS {2}PASS\n/);
    expect(r.stdout).toMatch(/ {2}L[1-4] {2}src\/cart\/discount\.ts {2}\d+ tokens, \d+ lines read, \d+ shown, match "/);
    expect(r.stdout).toMatch(/compression ratio \d+(\.\d+)? \(gate 2\.0, target 10\)/);
    for (const f of ['navigation_map.json', 'context_load_receipt.json', 'compression_report.json', 'context.md']) expect(readFileSync(path.join(out, f), 'utf8').length).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(path.join(out, 'context_load_receipt.json'), 'utf8')).files_loaded.length).toBeLessThanOrEqual(4);
    const check = await runCliHere(['navigate', '--check', '--out', out, '--repo', SHOP]);
    expect(check.code).toBe(0);
    expect(check.stdout).toBe(`rung 641 holds for ${out}\n`);
    // Tamper with the report: the check must fail and say why.
    const file = path.join(out, 'compression_report.json');
    const report = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...report, compression_ratio: 1.2 }));
    const bad = await runCliHere(['navigate', '--check', '--out', out, '--repo', SHOP]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('compression_ratio 1.2 < 2.0');
  });

  it('--verify-stable runs twice and compares sha256 (rung 274177); --json gives the outcome as data', async () => {
    const out = tmpDir('nk-out-');
    const r = await runCliHere(['navigate', '--repo', SHOP, '--task', 'stripe refund', '--out', out, '--no-cache', '--verify-stable', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.exit).toBe('EXIT_PASS');
    expect(doc.verify_stable).toMatchObject({ rung: 274177, passed: true, problems: [] });
    expect(Object.keys(doc.sha256)).toEqual(['navigation_map.json', 'context_load_receipt.json', 'compression_report.json', 'context.md']);
  });

  it('exits 3 with the reason when the task is missing, and 2 on a bad flag', async () => {
    const out = tmpDir('nk-out-');
    const r = await runCliHere(['navigate', '--repo', SHOP, '--out', out, '--no-cache']);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^EXIT_NEED_INFO {2}NEED_INFO: TASK is missing\n/);
    const bad = await runCliHere(['navigate', '--repo', SHOP, '--task', 'x', '--max-files', '0']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('expected a positive integer');
  });

  it('reads a capsule file, with flags overriding it', async () => {
    const dir = tmpDir('nk-capsule-');
    const capsule = path.join(dir, 'capsule.yaml');
    writeFileSync(capsule, `task: where is the stripe charge refund\nrepo_root: ${SHOP}\nbudget:\n  max_files: 2\n`);
    const r = await runCliHere(['navigate', '--capsule', capsule, '--out', path.join(dir, 'out'), '--no-cache', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.loaded.length).toBeLessThanOrEqual(2);
    expect(doc.magic_words).toEqual(expect.arrayContaining(['stripe', 'refund']));
  });
});
