import type { FileLanguage } from '../../repomap/languages.js';
import { ablated } from './ablation.js';

/** Lines a cut window may grow on each side, at most (±RADIUS + this). */
export const GROWTH_LINES = 5;

/** Languages whose cut windows grow: brace languages with long functions, where the edit often sits a few lines off the densest line. */
const GROWING = new Set<FileLanguage>(['rust', 'c', 'cpp']);

/** A word window cut from a definition too long to show whole: the window's lines and the definition's. */
export interface CutWindow {
  a: number;
  b: number;
  start: number;
  end: number;
}

/**
 * The lines to add around the cut windows of a Rust, C or C++ file with `room` lines of its allowance unused (switch
 * `window-growth`): each window grows one line on each side per round, densest window first, within its definition,
 * GROWTH_LINES per side at most. In a long function a window of ±3 lines centred on the densest line of the task's
 * words often misses the statement a fix changes by a few lines (own Rust sets: 15 of 34 line misses); the lines are
 * the file's own, unused, so no other file loses any. `chosen` are the lines already shown.
 */
export function windowGrowth(language: FileLanguage | undefined, cut: readonly CutWindow[], chosen: ReadonlySet<number>, room: number): number[] {
  if (!language || !GROWING.has(language) || ablated('window-growth') || room <= 0 || !cut.length) return [];
  const added: number[] = [];
  const seen = new Set(chosen);
  const add = (l: number) => {
    if (added.length < room && !seen.has(l)) {
      seen.add(l);
      added.push(l);
    }
  };
  for (let step = 1; step <= GROWTH_LINES && added.length < room; step++) {
    for (const w of cut) {
      if (w.a - step >= w.start) add(w.a - step);
      if (w.b + step <= w.end) add(w.b + step);
    }
  }
  return added.sort((x, y) => x - y);
}
