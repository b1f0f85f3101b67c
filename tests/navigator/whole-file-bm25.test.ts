// Plain search's BM25 in memory (whole-file-bm25.ts): the same scores, bit for bit, and the same order as FTS5's
// bm25() gives the first query of an index, for every later query of a long-lived process.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexRepo } from '../../src/repomap/index.js';
import { openTextIndex, textIndexFile } from '../../src/navigator/index.js';
import { bm25Best, bm25Idf, docsizeTotal, rowSizes } from '../../src/navigator/retrieval/whole-file-bm25.js';
import { scratch } from '../repomap/fixture.js';
import { writeRepo } from './fixture-repo.js';

const { tmp, cleanup } = scratch();
afterAll(cleanup);

describe('BM25 as FTS5 computes it', () => {
  it('sums the column sizes of a docsize row (SQLite varints)', () => {
    expect(docsizeTotal(Uint8Array.from([0x02, 0x00, 0x00, 0x62]))).toBe(100);
    // 0x81 0x00 is 128; 0x87 0x68 is 1,000.
    expect(docsizeTotal(Uint8Array.from([0x81, 0x00, 0x87, 0x68, 0x05]))).toBe(1133);
  });

  it('scores with k1 1.2, b 0.75, a floored idf and the row length over the mean; ties by row, at most limit', () => {
    // Rows 1..3 of sizes 10, 20, 30 (mean 20).
    const sizes = rowSizes(Float64Array.from([0, 10, 20, 30]), 3, 60);
    expect(sizes.rows).toBe(3);
    expect(sizes.norm[2]).toBeCloseTo(1.2, 12);
    const idf = bm25Idf(3, 1, Math.log);
    expect(idf).toBeCloseTo(Math.log(2.5 / 1.5), 12);
    // A term in every row has no weight left: FTS5 floors it at 1e-6.
    expect(bm25Idf(3, 3, Math.log)).toBe(1e-6);
    const rare = { idf, postings: { rows: Int32Array.from([3]), counts: Float64Array.from([2]) } };
    const everywhere = { idf: 1e-6, postings: { rows: Int32Array.from([1, 2, 3]), counts: Float64Array.from([1, 0, 1]) } };
    const out = bm25Best([rare, everywhere], sizes, 10);
    const norm3 = 1.2 * (0.25 + (0.75 * 30) / 20);
    expect(out[0]!.id).toBe(3);
    expect(out[0]!.s).toBeCloseTo(-(idf * (2 * 2.2) / (2 + norm3) + (1e-6 * 2.2) / (1 + norm3)), 15);
    // Row 2 holds the common term only in a column of weight 0 (count 0): it matches with score 0, last.
    expect(out.map((r) => r.id)).toEqual([3, 1, 2]);
    expect(out[2]!.s === 0).toBe(true);
    expect(bm25Best([everywhere], rowSizes(Float64Array.from([0, 10, 10, 10]), 3, 30), 2).map((r) => r.id)).toEqual([1, 3]);
  });
});

describe('plain search in a long-lived process', () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) {
    const words = ['parser', 'token', 'stream', 'buffer', 'render', 'layout', 'cache', 'window'];
    const body = Array.from({ length: 1 + (i % 7) }, (_, k) => `    # ${words[(i + k) % 8]} ${words[(i * 3 + k) % 8]} of part ${i}\n    x${k} = ${words[(i + 2 * k) % 8]}_value(${i})\n`).join('');
    files[`pkg/mod_${i}.py`] = `def fn_${i}_${['alpha', 'beta', 'gamma'][i % 3]}(value):\n${body}    return value\n`;
  }

  it('answers every later query with the scores and order of the first (FTS5), after files changed and were removed', async () => {
    const root = writeRepo(files);
    const cacheDir = tmp('nk-wf-cache-');
    openTextIndex(await indexRepo(root, { cacheDir }), textIndexFile(cacheDir, root)).close();
    // Changed, removed and new files: the persistent index's rows get new ids, with gaps where rows were deleted.
    writeFileSync(path.join(root, 'pkg/mod_3.py'), 'def fn_3(value):\n    # parser parser parser window\n    return value\n');
    rmSync(path.join(root, 'pkg/mod_5.py'));
    writeFileSync(path.join(root, 'pkg/extra.py'), 'def extra_render():\n    # render the layout window token by token\n    return 0\n');
    const index = await indexRepo(root, { cacheDir });
    const live = openTextIndex(index, textIndexFile(cacheDir, root));
    try {
      expect(live.stats.removed).toBeGreaterThan(0);
      const queries = [['parser'], ['parser', 'window'], ['token', 'stream', 'render', 'gamma'], ['layout'], ['cache', 'buffer', 'alpha', 'beta', 'extra', 'valu'], ['nosuchterm', 'token']];
      // Asked twice: the second round is answered from the counts kept by the first.
      for (const round of [1, 2]) {
        for (const q of queries) {
          // A fresh index's first query is FTS5's own.
          const cold = openTextIndex(index, false);
          try {
            expect([round, q, live.searchWhole(q, 1000)]).toEqual([round, q, cold.searchWhole(q, 1000)]);
          } finally {
            cold.close();
          }
        }
      }
    } finally {
      live.close();
    }
  });
});
