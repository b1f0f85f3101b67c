/**
 * Plain search's BM25 (the text index's `searchWhole`) computed in memory from per-file term counts kept across
 * calls, with FTS5's own `bm25()` arithmetic, so the scores are the same doubles and the order the same.
 *
 * Why: FTS5's `bm25()` walks every occurrence of every query term in every matching row on every query (~150,000
 * for a 40-term issue on a sympy-sized index, most of a warm long issue's extra time). A long-lived process asks
 * plain search again and again over an index that does not change; a term's counts per file, once read, answer
 * every later query with it in one pass over its files.
 *
 * FTS5's bm25 (fts5_aux.c), for a row with total size D (tokens in all columns) and a query of phrases i:
 *   score = Σ_i idf_i · (f_i · (k1 + 1)) / (f_i + k1 · (1 − b + b · D / avgdl)),  k1 1.2, b 0.75,
 *   f_i = Σ over the phrase's instances in the row of its column's weight,
 *   idf_i = ln((N − n_i + 0.5) / (n_i + 0.5)), 1e-6 when not positive (n_i: rows holding the phrase),
 *   avgdl = tokens of all rows, all columns / N;
 * the sum runs in the query's phrase order from 0, and a row holding a term only in a column of weight 0 still
 * matches (score 0). Ties are given in row order.
 */

/** One term's files: row ids ascending and the term's weighted count in each (instances in columns of weight 1). */
export interface TermPostings {
  rows: Int32Array;
  counts: Float64Array;
}

/** The index-wide figures BM25 needs: each row's size (tokens in all columns; by row id) and the mean. */
export interface RowSizes {
  /** Rows in the index (N). */
  rows: number;
  /** `k1 · (1 − b + b · D / avgdl)` by row id (0 for ids with no row). */
  norm: Float64Array;
}

const K1 = 1.2;
const B = 0.75;

/** Rows' length normalisation from their sizes (`sizes[id]`, tokens in all columns) over `rows` rows. */
export function rowSizes(sizes: Float64Array, rows: number, totalTokens: number): RowSizes {
  const avgdl = totalTokens / rows;
  const norm = new Float64Array(sizes.length);
  for (let id = 0; id < sizes.length; id++) norm[id] = K1 * (1 - B + (B * sizes[id]!) / avgdl);
  return { rows, norm };
}

/** FTS5's idf of a term held by `n` of `rows` rows, `ln` being the logarithm used (SQLite's, to match it bit for bit). */
export function bm25Idf(rows: number, n: number, ln: (x: number) => number): number {
  const idf = ln((rows - n + 0.5) / (n + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/**
 * Scores every row holding one of the terms and returns the best `limit` as FTS5 does (`s` the negated score,
 * ascending; ties by row id). `terms` in the query's order, each with its idf and postings.
 */
export function bm25Best(terms: readonly { idf: number; postings: TermPostings }[], sizes: RowSizes, limit: number): { id: number; s: number }[] {
  const score = new Float64Array(sizes.norm.length);
  const seen = new Uint8Array(sizes.norm.length);
  const hit: number[] = [];
  for (const { idf, postings } of terms) {
    const { rows, counts } = postings;
    for (let j = 0; j < rows.length; j++) {
      const id = rows[j]!;
      if (id >= score.length) continue;
      const f = counts[j]!;
      score[id] = score[id]! + idf * ((f * (K1 + 1.0)) / (f + sizes.norm[id]!));
      if (!seen[id]) {
        seen[id] = 1;
        hit.push(id);
      }
    }
  }
  return hit
    .map((id) => ({ id, s: -1.0 * score[id]! }))
    .sort((x, y) => x.s - y.s || x.id - y.id)
    .slice(0, Math.max(0, limit));
}

/** Sizes of the columns of one row of an FTS5 `_docsize` table (`sz`: one SQLite varint per column), summed. */
export function docsizeTotal(sz: Uint8Array): number {
  let total = 0;
  let i = 0;
  while (i < sz.length) {
    let v = 0;
    for (let k = 0; i < sz.length; k++) {
      const byte = sz[i++]!;
      if (k === 8) {
        v = v * 256 + byte;
        break;
      }
      v = v * 128 + (byte & 0x7f);
      if (!(byte & 0x80)) break;
    }
    total += v;
  }
  return total;
}
