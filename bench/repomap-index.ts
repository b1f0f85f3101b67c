// Bench: the repo map's cold and warm index on real trees, each run in a fresh Node process (so cold
// includes loading grammars, compiling queries and building the tokenizer, and the peak RSS is the run's own).
// Run: `npx tsc -p tsconfig.json && node dist/bench/repomap-index.js [--quick]`.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../src/package-root.js';
import { indexRepo } from '../src/repomap/index.js';
import { table, type BenchSection } from './stats.js';

// The trees of the navigator bench (not imported from it: the child would load the navigator too).
const TREES = { medium: 'node_modules/zod/src', large: 'node_modules/@langchain/core/dist' } as const;

interface IndexRun {
  ms: number;
  files: number;
  parsed: number;
  bytes: number;
  rss_mb: number;
}

function run(dir: string, cacheDir: string): IndexRun {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'child', dir, cacheDir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`repomap-index child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as IndexRun;
}

async function child(dir: string, cacheDir: string): Promise<void> {
  const t0 = performance.now();
  const index = await indexRepo(dir, { cacheDir });
  const ms = performance.now() - t0;
  const out: IndexRun = { ms, files: index.files.length, parsed: index.stats.parsed, bytes: index.files.reduce((s, f) => s + f.bytes, 0), rss_mb: process.resourceUsage().maxRSS / 1024 };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/** Cold (empty cache) then warm (same cache) index of each tree, copied out of node_modules first. */
export async function benchRepomapIndex(opts: { quick: boolean }): Promise<BenchSection> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'nk-bench-repomap-'));
  try {
    const keys: (keyof typeof TREES)[] = opts.quick ? ['medium'] : ['medium', 'large'];
    const rows: (string | number)[][] = [];
    const figures: Record<string, number> = {};
    for (const key of keys) {
      const dir = path.join(base, key);
      cpSync(path.join(packageRoot(), TREES[key]), dir, { recursive: true });
      const cache = mkdtempSync(path.join(base, 'cache-'));
      const cold = run(dir, cache);
      const warm = run(dir, cache);
      const mb = cold.bytes / 2 ** 20;
      rows.push([TREES[key], cold.files, mb.toFixed(1), cold.ms, cold.parsed / (cold.ms / 1000), mb / (cold.ms / 1000), warm.ms, warm.parsed, Math.max(cold.rss_mb, warm.rss_mb)]);
      Object.assign(figures, { [`${key}_cold_ms`]: cold.ms, [`${key}_files_per_s`]: cold.parsed / (cold.ms / 1000), [`${key}_mb_per_s`]: mb / (cold.ms / 1000), [`${key}_warm_ms`]: warm.ms, [`${key}_peak_rss_mb`]: Math.max(cold.rss_mb, warm.rss_mb) });
    }
    const body = [
      'Each run is a fresh Node process calling `indexRepo` (scan, read, hash, tree-sitter outline, o200k token count); cold starts with an empty cache, warm reuses it.',
      '',
      table(['tree', 'files', 'MB', 'cold ms', 'files/s cold', 'MB/s cold', 'warm ms', 'parsed warm', 'peak RSS MB'], rows),
    ].join('\n');
    return { title: 'Repo map index', body, figures };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mode, dir, cacheDir] = process.argv.slice(2);
  const main = mode === 'child' ? child(dir!, cacheDir!) : benchRepomapIndex({ quick: process.argv.includes('--quick') }).then((s) => process.stdout.write(`## ${s.title}\n\n${s.body}\n`));
  main.catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 1;
  });
}
