// Python's module layout: a dotted path to its files or to the definitions it names (shared by imports and dotted names).
import type { IndexedFile } from '../../../../repomap/repo-index.js';
import { type Credit, type DefRef, type RepoView, creditDefinition, creditFile, nonTest } from './repo-view.js';

const moduleMemo = new WeakMap<RepoView, Map<string, IndexedFile[]>>();

/** Modules of the repository by dotted name: `a/b.py` or `a/b/__init__.py`, under any leading folder (`src/`, `lib/`). */
export function moduleFiles(view: RepoView, mod: string): IndexedFile[] {
  let memo = moduleMemo.get(view);
  if (!memo) moduleMemo.set(view, (memo = new Map()));
  let out = memo.get(mod);
  if (!out) {
    const rel = mod.split('.').join('/');
    const base = mod.split('.').pop()!;
    out = [...(view.byBase.get(`${base}.py`) ?? []), ...(view.byBase.get('__init__.py') ?? [])].filter((f) => {
      const want = f.path.endsWith('/__init__.py') ? `${rel}/__init__.py` : `${rel}.py`;
      return f.path === want || f.path.endsWith(`/${want}`);
    });
    out = out.filter((f) => view.classOf(f.path) !== 'test' || out!.every((g) => view.classOf(g.path) === 'test'));
    memo.set(mod, out);
  }
  return out;
}

const packageDir = (f: IndexedFile) => (f.path.endsWith('/__init__.py') ? f.path.slice(0, -'__init__.py'.length) : undefined);

/** Definitions named `name` in a module: top-level in its file, else anywhere in its package (a re-export). */
function defsInModule(view: RepoView, mods: IndexedFile[], name: string): DefRef[] {
  const all = view.defsByName.get(name) ?? [];
  const top = all.filter((r) => mods.includes(r.file) && r.file.outline.defs[r.i]!.parent === null);
  if (top.length) return top;
  const dirs = mods.map(packageDir).filter((d): d is string => d !== undefined);
  const under = all.filter((r) => dirs.some((d) => r.file.path.startsWith(d)) && r.file.outline.defs[r.i]!.parent === null);
  return nonTest(view, under).length ? nonTest(view, under) : under;
}

/** Credits for a dotted path (its first part expanded through the import aliases), or undefined when nothing was found. */
export function resolveDottedPath(view: RepoView, aliases: ReadonlyMap<string, string>, raw: string[], weight: number, why: string): Credit[] | undefined {
  const a = aliases.get(raw[0]!);
  const parts = a ? [...a.split('.'), ...raw.slice(1)] : raw;
  for (let i = parts.length; i >= 1; i--) {
    const mods = moduleFiles(view, parts.slice(0, i).join('.'));
    if (!mods.length) continue;
    const rest = parts.slice(i);
    if (!rest.length) return mods.map((f) => creditFile(f.path, weight * 0.5, why));
    const defs = defsInModule(view, mods, rest[0]!);
    if (!defs.length) continue;
    let targets = defs;
    if (rest.length > 1) {
      // `Class.method`: the member of that class, when it has one.
      const members = defs.flatMap((r) => r.file.outline.defs.map((d, j) => ({ d, j })).filter(({ d }) => d.parent === r.i && d.name === rest[1]).map(({ j }) => ({ file: r.file, i: j })));
      if (members.length) targets = members;
    }
    return targets.map((r) => creditDefinition(r, weight / Math.sqrt(targets.length), why));
  }
  // No module of the repository: `Class.method` by the names alone.
  if (parts.length >= 2) {
    const [owner, member] = parts.slice(-2) as [string, string];
    const members = (view.defsByName.get(member) ?? []).filter((r) => {
      const p = r.file.outline.defs[r.i]!.parent;
      return p !== null && r.file.outline.defs[p]!.name === owner;
    });
    const pick = nonTest(view, members).length ? nonTest(view, members) : members;
    if (pick.length && pick.length <= 12) return pick.map((r) => creditDefinition(r, weight / Math.sqrt(pick.length), why));
  }
  return undefined;
}
