// How many threads a cold index is parsed on: workers only on cores the machine's load leaves idle.
import os from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractThreads, MIN_PARALLEL_BYTES } from '../../src/repomap/extract-pool.js';
import { estimateIndexMs, PARSE_BYTES_PER_MS, PYTHON_BYTES_PER_MS } from '../../src/repomap/repo-index.js';

describe('extractThreads', () => {
  const big = 40 * 1024 * 1024;
  const cores = os.availableParallelism();
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.NAVKERNEL_INDEX_THREADS;
    delete process.env.NAVKERNEL_INDEX_THREADS;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.NAVKERNEL_INDEX_THREADS;
    else process.env.NAVKERNEL_INDEX_THREADS = saved;
  });

  it('uses the idle cores (at most 4) on a quiet machine, and this thread alone when every core is busy', () => {
    expect(extractThreads(big, undefined, [0, 0, 0])).toBe(Math.min(4, cores));
    expect(extractThreads(big, undefined, [cores, 0, 0])).toBe(1);
    expect(extractThreads(big, undefined, [cores + 6.5, 0, 0])).toBe(1);
    // One core's worth of load leaves the others (rounded up).
    expect(extractThreads(big, undefined, [0.4, 0, 0])).toBe(Math.min(4, cores));
    expect(extractThreads(big, undefined, [1, 0, 0])).toBe(Math.max(1, Math.min(4, cores - 1)));
  });

  it('keeps one thread for a small input, and a requested count or NAVKERNEL_INDEX_THREADS over the load', () => {
    expect(extractThreads(MIN_PARALLEL_BYTES - 1, undefined, [0, 0, 0])).toBe(1);
    expect(extractThreads(big, 3, [cores * 2, 0, 0])).toBe(3);
    process.env.NAVKERNEL_INDEX_THREADS = '2';
    expect(extractThreads(big, undefined, [cores * 2, 0, 0])).toBe(2);
  });
});

describe('estimateIndexMs', () => {
  const mb = 30 * 1024 * 1024;

  it('counts Python (read lexically) faster than other files, shares the work over the threads, and nothing for nothing', () => {
    expect(PYTHON_BYTES_PER_MS).toBeGreaterThan(PARSE_BYTES_PER_MS);
    expect(estimateIndexMs(0, 2)).toBe(0);
    const rust = estimateIndexMs(mb, 1);
    const python = estimateIndexMs(mb, 1, mb);
    expect(python).toBeLessThan(rust);
    // Half Python, half not: between the two.
    expect(estimateIndexMs(mb, 1, mb / 2)).toBeGreaterThan(python);
    expect(estimateIndexMs(mb, 1, mb / 2)).toBeLessThan(rust);
    expect(estimateIndexMs(mb, 2, mb)).toBeLessThan(python);
  });
});
