import { mkdir as mkdirCb, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { LruMap } from './lru.js';

const mkdirAsync = promisify(mkdirCb);

/** How to make a folder: nothing (known), the recursive mkdir (nothing known above it), or these levels, top first. */
type Plan = { kind: 'known' } | { kind: 'recursive' } | { kind: 'levels'; levels: string[] };

const code = (err: unknown) => (err as NodeJS.ErrnoException).code;

/**
 * Makes folders under a root, remembering (a bounded set) which ones it made or found: a new run's
 * `<run>/<flow>/routing` folder costs one mkdir per missing level below the nearest folder it knows (three for a new
 * run), where a recursive mkdir first walks up with failing calls (five or six). A remembered folder removed since
 * (ENOENT below it) falls back to the recursive mkdir. `ensure` blocks; `ensureAsync` runs on the thread pool, where
 * the folders of several new files are made at once (on a disk where a mkdir waits on the journal, that is what
 * keeps up: one file after another on one thread was 1.5× slower here).
 */
export class FolderMaker {
  private readonly known: LruMap<string, true>;

  constructor(
    private readonly root: string,
    maxKnown = 4096,
  ) {
    this.known = new LruMap(maxKnown);
  }

  /** Makes `dir` and its missing parents (synchronously). */
  ensure(dir: string): void {
    const plan = this.plan(dir);
    if (plan.kind === 'known') return;
    if (plan.kind === 'recursive') mkdirSync(dir, { recursive: true });
    else {
      try {
        for (const level of plan.levels) {
          try {
            mkdirSync(level);
          } catch (err) {
            if (code(err) !== 'EEXIST') throw err;
          }
        }
      } catch (err) {
        // A folder we knew was removed: forget what we knew, make the whole path.
        if (code(err) !== 'ENOENT') throw err;
        this.known.clear();
        mkdirSync(dir, { recursive: true });
      }
    }
    this.remember(dir);
  }

  /** Makes `dir` and its missing parents on the thread pool. */
  async ensureAsync(dir: string): Promise<void> {
    const plan = this.plan(dir);
    if (plan.kind === 'known') return;
    if (plan.kind === 'recursive') await mkdirAsync(dir, { recursive: true });
    else {
      try {
        for (const level of plan.levels) {
          try {
            await mkdirAsync(level);
          } catch (err) {
            if (code(err) !== 'EEXIST') throw err;
          }
        }
      } catch (err) {
        if (code(err) !== 'ENOENT') throw err;
        this.known.clear();
        await mkdirAsync(dir, { recursive: true });
      }
    }
    this.remember(dir);
  }

  private plan(dir: string): Plan {
    if (this.known.get(dir)) return { kind: 'known' };
    const missing: string[] = [];
    let d = dir;
    while (!this.known.get(d)) {
      const up = path.dirname(d);
      if (up === d || !this.within(d)) break;
      missing.push(d);
      d = up;
    }
    return this.known.get(d) ? { kind: 'levels', levels: missing.reverse() } : { kind: 'recursive' };
  }

  private remember(dir: string): void {
    for (let k = dir; this.within(k); k = path.dirname(k)) {
      this.known.set(k, true);
      if (k === this.root) break;
    }
  }

  private within(dir: string): boolean {
    return dir === this.root || dir.startsWith(this.root + path.sep);
  }
}
