// A navigation answers before it writes its caches (the repo index's JSON, the full-text index's database): they
// are written on the next turn of the event loop, or at once when anything reads the caches first. A full-text index
// built in memory is written to its file whole, and a database file that cannot be read is rebuilt, not an error.
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheWritesPending } from '../../src/repomap/cache-writes.js';
import { indexRepo } from '../../src/repomap/index.js';
import { navigate, openTextIndex, textIndexFile } from '../../src/navigator/index.js';
import { LEX_FIELDS_EXTRAS } from '../../src/navigator/retrieval/lex-fields.js';
import { textIndexFeed } from '../../src/navigator/retrieval/text-index.js';
import { scratch, SHOP } from '../repomap/fixture.js';

const { tmp, cleanup } = scratch();
afterAll(cleanup);

function shop(): string {
  const dir = path.join(tmp('nk-writes-'), 'shop');
  cpSync(SHOP, dir, { recursive: true });
  return dir;
}

const cacheFiles = (cacheDir: string) =>
  ['repomap', 'navigator'].flatMap((d) => (existsSync(path.join(cacheDir, d)) ? readdirSync(path.join(cacheDir, d)).filter((n) => /\.(json|sqlite)$/.test(n)) : []));

const task = 'refund total is wrong when formatting pounds';

describe('cache writes after the answer', () => {
  it('writes a navigation\'s caches once it has answered, on the next turn of the event loop', async () => {
    const repo = shop();
    const cacheDir = tmp('nk-writes-cache-');
    const first = await navigate({ task, repo_root: repo }, { cacheDir });
    expect(first.exit).toBe('EXIT_PASS');
    // Answered: the index JSON and the text database are still to be written.
    expect(cacheWritesPending()).toBe(2);
    expect(cacheFiles(cacheDir)).toEqual([]);
    await nextTurn();
    expect(cacheWritesPending()).toBe(0);
    expect(cacheFiles(cacheDir).sort()).toEqual([expect.stringMatching(/^index-.*\.json$/), expect.stringMatching(/^text-.*\.sqlite$/)]);
  });

  it('writes them before the next navigation reads the caches, which is then a warm run', async () => {
    const repo = shop();
    const cacheDir = tmp('nk-writes-cache-');
    const first = await navigate({ task, repo_root: repo }, { cacheDir });
    expect(cacheWritesPending()).toBe(2);
    // No turn of the event loop in between.
    const second = await navigate({ task, repo_root: repo }, { cacheDir });
    expect(second.artifacts).toEqual(first.artifacts);
    expect(second.index_stats).toMatchObject({ parsed: 0, hashed: 0, cache_hits: first.index_stats!.files });
    await nextTurn();
    expect(cacheWritesPending()).toBe(0);
  });

  it('writes a fed index built in memory to its file whole: a new connection reads the same index, re-lexing nothing', async () => {
    const repo = shop();
    const cacheDir = tmp('nk-writes-cache-');
    const index = await indexRepo(repo, { cacheDir: false, extras: LEX_FIELDS_EXTRAS });
    const dbFile = textIndexFile(cacheDir, index.root);
    const feed = textIndexFeed(dbFile);
    await indexRepo(repo, { cacheDir: false, extras: LEX_FIELDS_EXTRAS, sink: feed });
    // Nothing of it on disk while it is being fed.
    expect(existsSync(dbFile)).toBe(false);
    const fed = openTextIndex(index, dbFile, feed);
    // Not held by a navigation: written at once.
    expect(existsSync(dbFile)).toBe(true);
    const expected = fed.search(['refund', 'pound'], 10);
    fed.close();
    const reopened = openTextIndex(index, dbFile);
    try {
      expect(reopened.stats.lexed).toBe(0);
      expect(reopened.search(['refund', 'pound'], 10)).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);
    } finally {
      reopened.close();
    }
  });

  it('rebuilds a text database file that cannot be read (a cache left broken) instead of failing', async () => {
    const repo = shop();
    const cacheDir = tmp('nk-writes-cache-');
    const index = await indexRepo(repo, { cacheDir: false, extras: LEX_FIELDS_EXTRAS });
    const dbFile = textIndexFile(cacheDir, index.root);
    const good = openTextIndex(index, false);
    const expected = good.search(['refund', 'pound'], 10);
    good.close();
    mkdirSync(path.dirname(dbFile), { recursive: true });
    writeFileSync(dbFile, 'not a database, a file cut short by a crash'.repeat(200));
    const rebuilt = openTextIndex(index, dbFile);
    try {
      expect(rebuilt.stats.lexed).toBe(index.files.length);
      expect(rebuilt.search(['refund', 'pound'], 10)).toEqual(expected);
    } finally {
      rebuilt.close();
    }
  });
});
