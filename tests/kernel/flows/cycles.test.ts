// The graph algorithms under the bounds proof: strongly connected components and the shortest cycle.
import { describe, expect, it } from 'vitest';
import { components, cyclic, shortestCycle, type GraphEdge } from '../../../src/kernel/flows/cycles.js';

const graph = (n: number, pairs: [number, number][]) => {
  const out: GraphEdge[][] = Array.from({ length: n }, () => []);
  for (const [from, to] of pairs) out[from]!.push({ from, to });
  return { nodes: Array.from({ length: n }, (_, i) => i), edges: (i: number) => out[i]! };
};

describe('components', () => {
  it('finds each strongly connected component, and which have a cycle', () => {
    // 0 -> 1 -> 2 -> 0, 2 -> 3, 3 -> 3, 4 alone
    const g = graph(5, [[0, 1], [1, 2], [2, 0], [2, 3], [3, 3]]);
    const comps = components(g.nodes, g.edges).sort((a, b) => a[0]! - b[0]!);
    expect(comps).toEqual([[0, 1, 2], [3], [4]]);
    expect(comps.map((c) => cyclic(c, g.edges))).toEqual([true, true, false]);
  });

  it('walks a chain of 100,000 nodes without running out of stack (iterative)', () => {
    const n = 100_000;
    const g = graph(n, [...Array.from({ length: n - 1 }, (_, i) => [i, i + 1] as [number, number]), [n - 1, 0]]);
    expect(components(g.nodes, g.edges)).toHaveLength(1);
  });
});

describe('shortestCycle', () => {
  it('gives a shortest cycle among the members, edge by edge', () => {
    // a long way round 0 -> 1 -> 2 -> 3 -> 0 and a short one 2 -> 3 -> 2
    const g = graph(4, [[0, 1], [1, 2], [2, 3], [3, 0], [3, 2]]);
    expect(shortestCycle(g.nodes, g.edges)!.map((e) => [e.from, e.to])).toEqual([[2, 3], [3, 2]]);
    expect(shortestCycle([0, 1, 2], g.edges)).toBeUndefined();
  });
});
