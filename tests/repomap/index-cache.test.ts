// The repo index's cache by content and its parse workers: a tree seen at another commit re-parses only what
// changed, and the records are the same bytes whatever the threads.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { indexRepo, scanRepo } from '../../src/repomap/index.js';
import { extractFileRecord, type FileRecordInput } from '../../src/repomap/file-record.js';
import { CACHE_KEEP, pruneCaches } from '../../src/repomap/repo-index.js';
import { languageOf } from '../../src/repomap/languages.js';
import { scratch, SHOP } from './fixture.js';

const { tmp, cleanup } = scratch();
afterAll(cleanup);

/** A copy of the shop fixture at `dir/name`. */
function copy(dir: string, name: string): string {
  const dest = path.join(dir, name);
  cpSync(SHOP, dest, { recursive: true });
  return dest;
}

describe('indexRepo at another commit', () => {
  it('borrows the records of unchanged content from the sibling cache and parses only the changed file', async () => {
    const base = tmp('nk-commits-');
    const cacheDir = tmp('nk-cache-');
    const a = copy(base, 'a');
    const first = await indexRepo(a, { cacheDir });
    expect(first.stats.parsed).toBe(first.files.length);
    const b = copy(base, 'b');
    writeFileSync(path.join(b, 'src', 'util', 'format.ts'), 'export function formatPounds(c: number): string {\n  return String(c);\n}\n');
    const other = await indexRepo(b, { cacheDir });
    expect(other.stats.parsed).toBe(1);
    expect(other.stats.borrowed).toBe(other.files.length - 1);
    // The same index as a cold run of the same tree without any cache.
    const cold = await indexRepo(b, { cacheDir: false });
    expect(other.files).toEqual(cold.files);
    expect(other.state_hash).toBe(cold.state_hash);
    // Its own cache now: a second run parses and borrows nothing.
    const again = await indexRepo(b, { cacheDir });
    expect([again.stats.parsed, again.stats.borrowed, again.stats.hashed]).toEqual([0, 0, 0]);
  });

  it('keeps the newest cache files of a folder and deletes the rest', () => {
    const dir = tmp('nk-prune-');
    const names = Array.from({ length: CACHE_KEEP + 3 }, (_, i) => `index-${String(i).padStart(2, '0')}.json`);
    names.forEach((n, i) => {
      writeFileSync(path.join(dir, n), '{}');
      utimesSync(path.join(dir, n), 1_000 + i, 1_000 + i);
    });
    writeFileSync(path.join(dir, 'other.txt'), 'kept');
    pruneCaches(dir, 'index-', '.json');
    const left = readdirSync(dir).sort();
    expect(left).toEqual([...names.slice(3), 'other.txt'].sort());
  });
});

describe('parsing on worker threads', () => {
  // Workers run the compiled worker file: this part reads the build (`npm test` builds first).
  const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/src');
  const built = existsSync(path.join(dist, 'repomap', 'extract-worker.js'));

  it.runIf(built)('gives the same records and extras, in the same order, on two threads as on one', async () => {
    const { extractAll } = (await import(pathToFileURL(path.join(dist, 'repomap', 'extract-pool.js')).href)) as typeof import('../../src/repomap/extract-pool.js');
    const { LEX_FIELDS_EXTRAS } = (await import(pathToFileURL(path.join(dist, 'navigator', 'retrieval', 'lex-fields.js')).href)) as typeof import('../../src/navigator/retrieval/lex-fields.js');
    const scan = scanRepo(SHOP);
    // Many small chunks' worth: the fixture repeated, so both threads get work.
    const items: FileRecordInput[] = [];
    for (let k = 0; k < 40; k++)
      for (const f of scan.files)
        items.push({ path: f.path, language: languageOf(f.path), text: readFileSync(path.join(scan.root, f.path), 'utf8') + `\n// copy ${k}\n`.repeat(k % 3), unparsed: false });
    const one = await extractAll(items, { threads: 1, extras: LEX_FIELDS_EXTRAS });
    const two = await extractAll(items, { threads: 2, extras: LEX_FIELDS_EXTRAS });
    expect(one.threads).toBe(1);
    expect(two.threads).toBe(2);
    expect(two.by_workers).toBeGreaterThan(0);
    expect(JSON.stringify(two.results)).toBe(JSON.stringify(one.results));
    // And the same as the record function called directly.
    expect(one.results[5]!.record).toEqual(await extractFileRecord(items[5]!));
    expect(Array.isArray(one.results[5]!.extras)).toBe(true);
  });

  it('on one thread, eager, parses a chunk at a time as items are added and reports them in order (the results of a plain run)', async () => {
    const { extractAll, startExtraction } = await import('../../src/repomap/extract-pool.js');
    const scan = scanRepo(SHOP);
    const items: FileRecordInput[] = [];
    for (let k = 0; k < 6; k++)
      for (const f of scan.files) items.push({ path: f.path, language: languageOf(f.path), text: readFileSync(path.join(scan.root, f.path), 'utf8') + `\n// copy ${k}\n`, unparsed: false });
    const plain = await extractAll(items, { threads: 1 });
    const seen: number[] = [];
    // An expected size of 1 character: chunks of the smallest size, 8 KiB of text.
    const eager = startExtraction(1, { threads: 1, eager: true, onResults: (ks) => seen.push(...ks) });
    expect(eager.ordered).toBe(true);
    let most = 0;
    for (const [k, it] of items.entries()) {
      eager.add(it);
      await eager.pause();
      // Reported in order, and what is not reported yet is less than a chunk of text.
      expect(seen).toEqual(items.slice(0, seen.length).map((_, i) => i));
      const waiting = items.slice(seen.length, k + 1).reduce((n, x) => n + x.text.length, 0);
      expect(waiting).toBeLessThan(8 * 1024);
      most = Math.max(most, seen.length);
    }
    expect(most).toBeGreaterThan(items.length / 2);
    const done = await eager.finish();
    expect(seen.length).toBe(items.length);
    expect(JSON.stringify(done.results)).toBe(JSON.stringify(plain.results));
    // Not eager: nothing is parsed before finish().
    const lazy: number[] = [];
    const late = startExtraction(1, { threads: 1, onResults: (ks) => lazy.push(...ks) });
    expect(late.ordered).toBe(false);
    for (const it of items) late.add(it);
    await late.pause();
    expect(lazy).toEqual([]);
    await late.finish();
    expect(lazy.length).toBe(items.length);
  });

  it.runIf(built)('streams: items added while the workers run give the results of one thread, reported chunk by chunk; a cancel stops the workers', async () => {
    const { extractAll, startExtraction } = (await import(pathToFileURL(path.join(dist, 'repomap', 'extract-pool.js')).href)) as typeof import('../../src/repomap/extract-pool.js');
    const { LEX_FIELDS_EXTRAS } = (await import(pathToFileURL(path.join(dist, 'navigator', 'retrieval', 'lex-fields.js')).href)) as typeof import('../../src/navigator/retrieval/lex-fields.js');
    const scan = scanRepo(SHOP);
    const items: FileRecordInput[] = [];
    for (let k = 0; k < 40; k++)
      for (const f of scan.files) items.push({ path: f.path, language: languageOf(f.path), text: readFileSync(path.join(scan.root, f.path), 'utf8') + `\n// copy ${k}\n`, unparsed: false });
    const one = await extractAll(items, { threads: 1, extras: LEX_FIELDS_EXTRAS });
    const seen = new Map<number, string>();
    let early = 0;
    let parallel = 0;
    const run = startExtraction(
      items.reduce((s, it) => s + it.text.length, 0),
      {
        threads: 2,
        extras: LEX_FIELDS_EXTRAS,
        onResults: (ks, rs) => ks.forEach((k, j) => seen.set(k, JSON.stringify(rs[j]))),
        whileParsing: () => parallel++,
      },
    );
    for (const [k, it] of items.entries()) {
      run.add(it);
      // Now and then the loop lets the workers' answers in, as the index's reading loop does.
      if (k % 50 === 49) {
        await run.pause();
        early = seen.size;
      }
    }
    const streamed = await run.finish();
    expect(streamed.threads).toBe(2);
    expect(parallel).toBe(1);
    expect(JSON.stringify(streamed.results)).toBe(JSON.stringify(one.results));
    expect(seen.size).toBe(items.length);
    expect(seen.get(7)).toBe(JSON.stringify(one.results[7]));
    expect(early).toBeLessThan(items.length);
    // A cancelled extraction ends its workers (the process would not exit otherwise) and reports nothing more.
    const cancelled = startExtraction(8 * 1024 * 1024, { threads: 2, extras: LEX_FIELDS_EXTRAS, onResults: () => expect.fail('no results after a cancel') });
    cancelled.add(items[0]!);
    await cancelled.cancel();
  });

  it.runIf(built)('a cold index large enough for workers gives the records and lexed fields of one thread', async () => {
    const { indexRepo: indexBuilt } = (await import(pathToFileURL(path.join(dist, 'repomap', 'repo-index.js')).href)) as typeof import('../../src/repomap/repo-index.js');
    const { LEX_FIELDS_EXTRAS } = (await import(pathToFileURL(path.join(dist, 'navigator', 'retrieval', 'lex-fields.js')).href)) as typeof import('../../src/navigator/retrieval/lex-fields.js');
    const root = tmp('nk-large-');
    // ~2.6 MB of Python over 40 modules: past the size at which workers start.
    for (let m = 0; m < 40; m++) {
      mkdirSync(path.join(root, `pkg${m % 3}`), { recursive: true });
      const body = Array.from({ length: 900 }, (_, i) => `def f${m}_${i}(x):\n    # square of x (${i})\n    return helper_${i % 7}(x) * x\n\n`).join('');
      writeFileSync(path.join(root, `pkg${m % 3}`, `mod${m}.py`), body);
    }
    const single = await indexBuilt(root, { cacheDir: false, threads: 1, extras: LEX_FIELDS_EXTRAS });
    const parallel = await indexBuilt(root, { cacheDir: false, threads: 2, extras: LEX_FIELDS_EXTRAS });
    expect(single.stats.bytes_parsed).toBeGreaterThan(2 * 1024 * 1024);
    expect(parallel.stats.threads).toBe(2);
    expect(JSON.stringify(parallel.files)).toBe(JSON.stringify(single.files));
    expect(JSON.stringify([...parallel.extras!])).toBe(JSON.stringify([...single.extras!]));
  });
});
