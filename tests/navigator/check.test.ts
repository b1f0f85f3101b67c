import { readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli.js';
import { copyShop, tmpDir } from '../repomap/fixture.js';

const made: string[] = [];
const dir = (prefix: string) => {
  const d = tmpDir(prefix);
  made.push(d);
  return d;
};
const shop = () => {
  const repo = copyShop();
  made.push(path.dirname(repo));
  return repo;
};
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
// Made in beforeAll, not at collection: a filter (-t) that skips every test runs no afterAll to remove it.
let cache: string;
beforeAll(() => {
  cache = dir('nk-cache-');
});
const TASK = 'apply a discount coupon to the cart';
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('navigate --check is true (issue 22 item 2)', () => {
  it('holds on fresh artifacts; fails, listing every reason, when a loaded file is deleted, another overwritten and a lines_read edited', async () => {
    const repo = shop();
    const out = dir('nk-out-');
    expect((await runCliHere(['navigate', '--repo', repo, '--task', TASK, '--out', out, '--cache-dir', cache, '-q'])).code).toBe(0);
    const ok = await runCliHere(['navigate', '--check', '--out', out, '--repo', repo]);
    expect(ok.stdout).toBe(`rung 641 holds for ${out}\n`);
    expect(ok.code).toBe(0);

    const receiptFile = path.join(out, 'context_load_receipt.json');
    const receipt = json(receiptFile);
    expect(receipt.files_loaded.length).toBeGreaterThanOrEqual(2);
    const [first, second] = receipt.files_loaded as { path: string; ranges: [number, number][]; lines_read: number }[];
    // 1. a loaded file deleted
    unlinkSync(path.join(repo, first!.path));
    // 2. another overwritten: the first line of its first loaded range changes
    const file = path.join(repo, second!.path);
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = second!.ranges[0]![0] - 1;
    lines[at] = `${lines[at]} // edited`;
    writeFileSync(file, lines.join('\n'));
    // 3. a lines_read edited, so the receipt's total no longer adds up
    receipt.files_loaded[0].lines_read += 5;
    writeFileSync(receiptFile, JSON.stringify(receipt, null, 2));

    const bad = await runCliHere(['navigate', '--check', '--out', out, '--repo', repo]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(new RegExp(`^rung 641 fails for ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\n`));
    expect(bad.stdout).toContain(`context_load_receipt.json: total_lines_read ${receipt.total_lines_read} is not the sum of files_loaded[].lines_read (${receipt.total_lines_read + 5})`);
    expect(bad.stdout).toContain(`${first!.path}: named in the receipt but missing from the repository`);
    expect(bad.stdout).toMatch(new RegExp(`${second!.path.replace(/\./g, '\\.')}: lines ${second!.ranges[0]![0]}-${second!.ranges[0]![1]} no longer read the same \\(sha256 [0-9a-f]{12}, the receipt says [0-9a-f]{12}\\)`));
    // --json gives the same reasons as data.
    const asJson = JSON.parse((await runCliHere(['navigate', '--check', '--out', out, '--repo', repo, '--json'])).stdout);
    expect(asJson).toMatchObject({ rung: 641, passed: false });
    expect(asJson.problems).toHaveLength(3);
  });

  it('a change outside the loaded ranges still holds; one inside fails; without --repo nothing is claimed', async () => {
    const repo = shop();
    const out = dir('nk-out-');
    expect((await runCliHere(['navigate', '--repo', repo, '--task', TASK, '--out', out, '--cache-dir', cache, '-q'])).code).toBe(0);
    const receipt = json(path.join(out, 'context_load_receipt.json'));
    const partial = (receipt.files_loaded as { path: string; ranges: [number, number][]; lines_read: number; lines_shown: number }[]).find((f) => f.lines_shown < f.lines_read);
    expect(partial).toBeDefined();
    const file = path.join(repo, partial!.path);
    const original = readFileSync(file, 'utf8');
    const lines = original.split('\n');
    const shown = new Set(partial!.ranges.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i)));
    const outside = lines.findIndex((_, i) => !shown.has(i + 1) && i < partial!.lines_read);
    lines[outside] = `${lines[outside]} `;
    writeFileSync(file, lines.join('\n'));
    expect((await runCliHere(['navigate', '--check', '--out', out, '--repo', repo])).code).toBe(0);
    const noRepo = await runCliHere(['navigate', '--check', '--out', out]);
    expect(noRepo.code).toBe(1);
    expect(noRepo.stdout).toContain(`the ${receipt.files_loaded.length} file(s) the receipt names were not re-read: no repository given (navigate --check --repo DIR)`);
    // context.md edited (a shown line changed in the artifact itself) is caught too.
    writeFileSync(file, original);
    const ctx = path.join(out, 'context.md');
    const m = /^(\d+)│(.+)$/m.exec(readFileSync(ctx, 'utf8'))!;
    writeFileSync(ctx, readFileSync(ctx, 'utf8').replace(m[0], `${m[1]}│${m[2]}!`));
    const edited = await runCliHere(['navigate', '--check', '--out', out, '--repo', repo]);
    expect(edited.code).toBe(1);
    expect(edited.stdout).toMatch(/context\.md: \S+:\d+ differs from the repository/);
  });
});

describe('honest accounting of files read but left out (issue 22 item 8)', () => {
  it('a file read and then dropped for the token budget is listed with its lines read, and --check re-reads it too', async () => {
    const repo = shop();
    const out = dir('nk-out-');
    expect((await runCliHere(['navigate', '--repo', repo, '--task', TASK, '--out', out, '--cache-dir', cache, '-q', '--budget-tokens', '200'])).code).toBe(0);
    const receipt = json(path.join(out, 'context_load_receipt.json'));
    expect(receipt.files_read_not_loaded?.length).toBeGreaterThan(0);
    for (const f of receipt.files_read_not_loaded as { path: string; lines_read: number }[]) {
      expect(receipt.files_loaded.map((x: { path: string }) => x.path)).not.toContain(f.path);
      expect(f.lines_read).toBe(readFileSync(path.join(repo, f.path), 'utf8').replace(/\n$/, '').split('\n').length);
    }
    expect((await runCliHere(['navigate', '--check', '--out', out, '--repo', repo])).code).toBe(0);
    const dropped = receipt.files_read_not_loaded[0].path as string;
    unlinkSync(path.join(repo, dropped));
    const bad = await runCliHere(['navigate', '--check', '--out', out, '--repo', repo]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`${dropped}: named in the receipt but missing from the repository`);
  });
});

describe('rung_target is the rung asked for (issue 22 item 7)', () => {
  it('641 by default, 274177 with --rung 274177 or --verify-stable, 65537 with --rung 65537; --check reads a failed rung-65537 check', async () => {
    const repo = shop();
    const target = async (...flags: string[]) => {
      const out = dir('nk-out-');
      const r = await runCliHere(['navigate', '--repo', repo, '--task', TASK, '--out', out, '--cache-dir', cache, '-q', ...flags]);
      expect(r.code).toBe(0);
      return { out, map: json(path.join(out, 'navigation_map.json')) };
    };
    expect((await target()).map.rung_target).toBe(641);
    expect((await target('--rung', '274177')).map.rung_target).toBe(274177);
    expect((await target('--verify-stable')).map.rung_target).toBe(274177);
    const high = await target('--rung', '65537');
    expect(high.map.rung_target).toBe(65537);
    expect((await runCliHere(['navigate', '--check', '--out', high.out, '--repo', repo])).code).toBe(0);
    const receiptFile = path.join(high.out, 'context_load_receipt.json');
    const receipt = json(receiptFile);
    receipt.rung_checks[0].passed = false;
    writeFileSync(receiptFile, JSON.stringify(receipt, null, 2));
    const bad = await runCliHere(['navigate', '--check', '--out', high.out, '--repo', repo]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`rung 65537 check ${receipt.rung_checks[0].check} failed`);
  });
});
