// The full-text index written while the repository is parsed (a feed) must be the index a build after the parse
// makes: the same rows under the same ids, the same scores, whatever order the parse results arrive in.
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexRepo, type IndexSink } from '../../src/repomap/index.js';
import { openTextIndex, textIndexFile } from '../../src/navigator/index.js';
import { LEX_FIELDS_EXTRAS } from '../../src/navigator/retrieval/lex-fields.js';
import { textIndexFeed, type TextIndex } from '../../src/navigator/retrieval/text-index.js';
import { scratch, SHOP } from '../repomap/fixture.js';

const { tmp, cleanup } = scratch();
afterAll(cleanup);

/** The shop fixture plus two files of the same content (parsed once) and a compiled mirror of a source. */
function repo(): string {
  const dir = path.join(tmp('nk-feed-'), 'shop');
  cpSync(SHOP, dir, { recursive: true });
  mkdirSync(path.join(dir, 'pkg', 'a'), { recursive: true });
  mkdirSync(path.join(dir, 'pkg', 'b'), { recursive: true });
  for (const sub of ['a', 'b']) writeFileSync(path.join(dir, 'pkg', sub, 'same.py'), 'def refund_twice(order):\n    """Refund the order twice."""\n    return order\n');
  mkdirSync(path.join(dir, 'lib'), { recursive: true });
  mkdirSync(path.join(dir, 'src', 'lib'), { recursive: true });
  writeFileSync(path.join(dir, 'src', 'lib', 'ledger.ts'), 'export function ledgerBalance(): number {\n  return 0;\n}\n');
  writeFileSync(path.join(dir, 'lib', 'ledger.js'), 'export function ledgerBalance() {\n  return 0; // compiled\n}\n');
  return dir;
}

/** Hands the sink's batches over in reverse, one file at a time: the feed must still write rows in index order. */
function reversing(sink: IndexSink): IndexSink & { seen: number[]; flush(): void } {
  const held: Parameters<IndexSink['records']>[0][number][] = [];
  const seen: number[] = [];
  return {
    seen,
    begin: (files) => sink.begin(files),
    records: (batch) => {
      held.push(...batch);
      seen.push(...batch.map((r) => r.at));
    },
    flush() {
      for (const r of held.reverse()) sink.records([r]);
    },
  };
}

function sameIndex(a: TextIndex, b: TextIndex): void {
  expect(a.size).toBe(b.size);
  expect(a.stats.lexed).toBe(b.stats.lexed);
  for (const terms of [['refund'], ['refundtwice', 'order'], ['ledger', 'balanc'], ['ledgerbalance'], ['charg', 'stripe', 'format']]) {
    expect(a.search(terms, 50)).toEqual(b.search(terms, 50));
    for (const t of terms) expect([a.docFreq(t), a.filesWith(t)]).toEqual([b.docFreq(t), b.filesWith(t)]);
  }
}

describe('a text index fed during the parse', () => {
  it('holds what a build after the parse holds, whatever order the results come in', async () => {
    const dir = repo();
    const feed = textIndexFeed(false);
    const sink = reversing(feed);
    const index = await indexRepo(dir, { cacheDir: false, extras: LEX_FIELDS_EXTRAS, sink });
    // One of the two files of equal content is not parsed: the feed leaves it for the end.
    expect(sink.seen.length).toBe(index.files.length - 1);
    expect(feed.live).toBeDefined();
    sink.flush();
    expect(feed.live!.written.filter((w) => w === 1).length).toBe(index.files.length - 1);
    const fed = openTextIndex(index, false, feed);
    const built = openTextIndex(index, false);
    try {
      expect(fed.stats).toEqual(built.stats);
      expect(fed.filesWith('ledgerbalance')).toEqual(['src/lib/ledger.ts']);
      expect(fed.filesWith('refundtwice')).toEqual(['pkg/a/same.py', 'pkg/b/same.py']);
      sameIndex(fed, built);
    } finally {
      fed.close();
      built.close();
    }
  });

  it('writes a new index file, and leaves an existing one or one with a sibling to the build after the parse', async () => {
    const dir = repo();
    const cacheDir = tmp('nk-feed-cache-');
    const index = await indexRepo(dir, { cacheDir: false, extras: LEX_FIELDS_EXTRAS });
    const dbFile = textIndexFile(cacheDir, index.root);
    const first = textIndexFeed(dbFile);
    await indexRepo(dir, { cacheDir: false, extras: LEX_FIELDS_EXTRAS, sink: first });
    expect(first.live?.origin).toBe(dbFile);
    const fed = openTextIndex(index, dbFile, first);
    const built = openTextIndex(index, false);
    try {
      sameIndex(fed, built);
    } finally {
      fed.close();
      built.close();
    }
    // The file exists now: a second feed stays idle and the index is synced as before (nothing to re-lex).
    const second = textIndexFeed(dbFile);
    await indexRepo(dir, { cacheDir: false, extras: LEX_FIELDS_EXTRAS, sink: second });
    expect(second.live).toBeUndefined();
    const warm = openTextIndex(index, dbFile, second);
    expect(warm.stats.lexed).toBe(0);
    warm.close();
    // Another repository's index beside it: no feed (the new index is seeded from that sibling instead).
    const other = path.join(path.dirname(dbFile), 'text-0000000000000000.sqlite');
    const third = textIndexFeed(other);
    await indexRepo(dir, { cacheDir: false, extras: LEX_FIELDS_EXTRAS, sink: third });
    expect(third.live).toBeUndefined();
    expect(existsSync(other)).toBe(false);
  });

  it('takes the fields it writes off the index run, and a build after a dropped feed lexes them again the same', async () => {
    const dir = repo();
    // Without a feed the run keeps every parsed file's fields for the build after it, which lets them go.
    const plain = await indexRepo(dir, { cacheDir: false, extras: LEX_FIELDS_EXTRAS });
    expect(plain.extras!.size).toBe(plain.files.length - 1);
    const built = openTextIndex(plain, false);
    expect(plain.extras!.size).toBe(0);
    // With a feed the fields go to it as they come: the run holds none of them to its end.
    const feed = textIndexFeed(false);
    const index = await indexRepo(dir, { cacheDir: false, extras: LEX_FIELDS_EXTRAS, sink: feed });
    expect(feed.live).toBeDefined();
    expect(index.extras!.size).toBe(0);
    // A feed dropped after the parse: the build reads and lexes the files again, to the same rows.
    feed.discard();
    const rebuilt = openTextIndex(index, false, feed);
    try {
      expect(rebuilt.stats).toEqual(built.stats);
      sameIndex(rebuilt, built);
    } finally {
      rebuilt.close();
      built.close();
    }
  });

  it('on one thread writes rows a chunk at a time as the files are read, before the list is complete; a list that disagrees drops it', async () => {
    const dir = repo();
    // Enough text for several chunks (the smallest chunk is 8 KiB).
    mkdirSync(path.join(dir, 'many'), { recursive: true });
    const comment = '    # a line of comment about the partial refund\n'.repeat(40);
    for (let k = 0; k < 24; k++) writeFileSync(path.join(dir, 'many', `m${k}.py`), `def refund_part_${k}(order):\n${comment}    return order\n`);
    const built = openTextIndex(await indexRepo(dir, { cacheDir: false, extras: LEX_FIELDS_EXTRAS }), false);
    const feed = textIndexFeed(false);
    let writtenAtBegin = -1;
    const sink: IndexSink = {
      open: (paths, bytes) => feed.open!(paths, bytes),
      begin: (files) => {
        writtenAtBegin = feed.live!.written.filter((w) => w === 1).length;
        feed.begin(files);
      },
      records: (batch) => feed.records(batch),
    };
    const index = await indexRepo(dir, { cacheDir: false, extras: LEX_FIELDS_EXTRAS, threads: 1, sink });
    // Most parsed files' rows were written as they were read, all but the last chunk's (one of the two equal files
    // is not parsed at all).
    expect(writtenAtBegin).toBeGreaterThan((index.files.length - 1) / 2);
    expect(writtenAtBegin).toBeLessThan(index.files.length - 1);
    const fed = openTextIndex(index, false, feed);
    try {
      sameIndex(fed, built);
    } finally {
      fed.close();
      built.close();
    }
    // Rows written early that the list does not name (another file at that place) drop the feed.
    const other = textIndexFeed(false);
    other.open!(['a.py', 'b.py'], 0);
    const record = index.files[0]!;
    expect(other.records([{ at: 0, path: 'a.py', language: 'python', hash: 'h1', record, extras: ['', ''] }])).toBe(true);
    other.begin([
      { path: 'b.py', language: 'python', hash: 'h1', parsed: true },
      { path: 'a.py', language: 'python', hash: 'h2', parsed: true },
    ]);
    expect(other.live).toBeUndefined();
  });

  it('is dropped when the index it is finished with lists other files, and the build after the parse takes over', async () => {
    const dir = repo();
    const cacheDir = tmp('nk-feed-cache-');
    const feed = textIndexFeed(path.join(cacheDir, 'navigator', 'text-feedtest.sqlite'));
    const index = await indexRepo(dir, { cacheDir: false, extras: LEX_FIELDS_EXTRAS, sink: feed });
    expect(feed.live).toBeDefined();
    // Fewer files than the feed began with (and another database): the feed's file is deleted.
    const fewer = { ...index, files: index.files.slice(1) };
    const text = openTextIndex(fewer, false, feed);
    try {
      expect(feed.live).toBeUndefined();
      expect(readdirSync(path.join(cacheDir, 'navigator'))).toEqual([]);
      expect(text.size).toBe(index.files.length - 1);
    } finally {
      text.close();
    }
  });
});
