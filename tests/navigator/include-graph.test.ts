import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { includeEdges } from '../../src/navigator/retrieval/include-graph.js';
import { indexRepo } from '../../src/repomap/index.js';

const REPOS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/repos');

/** The edges as `from → to: weight` lines, by path. */
async function edgesOf(repo: string): Promise<string[]> {
  const index = await indexRepo(path.join(REPOS, repo), { cacheDir: false });
  const files = index.files;
  return includeEdges(files).flatMap((m, i) => [...m].map(([j, w]) => `${files[i]!.path} → ${files[j]!.path}: ${w.toFixed(3)}`));
}

describe('C and C++ module structure in the reference graph (include-graph)', () => {
  it('resolves quoted includes beside the file and up a folder, and ties a header to its source', async () => {
    const kv = await edgesOf('kvstore');
    // kv.h is included by two sources (the test is indexed as text): each edge weighs 1/√2; the header and its source are companions.
    expect(kv).toEqual([
      'src/kv.c → src/kv.h: 0.707',
      'src/kv.h → src/kv.c: 1.000',
      'src/main.c → src/kv.h: 0.707',
    ]);
    // Up a folder: `#include "../src/kv.h"` from tests/ (an outline of its own here).
    const index = await indexRepo(path.join(REPOS, 'kvstore'), { cacheDir: false });
    const files = index.files.map((f) => (f.path === 'tests/kv_test.c' ? { ...f, outline: { defs: [], refs: [], includes: ['assert.h', '../src/kv.h'] } } : f));
    const edges = includeEdges(files);
    const at = (p: string) => files.findIndex((f) => f.path === p);
    expect([...edges[at('tests/kv_test.c')]!.keys()]).toEqual([at('src/kv.h')]);
  });

  it('resolves an include by its path suffix (include/x/y.h), pairs include/x/y.h with src/y.cc, and leaves system headers out', async () => {
    const fmt = await edgesOf('tinyfmt');
    expect(fmt).toEqual(['include/tinyfmt/format.h → src/format.cc: 1.000', 'src/format.cc → include/tinyfmt/format.h: 1.000']);
  });
});
