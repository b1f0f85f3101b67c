import type { Definition } from '../../repomap/outline.js';

/** A definition of a file (by its index in the outline) and how well its own lines match a task's terms. */
export interface ScoredDefinition {
  index: number;
  score: number;
}

/** Lines of a body before its score starts to shrink: the score is divided by 1 + ln(1 + lines / this). */
export const DEFINITION_LENGTH_NORM = 20;

/**
 * A file's definitions ranked by their own lines. Each line belongs to its innermost definition (a
 * method's lines are the method's, not its class's); a definition scores the weight (idf) of every
 * distinct task term on its own lines, repeats counting a little (1 + 0.2 ln k), divided by
 * 1 + ln(1 + own lines / DEFINITION_LENGTH_NORM) so a long body does not win by merely holding every
 * word. `hits[l]` are the terms matched on line l (1-based), `n` the file's line count. With `share` (per line, see
 * windows.ts proseShares), a term counts at the best share of the lines holding it (1 in code, less in an inline test
 * module), and only lines at share 1 count towards the length; `skip`
 * leaves definitions out (those of an inline test module). Headings are no definitions; a definition without a
 * matched term is left out. Best first, ties by outline order.
 */
export function rankDefinitionsByTerms(
  defs: readonly Definition[],
  hits: readonly (readonly string[] | undefined)[],
  weights: ReadonlyMap<string, number>,
  n: number,
  share?: ArrayLike<number>,
  skip?: (index: number) => boolean,
): ScoredDefinition[] {
  const owner = new Int32Array(n + 1).fill(-1);
  const order = defs.map((_, i) => i).filter((i) => defs[i]!.kind !== 'heading');
  // Outer definitions first, so an inner one overwrites the lines it owns.
  order.sort((a, b) => defs[b]!.end - defs[b]!.start - (defs[a]!.end - defs[a]!.start) || a - b);
  for (const i of order) for (let l = Math.max(1, defs[i]!.start); l <= Math.min(n, defs[i]!.end); l++) owner[l] = i;
  // A doc comment before a definition stays its enclosing definition's: giving it to the definition it documents was
  // tried and lost line hits on C and C++ (half A of the public set).
  // Per definition and term: the lines holding it, and the best share of a line holding it (1 in code, less in prose).
  const terms = new Map<number, Map<string, [number, number]>>();
  const owned = new Map<number, number>();
  for (let l = 1; l <= n; l++) {
    const o = owner[l]!;
    if (o < 0) continue;
    const w = share ? share[l]! : 1;
    if (w >= 1) owned.set(o, (owned.get(o) ?? 0) + 1);
    for (const t of hits[l] ?? []) {
      let m = terms.get(o);
      if (!m) terms.set(o, (m = new Map()));
      const e = m.get(t);
      if (e) {
        e[0]++;
        if (w > e[1]) e[1] = w;
      } else m.set(t, [1, w]);
    }
  }
  const out: ScoredDefinition[] = [];
  for (const [index, m] of terms) {
    if (skip?.(index)) continue;
    let s = 0;
    for (const [t, [k, w]] of m) s += (weights.get(t) ?? 0) * (1 + 0.2 * Math.log(k)) * w;
    if (s > 0) out.push({ index, score: s / (1 + Math.log(1 + (owned.get(index) ?? 0) / DEFINITION_LENGTH_NORM)) });
  }
  return out.sort((a, b) => b.score - a.score || a.index - b.index);
}

