import type { RankedFile } from './ranking.js';

/**
 * For rules that move files of a pick after the others (python-first, python-tests-after): a function giving each file
 * passed to it, in turn, a score just below the one before, starting below the lowest of `kept` (the plan orders the
 * pick and shares its lines by score). A file whose score changes is a copy; the ranked files are not changed.
 */
export function scoresBelow(kept: readonly RankedFile[]): (f: RankedFile) => RankedFile {
  let floor = Math.min(...kept.map((f) => f.score));
  return (f) => {
    floor = Math.min(f.score, floor * 0.99);
    return f.score === floor ? f : { ...f, score: floor };
  };
}
