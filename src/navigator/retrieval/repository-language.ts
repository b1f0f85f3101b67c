// The repository's language: the one place that says which language family a repository is written in, for the
// rules that act on it (c-data-files for C, python-first for Python). Counted over the repository's own code, the
// files the ranking classifies `source` or `test`, by extension family (languageFamily); shell never
// counts (build and CI scripts), nor vendored, generated, example or documentation files. Tests count: a Python
// package with a vendored C library beside it (`cextern/`) has fewer Python sources than C files, but its tests tip
// it back to Python, which it is. The ranking counts it once per index with its own classes (file-kind.ts) and hands
// it on with the ranking (TaskRanking.language), so every rule sees the same answer whatever asks first.
import { classifyPath, type FileClass, languageFamily } from '../../repomap/file-class.js';

export interface RepositoryLanguage {
  /** The family most of the repository's own code files are in (ties by name), or undefined when there are none. */
  readonly family: string | undefined;
  /** That family's share of the counted files (0 when there are none). */
  readonly share: number;
}

/** The language family a repository's own code (sources and tests) is mostly written in, and its share of those files. */
export function repositoryLanguage(files: readonly { path: string }[], classOf: (p: string) => FileClass = classifyPath): RepositoryLanguage {
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
  return { family, share: total ? n / total : 0 };
}

/** Whether most (more than half) of a repository's own code files (sources and tests) are in `family`. */
export function isMostly(lang: RepositoryLanguage, family: string): boolean {
  return lang.family === family && lang.share > 0.5;
}
