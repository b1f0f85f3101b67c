/**
 * Edit distance between two short names (Damerau-Levenshtein, optimal string alignment: a swap of two neighbours
 * counts once). Small and exact; names here are tens of characters, so the O(n·m) table is nothing.
 */
export function editDistance(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  let prev2: number[] = [];
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const cur = [i];
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur.push(d);
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[m]!;
}

/**
 * The known name nearest to `name` (case-insensitively), when it is close enough to be a typo: at most a third of
 * its length away (and at least 1, at most 3 edits), or `name` is the start of it. Ties go to the first in `known`.
 */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestD) (best = k), (bestD = d);
  }
  if (best === undefined || bestD === 0) return best;
  const limit = Math.min(3, Math.max(1, Math.floor(lower.length / 3)));
  return bestD <= limit || best.toLowerCase().startsWith(lower) ? best : undefined;
}

/** `; did you mean "x"?`, or '' when nothing is near. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const n = nearestName(name, known);
  return n !== undefined && n !== name ? `; did you mean "${n}"?` : '';
}

/** `{ suggestion }` naming the known name nearest to `name` (as {@link didYouMean} words it), or `{}`: an issue's data. */
export function suggest(name: string, known: Iterable<string>): { suggestion?: string } {
  const n = nearestName(name, known);
  return n !== undefined && n !== name ? { suggestion: n } : {};
}
