import type { IndexedFile } from '../../repomap/repo-index.js';

const HEADER = /\.(h|hh|hpp|hxx|h\+\+)$/i;
const SOURCE = /\.(c|cc|cpp|cxx|c\+\+)$/i;
const stemOf = (p: string) => p.slice(p.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
const dirOf = (p: string) => p.slice(0, Math.max(0, p.lastIndexOf('/')));

/**
 * The module structure of C and C++ as edges of the reference graph, per file (by position in `files`): each file
 * to the headers its `#include`s name, and each header to its companion source (`kv.h` ↔ `kv.c`,
 * `include/fmt/os.h` ↔ `src/os.cc`). An include resolves to the file named relative to the including one, else to the
 * files whose path ends with it (at most two); a system header the repository lacks resolves to nothing. An
 * include edge weighs 1/√(files including that header), so a header every file includes is no hub; a companion edge
 * weighs 1. Deterministic: targets in ascending position.
 */
export function includeEdges(files: readonly IndexedFile[]): Map<number, number>[] {
  const out = files.map(() => new Map<number, number>());
  const at = new Map(files.map((f, i) => [f.path, i]));
  const byBase = new Map<string, number[]>();
  files.forEach((f, i) => {
    if (!HEADER.test(f.path) && !SOURCE.test(f.path)) return;
    const base = f.path.slice(f.path.lastIndexOf('/') + 1);
    let l = byBase.get(base);
    if (!l) byBase.set(base, (l = []));
    l.push(i);
  });
  const resolved: [number, number][] = [];
  files.forEach((f, i) => {
    for (const inc of f.outline.includes ?? []) {
      const name = inc.replace(/^(\.\/)+/, '');
      const rel = at.get(normalise(dirOf(f.path) ? `${dirOf(f.path)}/${name}` : name));
      if (rel !== undefined) {
        if (rel !== i) resolved.push([i, rel]);
        continue;
      }
      const tail = `/${name.replace(/^(\.\.\/)+/, '')}`;
      const cands = (byBase.get(name.slice(name.lastIndexOf('/') + 1)) ?? []).filter((j) => `/${files[j]!.path}`.endsWith(tail) && j !== i);
      if (cands.length >= 1 && cands.length <= 2) for (const j of cands) resolved.push([i, j]);
    }
  });
  const includers = new Map<number, number>();
  for (const [, j] of resolved) includers.set(j, (includers.get(j) ?? 0) + 1);
  for (const [i, j] of resolved) out[i]!.set(j, (out[i]!.get(j) ?? 0) + 1 / Math.sqrt(includers.get(j)!));
  // Companions: a header and the one source of the same stem (in its folder when several).
  const sourcesByStem = new Map<string, number[]>();
  files.forEach((f, i) => {
    if (!SOURCE.test(f.path)) return;
    const s = stemOf(f.path);
    let l = sourcesByStem.get(s);
    if (!l) sourcesByStem.set(s, (l = []));
    l.push(i);
  });
  files.forEach((f, i) => {
    if (!HEADER.test(f.path)) return;
    let cands = sourcesByStem.get(stemOf(f.path)) ?? [];
    if (cands.length > 1) cands = cands.filter((j) => dirOf(files[j]!.path) === dirOf(f.path));
    if (cands.length === 1) out[i]!.set(cands[0]!, (out[i]!.get(cands[0]!) ?? 0) + 1);
  });
  return out.map((m) => new Map([...m.entries()].sort((a, b) => a[0] - b[0])));
}

/** `a/./b/../c` → `a/c` (a path that climbs above the root stays as written). */
function normalise(p: string): string {
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && out.length) out.pop();
    else out.push(part);
  }
  return out.join('/');
}
