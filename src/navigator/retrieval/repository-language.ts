// The repository's language: the one place that says which language family a repository is written in, for the
// rules that act on it (c-data-files for C, python-first for Python). Counted once per index over the repository's
// own code, the files the ranking classifies `source` or `test`, by extension family (languageFamily); shell never
// counts (build and CI scripts), nor vendored, generated, example or documentation files. Tests count: a Python
// package with a vendored C library beside it (`cextern/`) has fewer Python sources than C files, but its tests tip
// it back to Python, which it is.
import { classifyPath, type FileClass, languageFamily } from '../../repomap/file-class.js';

export interface RepositoryLanguage {
  /** The family most of the repository's own code files are in (ties by name), or undefined when there are none. */
  readonly family: string | undefined;
  /** That family's share of the counted files (0 when there are none). */
  readonly share: number;
}

// Keyed by the index's file list: one count per index. The first caller's classOf stands for that index (the
// ranking's, which is the path's class with known code copies taken as generated).
const memo = new WeakMap<readonly { path: string }[], RepositoryLanguage>();

/** The language family a repository's own code (sources and tests) is mostly written in, and its share of those files. */
export function repositoryLanguage(files: readonly { path: string }[], classOf: (p: string) => FileClass = classifyPath): RepositoryLanguage {
  let known = memo.get(files);
  if (known) return known;
  const count = new Map<string, number>();
  let total = 0;
  for (const f of files) {
    const fam = languageFamily(f.path);
    if (!fam || fam === 'shell') continue;
    const cls = classOf(f.path);
    if (cls !== 'source' && cls !== 'test') continue;
    count.set(fam, (count.get(fam) ?? 0) + 1);
    total++;
  }
  const [family, n] = [...count.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0] ?? [undefined, 0];
  memo.set(files, (known = { family, share: total ? n / total : 0 }));
  return known;
}

/** Whether most (more than half) of a repository's own code files (sources and tests) are in `family`. */
export function isMostly(files: readonly { path: string }[], family: string, classOf?: (p: string) => FileClass): boolean {
  const lang = repositoryLanguage(files, classOf);
  return lang.family === family && lang.share > 0.5;
}
