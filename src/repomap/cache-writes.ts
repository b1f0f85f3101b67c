import path from 'node:path';

/**
 * Cache writes held back until an answer is given. A cold index of a large repository ends by writing its caches
 * (the repo index's JSON, the full-text index's database): ~0.2–0.3 s of CPU and disk on a sympy-sized tree that
 * nothing in the navigation itself reads. A caller holding the writes (a navigation, see holdCacheWrites) gets its
 * answer first; the writes run on the event loop's next turn after the last holder lets go — a short-lived CLI
 * process still runs them before it exits (a queued immediate keeps it alive) — or at once, in the order queued,
 * when anything reads the caches before that (flushCacheWrites). Nothing held: a write runs at once, as before.
 */
const pending: { file: string; write: () => void }[] = [];
let holders = 0;
let scheduled = false;

/**
 * Runs `write` (of the cache file `file`) now, or queues it while a holder is open. A queued write that fails is
 * dropped: the cache is built again next time.
 */
export function writeCache(file: string, write: () => void): void {
  if (holders === 0 && !pending.some((p) => p.file === file)) write();
  else pending.push({ file, write });
}

/**
 * Runs the queued writes of the cache files in folder `dir` (every queued write without one) now, in the order
 * queued: before a cache is read — or a sibling cache of the folder borrowed from — so a reader never misses one.
 */
export function flushCacheWrites(dir?: string): void {
  const due = pending.filter((p) => dir === undefined || path.dirname(p.file) === dir);
  if (!due.length) return;
  pending.splice(0, pending.length, ...pending.filter((p) => !due.includes(p)));
  for (const { write } of due) {
    try {
      write();
    } catch {
      // best effort: a cache not written is rebuilt next time
    }
  }
}

/** Whether writes are queued (for tests and diagnostics). */
export function cacheWritesPending(): number {
  return pending.length;
}

/** Holds cache writes until the returned release is called (once; later calls do nothing). */
export function holdCacheWrites(): () => void {
  holders++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holders--;
    if (holders === 0 && pending.length && !scheduled) {
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        if (holders === 0) flushCacheWrites();
      });
    }
  };
}
