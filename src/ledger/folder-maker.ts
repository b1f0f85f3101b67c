import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { LruMap } from './lru.js';

/**
 * Makes folders under a root, remembering (a bounded set) which ones it made or found: a new run's
 * `<run>/<flow>/routing` folder costs one mkdir per missing level below the nearest folder it knows (three for a new
 * run), where a recursive mkdir first walks up with failing calls (five or six). A remembered folder removed since
 * (ENOENT below it) falls back to the recursive mkdir.
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
    if (this.known.get(dir)) return;
    const missing: string[] = [];
    let d = dir;
    while (!this.known.get(d)) {
      const up = path.dirname(d);
      if (up === d || !this.within(d)) break;
      missing.push(d);
      d = up;
    }
    if (!this.known.get(d)) {
      mkdirSync(dir, { recursive: true });
    } else {
      try {
        for (let i = missing.length - 1; i >= 0; i--) {
          try {
            mkdirSync(missing[i]!);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
          }
        }
      } catch (err) {
        // A folder we knew was removed: forget what we knew, make the whole path.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        this.known.clear();
        mkdirSync(dir, { recursive: true });
      }
    }
    for (let k = dir; this.within(k); k = path.dirname(k)) {
      this.known.set(k, true);
      if (k === this.root) break;
    }
  }

  private within(dir: string): boolean {
    return dir === this.root || dir.startsWith(this.root + path.sep);
  }
}
