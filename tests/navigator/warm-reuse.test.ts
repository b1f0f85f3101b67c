// A long-lived process (`mcp`, the resident navigator, a library caller) asked again about an unchanged repository
// reuses what it built: the repo index's file records (the same array) and the open full-text index, and builds
// them again as soon as anything they describe changed — a file, the cache file, or the database written by
// another process.
import { cpSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { indexRepo } from '../../src/repomap/index.js';
import { navigate, openTextIndex, textIndexFile } from '../../src/navigator/index.js';
import { OPEN_MAX } from '../../src/navigator/retrieval/text-index.js';
import { scratch, SHOP } from '../repomap/fixture.js';

const { tmp, cleanup } = scratch();
afterAll(cleanup);

function shop(): string {
  const dir = path.join(tmp('nk-warm-'), 'shop');
  cpSync(SHOP, dir, { recursive: true });
  return dir;
}

describe('warm reuse in one process', () => {
  it('returns the same file records for an unchanged repository, counted as a warm run, and new ones after a change', async () => {
    const repo = shop();
    const cacheDir = tmp('nk-cache-');
    const first = await indexRepo(repo, { cacheDir });
    const second = await indexRepo(repo, { cacheDir });
    expect(second.files).toBe(first.files);
    expect(second.state_hash).toBe(first.state_hash);
    expect(second.stats).toEqual({ files: first.files.length, hashed: 0, parsed: 0, cache_hits: first.files.length, borrowed: 0, bytes_parsed: 0, threads: 1 });
    // The same stats a warm run in a new process gets (no memo: the cache file read from disk).
    const cold = await indexRepo(repo, { cacheDir: false });
    expect(second.files).toEqual(cold.files);

    // A file edited: its record is new, the others as before.
    const file = path.join(repo, 'src', 'util', 'format.ts');
    writeFileSync(file, 'export function formatPounds(p: number): string {\n  return String(p / 100);\n}\n');
    const edited = await indexRepo(repo, { cacheDir });
    expect(edited.files).not.toBe(first.files);
    expect(edited.stats.parsed).toBe(1);
    expect(edited.files.find((f) => f.path === 'src/util/format.ts')!.outline.defs.map((d) => d.name)).toContain('formatPounds');
    expect(edited.state_hash).not.toBe(first.state_hash);

    // Only the mtime changed: read and hashed again (as a new process would), the same records.
    const t = new Date(Date.now() + 5000);
    utimesSync(file, t, t);
    const touched = await indexRepo(repo, { cacheDir });
    expect(touched.files).not.toBe(edited.files);
    expect(touched.stats.hashed).toBe(1);
    expect(touched.files).toEqual(edited.files);
  });

  it('builds the records again when the cache file was deleted or replaced', async () => {
    const repo = shop();
    const cacheDir = tmp('nk-cache-');
    const first = await indexRepo(repo, { cacheDir });
    rmSync(path.join(cacheDir, 'repomap'), { recursive: true, force: true });
    const again = await indexRepo(repo, { cacheDir });
    expect(again.files).not.toBe(first.files);
    expect(again.stats.parsed).toBe(first.files.length);
    expect(again.files).toEqual(first.files);
  });

  it('keeps the open text index for the same files, and opens it again after another connection wrote it', async () => {
    const repo = shop();
    const cacheDir = tmp('nk-cache-');
    const index = await indexRepo(repo, { cacheDir });
    const dbFile = textIndexFile(cacheDir, index.root);
    const a = openTextIndex(index, dbFile);
    const hits = a.search(['refund'], 10);
    expect(hits.length).toBeGreaterThan(0);
    const b = openTextIndex(await indexRepo(repo, { cacheDir }), dbFile);
    expect(b).toBe(a);
    expect(b.stats).toEqual({ lexed: 0, removed: 0, files: index.files.length });
    expect(b.search(['refund'], 10)).toEqual(hits);

    // Another process drops a row: this one must not answer from what it remembered.
    const other = new Database(dbFile);
    const row = other.prepare('SELECT path, id FROM files ORDER BY path LIMIT 1').get() as { path: string; id: number };
    other.prepare('DELETE FROM fts WHERE rowid = ?').run(row.id);
    other.prepare('DELETE FROM files WHERE path = ?').run(row.path);
    other.close();
    const c = openTextIndex(index, dbFile);
    expect(c).not.toBe(a);
    expect(c.stats.lexed).toBe(1);
    expect(c.search(['refund'], 10)).toEqual(hits);
    c.close();
  });

  it('keeps at most OPEN_MAX text indexes open, closing the least recently used, which opens again on demand', async () => {
    const cacheDir = tmp('nk-cache-');
    const base = tmp('nk-many-');
    const opened: { index: Awaited<ReturnType<typeof indexRepo>>; ti: ReturnType<typeof openTextIndex> }[] = [];
    for (let i = 0; i <= OPEN_MAX; i++) {
      const repo = path.join(base, `r${i}`);
      mkdirSync(repo);
      writeFileSync(path.join(repo, 'refund.py'), `def refund_${i}(order):\n    return order.total\n`);
      const index = await indexRepo(repo, { cacheDir });
      opened.push({ index, ti: openTextIndex(index, textIndexFile(cacheDir, index.root)) });
      // The first one used again before the others: it is the most recently used, the second the least.
      if (i === 1) expect(openTextIndex(opened[0]!.index, textIndexFile(cacheDir, opened[0]!.index.root))).toBe(opened[0]!.ti);
    }
    expect(opened[0]!.ti.search(['refund'], 5).map((h) => h.path)).toEqual(['refund.py']);
    expect(() => opened[1]!.ti.search(['refund'], 5)).toThrow(/not open/);
    const again = openTextIndex(opened[1]!.index, textIndexFile(cacheDir, opened[1]!.index.root));
    expect(again).not.toBe(opened[1]!.ti);
    expect(again.stats.lexed).toBe(0);
    expect(again.search(['refund'], 5).map((h) => h.path)).toEqual(['refund.py']);
    for (const o of opened) o.ti.close();
    again.close();
  });

  it('navigates an unchanged repository again to the same artifacts', async () => {
    const repo = shop();
    const cacheDir = tmp('nk-cache-');
    const task = 'refund total is wrong when formatting pounds';
    const first = await navigate({ task, repo_root: repo }, { cacheDir });
    const second = await navigate({ task, repo_root: repo }, { cacheDir });
    expect(second.artifacts).toEqual(first.artifacts);
    expect(second.index_stats).toEqual({ ...first.index_stats, parsed: 0, hashed: 0, cache_hits: first.index_stats!.files, threads: 1, bytes_parsed: 0, borrowed: 0 });
  });
});
