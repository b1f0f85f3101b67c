import picomatch from 'picomatch';
import type { Focus } from '../contracts/flight-plan.js';
import type { IndexedFile } from './repo-index.js';

/** A file's place in the ranking and why. */
export interface FileScore {
  path: string;
  /** Personalized PageRank of the reference graph (referencing file → defining file). */
  pagerank: number;
  /** Product of the weights of the focus path patterns the file matches (1 when none). */
  path_factor: number;
  /** Product over focus symbols: the weight if the file defines it, its square root if it references it
   *  (or, given a full-text lookup, merely contains it: a word in a body or string). */
  symbol_factor: number;
  score: number;
}

/** Files whose text contains a symbol (the navigator's full-text index: identifiers, comments, strings, stems). */
export type SymbolFiles = (symbol: string) => readonly string[];

/**
 * Ranks files: a PageRank over the reference graph (edge weight √count, as aider does), personalized
 * towards the focus paths and symbols, times the focus factors. Sorted by score, ties by path, so the
 * order is stable.
 */
export function rankFiles(files: IndexedFile[], focus?: Focus | null, symbolFiles?: SymbolFiles): FileScore[] {
  const n = files.length;
  if (n === 0) return [];
  const pathBoosts = (focus?.paths ?? []).map((p) => ({ w: p.weight, m: picomatch(p.pattern, { dot: true }) }));
  const symbolBoosts = (focus?.symbols ?? []).map((s) => ({ w: s.weight, name: s.name.toLowerCase(), occurs: symbolFiles ? new Set(symbolFiles(s.name)) : undefined }));
  const definers = new Map<string, number[]>();
  files.forEach((f, i) => {
    const seen = new Set<string>();
    for (const d of f.outline.defs) {
      if (d.kind === 'heading' || seen.has(d.name)) continue;
      seen.add(d.name);
      let list = definers.get(d.name);
      if (!list) definers.set(d.name, (list = []));
      list.push(i);
    }
  });
  const pathFactor = new Float64Array(n).fill(1);
  const symbolFactor = new Float64Array(n).fill(1);
  files.forEach((f, i) => {
    for (const b of pathBoosts) if (b.m(f.path)) pathFactor[i]! *= b.w;
    if (symbolBoosts.length) {
      const defs = new Set(f.outline.defs.map((d) => d.name.toLowerCase()));
      const refs = new Set(f.outline.refs.map(([r]) => r.toLowerCase()));
      for (const b of symbolBoosts) {
        if (defs.has(b.name)) symbolFactor[i]! *= b.w;
        else if (refs.has(b.name) || b.occurs?.has(f.path)) symbolFactor[i]! *= Math.sqrt(b.w);
      }
    }
  });
  // Edges: out[i] = [(j, w)], normalised per source.
  const out: { to: number; w: number }[][] = files.map((f, i) => {
    const acc = new Map<number, number>();
    for (const [name, count] of f.outline.refs) {
      const defs = definers.get(name);
      if (!defs) continue;
      const w = Math.sqrt(count) / defs.length;
      for (const j of defs) if (j !== i) acc.set(j, (acc.get(j) ?? 0) + w);
    }
    return [...acc.entries()].sort((a, b) => a[0] - b[0]).map(([to, w]) => ({ to, w }));
  });
  const personal = new Float64Array(n);
  let psum = 0;
  for (let i = 0; i < n; i++) {
    personal[i] = pathFactor[i]! * symbolFactor[i]!;
    psum += personal[i]!;
  }
  for (let i = 0; i < n; i++) personal[i]! /= psum;
  let rank = Float64Array.from(personal);
  const damping = 0.85;
  for (let iter = 0; iter < 40; iter++) {
    const next = new Float64Array(n);
    let dangling = 0;
    for (let i = 0; i < n; i++) {
      const edges = out[i]!;
      if (edges.length === 0) {
        dangling += rank[i]!;
        continue;
      }
      let total = 0;
      for (const e of edges) total += e.w;
      for (const e of edges) next[e.to]! += (damping * rank[i]! * e.w) / total;
    }
    for (let i = 0; i < n; i++) next[i]! += (1 - damping + damping * dangling) * personal[i]!;
    rank = next;
  }
  const scores = files.map((f, i) => ({
    path: f.path,
    pagerank: rank[i]!,
    path_factor: pathFactor[i]!,
    symbol_factor: symbolFactor[i]!,
    score: rank[i]! * pathFactor[i]! * symbolFactor[i]!,
  }));
  return scores.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
