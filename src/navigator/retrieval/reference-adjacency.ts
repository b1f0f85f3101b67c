import { createHash } from 'node:crypto';
import type { IndexedFile } from '../../repomap/repo-index.js';
import { OUTLINE_VERSION } from '../../repomap/queries.js';

/**
 * The reference graph as the ranking walks it: undirected (a file that uses a hit and the file a hit uses are both
 * neighbours), in compressed rows. The neighbours of file i are `to[offsets[i] .. offsets[i + 1])` with weights `w`,
 * in the order the walk visits them; `total[i]` is their weight summed in that order (so every score computed from
 * it is the same to the last bit as from lists of edge objects).
 */
export interface Adjacency {
  offsets: Int32Array<ArrayBuffer>;
  to: Int32Array<ArrayBuffer>;
  w: Float64Array<ArrayBuffer>;
  total: Float64Array<ArrayBuffer>;
}

/**
 * Derived data kept beside the full-text index, by key (content-addressed: a key names everything its value was
 * computed from, so a stored value is never stale, only unused).
 */
export interface DerivedStore {
  get(key: string): Uint8Array | undefined;
  set(key: string, value: Uint8Array): void;
}

/**
 * Both directions of each directed edge (file → file it references), neighbours in the order they are met: for each
 * file in order, each of its edges adds the target to the file's row and the file to the target's row.
 */
export function undirected(edges: readonly (readonly { to: number; w: number }[])[]): Adjacency {
  const n = edges.length;
  const offsets = new Int32Array(n + 1);
  edges.forEach((list, i) => {
    for (const e of list) {
      offsets[i + 1]!++;
      offsets[e.to + 1]!++;
    }
  });
  for (let i = 0; i < n; i++) offsets[i + 1]! += offsets[i]!;
  const m = offsets[n]!;
  const to = new Int32Array(m);
  const w = new Float64Array(m);
  const fill = offsets.slice(0, n);
  edges.forEach((list, i) => {
    for (const e of list) {
      let k = fill[i]!++;
      to[k] = e.to;
      w[k] = e.w;
      k = fill[e.to]!++;
      to[k] = i;
      w[k] = e.w;
    }
  });
  const total = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let k = offsets[i]!; k < offsets[i + 1]!; k++) s += w[k]!;
    total[i] = s;
  }
  return { offsets, to, w, total };
}

/** Layout: n, m (int32 each), w (float64 × m), total (float64 × n), offsets (int32 × n+1), to (int32 × m). */
export function encodeAdjacency(a: Adjacency): Uint8Array {
  const n = a.total.length;
  const m = a.to.length;
  const buf = new ArrayBuffer(8 + 8 * m + 8 * n + 4 * (n + 1) + 4 * m);
  new Int32Array(buf, 0, 2).set([n, m]);
  let at = 8;
  new Float64Array(buf, at, m).set(a.w);
  at += 8 * m;
  new Float64Array(buf, at, n).set(a.total);
  at += 8 * n;
  new Int32Array(buf, at, n + 1).set(a.offsets);
  at += 4 * (n + 1);
  new Int32Array(buf, at, m).set(a.to);
  return new Uint8Array(buf);
}

/** The adjacency `encodeAdjacency` wrote, or undefined when the bytes are not one (truncated, another layout). */
export function decodeAdjacency(bytes: Uint8Array): Adjacency | undefined {
  if (bytes.byteLength < 8) return undefined;
  // A copy into a buffer of its own: typed views need aligned offsets.
  const buf = bytes.slice().buffer;
  const [n, m] = new Int32Array(buf, 0, 2) as unknown as [number, number];
  if (n < 0 || m < 0 || buf.byteLength !== 8 + 8 * m + 8 * n + 4 * (n + 1) + 4 * m) return undefined;
  let at = 8;
  const w = new Float64Array(buf, at, m);
  at += 8 * m;
  const total = new Float64Array(buf, at, n);
  at += 8 * n;
  const offsets = new Int32Array(buf, at, n + 1);
  at += 4 * (n + 1);
  const to = new Int32Array(buf, at, m);
  if (offsets[0] !== 0 || offsets[n] !== m) return undefined;
  return { offsets, to, w, total };
}

/** Adjacencies built or read by this process, by key (a long-lived process ranks the same repository again). */
const memo = new Map<string, Adjacency>();
const MEMO_MAX = 4;

/**
 * The store key of the adjacency of `files` (in the order given) built by `rules` (a string that changes whenever the
 * graph's rules do: the building function's source): it names the outline version and each file's path, content
 * hash, language and whether it was parsed, everything the outlines the graph is built from depend on.
 */
export function adjacencyKey(files: readonly IndexedFile[], rules: string): string {
  const h = createHash('sha256').update(`${OUTLINE_VERSION}\0${rules}\0`);
  for (const f of files) h.update(`${f.path}\0${f.hash}\0${f.language}\0${f.outline.parse_error === undefined ? 1 : 0}\n`);
  return `adjacency:${h.digest('hex')}`;
}

/** The adjacency of `files` (see adjacencyKey), from this process's memo, else from `store`, else built (and stored). */
export function cachedAdjacency(files: readonly IndexedFile[], store: DerivedStore | undefined, rules: string, build: () => Adjacency): Adjacency {
  const key = adjacencyKey(files, rules);
  let a = memo.get(key);
  if (!a) {
    const stored = store?.get(key);
    a = stored ? decodeAdjacency(stored) : undefined;
    if (!a || a.total.length !== files.length) {
      a = build();
      store?.set(key, encodeAdjacency(a));
    }
    if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value!);
    memo.set(key, a);
  }
  return a;
}
