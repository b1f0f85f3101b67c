// Graph algorithms the bounds proof needs, on nodes numbered 0..n-1 and edges with a `from` and a `to`.

/** An edge of a graph whose nodes are numbers. */
export interface GraphEdge {
  from: number;
  to: number;
}

/** Strongly connected components (Tarjan, iterative) of the nodes in `members` over `edges`, in discovery order. */
export function components(members: readonly number[], edges: (n: number) => readonly GraphEdge[]): number[][] {
  const inSet = new Set(members);
  const idx = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const result: number[][] = [];
  let counter = 0;
  for (const root of members) {
    if (idx.has(root)) continue;
    const work: { n: number; i: number }[] = [{ n: root, i: 0 }];
    idx.set(root, counter), low.set(root, counter++), stack.push(root), onStack.add(root);
    while (work.length) {
      const top = work[work.length - 1]!;
      const es = edges(top.n);
      if (top.i < es.length) {
        const t = es[top.i++]!.to;
        if (!inSet.has(t)) continue;
        if (!idx.has(t)) {
          idx.set(t, counter), low.set(t, counter++), stack.push(t), onStack.add(t);
          work.push({ n: t, i: 0 });
        } else if (onStack.has(t)) low.set(top.n, Math.min(low.get(top.n)!, idx.get(t)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.n, Math.min(low.get(parent.n)!, low.get(top.n)!));
      if (low.get(top.n) === idx.get(top.n)) {
        const comp: number[] = [];
        for (;;) {
          const m = stack.pop()!;
          onStack.delete(m);
          comp.push(m);
          if (m === top.n) break;
        }
        result.push(comp.sort((a, b) => a - b));
      }
    }
  }
  return result;
}

/** Whether a component has a cycle: more than one node, or an edge from its node to itself. */
export const cyclic = (comp: readonly number[], edges: (n: number) => readonly GraphEdge[]): boolean => comp.length > 1 || edges(comp[0]!).some((e) => e.to === comp[0]);

/** The shortest cycle inside `members` over `edges` (BFS from each member in order; ties to the first found). */
export function shortestCycle<E extends GraphEdge>(members: readonly number[], edges: (n: number) => readonly E[]): E[] | undefined {
  const inSet = new Set(members);
  let best: E[] | undefined;
  for (const start of members) {
    const via = new Map<number, E>();
    const queue = [start];
    let found: E | undefined;
    for (let qi = 0; qi < queue.length && !found; qi++) {
      const n = queue[qi]!;
      for (const e of edges(n)) {
        if (!inSet.has(e.to)) continue;
        if (e.to === start) {
          found = e;
          break;
        }
        if (!via.has(e.to)) via.set(e.to, e), queue.push(e.to);
      }
    }
    if (!found) continue;
    const path = [found];
    for (let n = found.from; n !== start; ) {
      const e = via.get(n)!;
      path.unshift(e);
      n = e.from;
    }
    if (!best || path.length < best.length) best = path;
    if (best.length === 1) break;
  }
  return best;
}
