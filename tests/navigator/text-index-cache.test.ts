// The persistent full-text index across commits: a repository seen before in another folder (the same project
// at another commit) starts from a copy of its index and re-lexes only the files that differ, with the same
// scores and the same navigation as a cold build.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexRepo } from '../../src/repomap/index.js';
import { compareRuns, navigate, openTextIndex, textIndexFile } from '../../src/navigator/index.js';
import { scratch, SHOP } from '../repomap/fixture.js';

const { tmp, cleanup } = scratch();
afterAll(cleanup);

/** The shop fixture at `base/a`, and at `base/b` with one file changed (a new name in it). */
function twoCommits(): { a: string; b: string } {
  const base = tmp('nk-commits-');
  const a = path.join(base, 'a');
  const b = path.join(base, 'b');
  cpSync(SHOP, a, { recursive: true });
  cpSync(SHOP, b, { recursive: true });
  writeFileSync(path.join(b, 'src', 'util', 'format.ts'), 'export function formatPounds(pence: number): string {\n  // pounds and pence for the refund receipt\n  return (pence / 100).toFixed(2);\n}\n');
  return { a, b };
}

describe('text index at another commit', () => {
  it('is seeded from the sibling index and re-lexes only the changed file, scoring as a cold build does', async () => {
    const { a, b } = twoCommits();
    const cacheDir = tmp('nk-cache-');
    const ia = await indexRepo(a, { cacheDir });
    openTextIndex(ia, textIndexFile(cacheDir, ia.root)).close();
    const ib = await indexRepo(b, { cacheDir });
    const seeded = openTextIndex(ib, textIndexFile(cacheDir, ib.root));
    const cold = openTextIndex(ib, false);
    try {
      expect(seeded.stats.seeded_from).toBe(path.basename(textIndexFile(cacheDir, ia.root)));
      expect([seeded.stats.lexed, seeded.stats.removed]).toEqual([1, 1]);
      expect(seeded.size).toBe(cold.size);
      for (const terms of [['refund'], ['pound', 'penc'], ['charg', 'stripe', 'format'], ['formatpounds']]) {
        expect(seeded.search(terms, 50)).toEqual(cold.search(terms, 50));
        for (const t of terms) expect([seeded.docFreq(t), seeded.filesWith(t)]).toEqual([cold.docFreq(t), cold.filesWith(t)]);
      }
    } finally {
      seeded.close();
      cold.close();
    }
  });

  it('navigates the other commit to the same artifacts as a cold run', async () => {
    const { a, b } = twoCommits();
    const cacheDir = tmp('nk-cache-');
    const task = 'format the refund amount in pounds';
    await navigate({ task, repo_root: a }, { cacheDir });
    const other = await navigate({ task, repo_root: b }, { cacheDir });
    expect(other.index_stats!.parsed).toBe(1);
    const cold = await navigate({ task, repo_root: b }, { cacheDir: false });
    const check = compareRuns(cold, other);
    expect(check.problems).toEqual([]);
    expect(other.artifacts.context_md).toBe(cold.artifacts.context_md);
  });

  it('is not seeded from an index of another project', async () => {
    const cacheDir = tmp('nk-cache-');
    const ia = await indexRepo(SHOP, { cacheDir });
    openTextIndex(ia, textIndexFile(cacheDir, ia.root)).close();
    const other = path.join(tmp('nk-other-'), 'lib');
    mkdirSync(other);
    writeFileSync(path.join(other, 'main.py'), 'def parse_config(path):\n    return open(path).read()\n');
    const io = await indexRepo(other, { cacheDir });
    const t = openTextIndex(io, textIndexFile(cacheDir, io.root));
    try {
      expect(t.stats.seeded_from).toBeUndefined();
      expect(t.stats.lexed).toBe(1);
      expect(t.filesWith('config')).toEqual(['main.py']);
    } finally {
      t.close();
    }
  });
});
