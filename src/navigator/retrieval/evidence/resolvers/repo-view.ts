// The read-only view of a repository that evidence resolvers read, and the credits they return.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FileClass } from '../../../../repomap/file-class.js';
import type { Definition } from '../../../../repomap/outline.js';
import type { IndexedFile, RepoIndex } from '../../../../repomap/repo-index.js';
import type { TextIndex } from '../../text-index.js';

/** A definition of the repository: a file and the index of the definition in its outline. */
export type DefRef = { file: IndexedFile; i: number };

/** What a resolver found: a share of score for a definition (with the line it names) or for a whole file. */
export type Credit =
  | { to: 'definition'; ref: DefRef; score: number; why: string; line?: number }
  | { to: 'file'; path: string; score: number; why: string };

/** What evidence resolvers read of a repository; nothing here changes what another resolver sees. */
export interface RepoView {
  readonly files: readonly IndexedFile[];
  readonly allPaths: readonly string[];
  readonly byPath: ReadonlyMap<string, IndexedFile>;
  /** Files by their base name (`broadcast.rs`). */
  readonly byBase: ReadonlyMap<string, readonly IndexedFile[]>;
  /** Non-heading definitions by their name. */
  readonly defsByName: ReadonlyMap<string, readonly DefRef[]>;
  /** Document frequency and files of a stemmed term. */
  readonly text: Pick<TextIndex, 'docFreq' | 'filesWith'>;
  classOf(p: string): FileClass;
  /** A file's text ('' when unreadable); read once. */
  textOf(p: string): string;
}

/** Credits a definition (nothing for a score <= 0, as the combiner ignores those). */
export const creditDefinition = (ref: DefRef, score: number, why: string, line?: number): Credit => ({ to: 'definition', ref, score, why, ...(line !== undefined ? { line } : {}) });
export const creditFile = (p: string, score: number, why: string): Credit => ({ to: 'file', path: p, score, why });

/** The lookups of a file list, by list: a long-lived process gets the same list back for an unchanged repository (see indexRepo). */
const lookupsMemo = new WeakMap<readonly IndexedFile[], { byPath: Map<string, IndexedFile>; byBase: Map<string, IndexedFile[]>; defsByName: Map<string, DefRef[]> }>();

function lookupsOf(files: IndexedFile[]) {
  const known = lookupsMemo.get(files);
  if (known) return known;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const byBase = new Map<string, IndexedFile[]>();
  const defsByName = new Map<string, DefRef[]>();
  for (const f of files) {
    const base = f.path.slice(f.path.lastIndexOf('/') + 1);
    let l = byBase.get(base);
    if (!l) byBase.set(base, (l = []));
    l.push(f);
    f.outline.defs.forEach((d, i) => {
      if (d.kind === 'heading') return;
      let list = defsByName.get(d.name);
      if (!list) defsByName.set(d.name, (list = []));
      list.push({ file: f, i });
    });
  }
  const out = { byPath, byBase, defsByName };
  lookupsMemo.set(files, out);
  return out;
}

/** The view of an indexed repository (texts from the index when it holds them, else read from disk once). */
export function repoViewOf(index: RepoIndex, text: TextIndex, classOf: (p: string) => FileClass): RepoView {
  const { byPath, byBase, defsByName } = lookupsOf(index.files);
  const texts = new Map<string, string>();
  const textOf = (p: string): string => {
    let t = texts.get(p) ?? index.texts?.get(p);
    if (t === undefined) {
      try {
        t = readFileSync(path.join(index.root, p), 'utf8');
      } catch {
        t = '';
      }
    }
    texts.set(p, t);
    return t;
  };
  return { files: index.files, allPaths: index.files.map((f) => f.path), byPath, byBase, defsByName, text, classOf, textOf };
}

/** Definitions outside tests. */
export const nonTest = (view: RepoView, refs: readonly DefRef[]): DefRef[] => refs.filter((r) => view.classOf(r.file.path) !== 'test');

/** The qualified name of a definition: its enclosing definitions' names joined by dots. */
export function qualified(defs: Definition[], i: number): string {
  const names: string[] = [];
  for (let j: number | null = i; j !== null && j !== undefined; j = defs[j]!.parent) names.unshift(defs[j]!.name);
  return names.join('.');
}
/** Innermost non-heading definition containing `line`. */
export function innermost(defs: Definition[], line: number): number | undefined {
  let best: number | undefined;
  defs.forEach((d, i) => {
    if (d.kind === 'heading' || d.start > line || d.end < line) return;
    if (best === undefined || d.end - d.start < defs[best]!.end - defs[best]!.start) best = i;
  });
  return best;
}

/** The 1-based line of a character offset. */
export const lineAt = (t: string, offset: number): number => t.slice(0, offset).split('\n').length;

export const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A folder name without the release a package manager appends (`tokio-1.28.0` → `tokio`, `go-zero@v1.5.0` → `go-zero`). */
export const withoutRelease = (dir: string): string => dir.replace(/(?:-|@v?)\d+\.\d+\.\d+(?:[-+][\w.-]*)?$/, '');

/** Files by the longest path suffix shared with `raw` (a frame's, a link's or a named file's path). */
export function suffixFiles(view: RepoView, raw: string, bareOk: boolean): IndexedFile[] {
  if (/[<>]/.test(raw)) return [];
  // A package manager's copy names its folder after the release (`tokio-1.28.0/src/…`, `go-zero@v1.5.0/core/…`).
  const parts = raw.replace(/\\/g, '/').split('/').filter((s) => s && s !== '.' && s !== '..').map(withoutRelease);
  const base = parts[parts.length - 1];
  if (!base) return [];
  const cands = view.byBase.get(base) ?? [];
  let best = 0;
  let out: IndexedFile[] = [];
  for (const f of cands) {
    const fp = f.path.split('/');
    let k = 0;
    while (k < fp.length && k < parts.length && fp[fp.length - 1 - k] === parts[parts.length - 1 - k]) k++;
    if (k > best) {
      best = k;
      out = [f];
    } else if (k === best) out.push(f);
  }
  // One shared component (the file name) is enough only for a bare name that is unique in the repository.
  if (best >= 2 || (best === 1 && bareOk && parts.length === 1 && out.length === 1 && !/^(__init__|index|main|setup|conftest)\./.test(base))) return out;
  if (best >= 1 && parts.length >= 2 && out.length === 1 && best === Math.min(parts.length, out[0]!.path.split('/').length)) return out;
  return [];
}
