// The ranking's reference graph kept beside the text index: the compressed rows walk the graph in the same order
// as lists of edges (so the same scores to the last bit), survive a round trip through bytes and SQLite, are read
// back instead of rebuilt, and are rebuilt when a file changes. (That picks and ranges stay byte-identical on real
// repositories was checked on SWE-bench tasks against main's build: see docs/warm-start.md.)
import { cpSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexRepo } from '../../src/repomap/index.js';
import { extractMagicWords, loadRegistry, openTextIndex, rankForTask, textIndexFile } from '../../src/navigator/index.js';
import { adjacencyKey, cachedAdjacency, decodeAdjacency, type DerivedStore, encodeAdjacency, undirected } from '../../src/navigator/retrieval/reference-adjacency.js';
import { scratch, SHOP } from '../repomap/fixture.js';

const { tmp, cleanup } = scratch();
afterAll(cleanup);

/** A seeded pseudo-random directed graph (no self edges, targets ascending as referenceGraph makes them). */
function randomEdges(n: number, seed: number): { to: number; w: number }[][] {
  let a = seed;
  const next = () => ((a = (Math.imul(a, 1103515245) + 12345) >>> 0) / 2 ** 32);
  return Array.from({ length: n }, (_, i) => {
    const targets = new Set<number>();
    const k = Math.floor(next() * 6);
    for (let j = 0; j < k; j++) {
      const t = Math.floor(next() * n);
      if (t !== i) targets.add(t);
    }
    return [...targets].sort((x, y) => x - y).map((to) => ({ to, w: Math.sqrt(1 + Math.floor(next() * 9)) / (1 + Math.floor(next() * 3)) }));
  });
}

/** Memory store that counts its reads and writes. */
function countingStore(): DerivedStore & { gets: number; sets: number; data: Map<string, Uint8Array> } {
  const data = new Map<string, Uint8Array>();
  const s = {
    gets: 0,
    sets: 0,
    data,
    get: (k: string) => (s.gets++, data.get(k)),
    set: (k: string, v: Uint8Array) => (s.sets++, void data.set(k, v)),
  };
  return s;
}

describe('reference adjacency', () => {
  it('lists each file\'s neighbours in the order lists of edge objects would, with the same weight totals', () => {
    const edges = randomEdges(200, 7);
    // What the walk used to build: both directions pushed in file order, totals summed in list order.
    const lists: { to: number; w: number }[][] = Array.from({ length: edges.length }, () => []);
    edges.forEach((list, i) => {
      for (const e of list) {
        lists[i]!.push(e);
        lists[e.to]!.push({ to: i, w: e.w });
      }
    });
    const a = undirected(edges);
    for (let i = 0; i < edges.length; i++) {
      const row = [];
      for (let k = a.offsets[i]!; k < a.offsets[i + 1]!; k++) row.push({ to: a.to[k], w: a.w[k] });
      expect(row).toEqual(lists[i]);
      expect(a.total[i]).toBe(lists[i]!.reduce((s, e) => s + e.w, 0));
    }
  });

  it('round-trips through bytes exactly and refuses bytes of another layout', () => {
    const a = undirected(randomEdges(50, 3));
    const bytes = encodeAdjacency(a);
    // An unaligned copy, as a database may hand it back.
    const shifted = new Uint8Array(bytes.length + 3).subarray(3);
    shifted.set(bytes);
    const b = decodeAdjacency(shifted)!;
    expect([...b.offsets]).toEqual([...a.offsets]);
    expect([...b.to]).toEqual([...a.to]);
    expect([...b.w]).toEqual([...a.w]);
    expect([...b.total]).toEqual([...a.total]);
    expect(decodeAdjacency(bytes.subarray(0, bytes.length - 4))).toBeUndefined();
    expect(decodeAdjacency(new Uint8Array([1, 2, 3]))).toBeUndefined();
  });

  it('is read from the store instead of rebuilt, and rebuilt when a file\'s content changes', async () => {
    const index = await indexRepo(SHOP, { cacheDir: false });
    const edges = randomEdges(index.files.length, 11);
    const rules = `rules of this test ${process.pid} ${Date.now()}`;
    const rebuilt = () => {
      throw new Error('rebuilt although stored');
    };
    // Missing: built and stored under its key.
    const store = countingStore();
    const built = cachedAdjacency(index.files, store, rules, () => undirected(edges));
    expect([store.gets, store.sets, [...store.data.keys()]]).toEqual([1, 1, [adjacencyKey(index.files, rules)]]);
    expect(cachedAdjacency(index.files, store, rules, rebuilt)).toBe(built);
    // Stored by another process under the key: read, not built.
    const other = `${rules} (other rules)`;
    const fromDisk = countingStore();
    fromDisk.data.set(adjacencyKey(index.files, other), encodeAdjacency(undirected(edges)));
    const read = cachedAdjacency(index.files, fromDisk, other, rebuilt);
    expect([...read.w]).toEqual([...built.w]);
    expect(fromDisk.sets).toBe(0);
    // One file's content changed: another key, built again.
    const changed = index.files.map((f, i) => (i === 0 ? { ...f, hash: '0'.repeat(64) } : f));
    expect(adjacencyKey(changed, rules)).not.toBe(adjacencyKey(index.files, rules));
    let builds = 0;
    cachedAdjacency(changed, store, rules, () => (builds++, undirected(edges)));
    expect(builds).toBe(1);
  });

  it('is kept in the text index database, on disk and bounded', async () => {
    const repo = path.join(tmp('nk-adj-'), 'shop');
    cpSync(SHOP, repo, { recursive: true });
    writeFileSync(path.join(repo, 'src', 'refund-note.ts'), 'import { refund } from "./payments";\nexport function refundNote(id: string) {\n  return refund(id);\n}\n');
    const cacheDir = tmp('nk-adj-cache-');
    const task = 'refund a charge through stripe';
    const rank = async (dir: string) => {
      const index = await indexRepo(repo, { cacheDir: dir });
      const registry = loadRegistry(index, { cacheDir: dir });
      try {
        const { words } = extractMagicWords(task, undefined, registry);
        return rankForTask(task, words, index, registry.text, () => true).files;
      } finally {
        registry.text.close();
      }
    };
    expect((await rank(cacheDir)).some((f) => f.graph > 0)).toBe(true);
    const index = await indexRepo(repo, { cacheDir });
    const text = openTextIndex(index, textIndexFile(cacheDir, index.root));
    try {
      expect(text.derived).toBeDefined();
      text.derived!.set('probe', new Uint8Array([1, 2, 3]));
      expect([...text.derived!.get('probe')!]).toEqual([1, 2, 3]);
    } finally {
      text.close();
    }
    // Reopened: the values are on disk.
    const reopened = openTextIndex(index, textIndexFile(cacheDir, index.root));
    try {
      expect([...reopened.derived!.get('probe')!]).toEqual([1, 2, 3]);
      // Bounded: past its limit the table starts over.
      for (let i = 0; i < 20; i++) reopened.derived!.set(`k${i}`, new Uint8Array([i]));
      expect(reopened.derived!.get('probe')).toBeUndefined();
      expect([...reopened.derived!.get('k19')!]).toEqual([19]);
    } finally {
      reopened.close();
    }
  });
});
