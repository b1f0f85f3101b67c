import { closeSync, openSync, readSync } from 'node:fs';
import { CONTENT_HEAD_CHARS, classifyContent, type FileClass, languageFamily, ownFamilies } from '../../repomap/file-class.js';
import type { RepoIndex } from '../../repomap/repo-index.js';
import { resolveInsideRoot } from '../../repomap/index.js';
import { ablated } from './ablation.js';
import { bundledCopyClass, releaseCopyClass, singleHeaderClass } from './code-copies.js';
import { nameWords, stemOfPath, scriptMentions } from './evidence/script-mentions.js';
import { buildSupportClass } from './build-support.js';
import { cDataFileClass } from './c-data-files.js';
import { buildSystemOf, buildSystemsNamed } from './build-systems.js';
import { type RepositoryLanguage, repositoryLanguage } from './repository-language.js';

/**
 * A file's class for ranking, beyond what its path says (issue 40, item 1: source before everything): a helper
 * script in a language the repository's own code is not written in (`script`), unless the task is about that
 * language; and, for the few files that reach the top of a ranking, a tool's output recognised by its first lines
 * (`generated`: parser generators, amalgamated single headers, `DO NOT EDIT` files).
 */

const familiesMemo = new WeakMap<RepoIndex, Set<string>>();
const languageMemo = new WeakMap<RepoIndex, RepositoryLanguage>();
const headMemo = new Map<string, FileClass | null>();
const HEAD_MEMO_MAX = 20_000;

/** Fence languages and the family they name (```rust, ```ts …); shell sessions are left out (every issue runs commands). */
const FENCE_FAMILY: Record<string, string> = {
  rust: 'rust', rs: 'rust', go: 'go', golang: 'go', java: 'jvm', kotlin: 'jvm', kt: 'jvm', scala: 'jvm', groovy: 'jvm',
  js: 'js', javascript: 'js', jsx: 'js', ts: 'js', typescript: 'js', tsx: 'js', python: 'python', py: 'python', pycon: 'python',
  c: 'c', cpp: 'c', 'c++': 'c', cxx: 'c', h: 'c', hpp: 'c', ruby: 'ruby', rb: 'ruby', php: 'php', csharp: 'csharp', cs: 'csharp', lua: 'lua', perl: 'perl', cmake: 'cmake',
};

/** The language families a task shows: its code fences' languages and the extensions of the files it names. */
export function taskFamilies(task: string): Set<string> {
  const out = new Set<string>();
  for (const m of task.matchAll(/^\s*(?:```|~~~)\s*([\w+#-]+)/gm)) {
    const fam = FENCE_FAMILY[m[1]!.toLowerCase()];
    if (fam) out.add(fam);
  }
  for (const m of task.matchAll(/[\w-]\.([A-Za-z0-9+]{1,6})\b/g)) {
    const fam = languageFamily(`x.${m[1]!}`);
    if (fam) out.add(fam);
  }
  return out;
}

/**
 * The stems (file names without extension) among `stems` of the scripts a task names in prose (see scriptMentions):
 * "the install script" names `install.sh`, "the gen-docs script" `gen_docs.py`.
 */
export function namedScripts(task: string, stems: Iterable<string>): Set<string> {
  const said = new Set(scriptMentions(task));
  const out = new Set<string>();
  if (!said.size) return out;
  for (const s of stems) if (said.has(nameWords(s))) out.add(s);
  return out;
}


/** The first characters of a file (CONTENT_HEAD_CHARS bytes), or '' when it cannot be read. */
function headOf(index: RepoIndex, rel: string): string {
  const cached = index.texts?.get(rel);
  if (cached !== undefined) return cached.slice(0, CONTENT_HEAD_CHARS);
  let fd: number | undefined;
  try {
    fd = openSync(resolveInsideRoot(index.root, rel), 'r');
    const buf = Buffer.alloc(CONTENT_HEAD_CHARS);
    const n = readSync(fd, buf, 0, CONTENT_HEAD_CHARS, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Path rules that take a `source` file for something else, each with its switch, tried in this order. */
const SOURCE_PATH_RULES: readonly (readonly [string, (p: string) => FileClass | undefined])[] = [
  ['build-support', buildSupportClass],
  ['bundled-copies', bundledCopyClass],
  ['single-headers', singleHeaderClass],
];

/**
 * The ranking's class of each file: the path's class, `script` for a source file of a family that is not the
 * repository's own nor the task's. `byContent(p)` reads a file's first characters (memoised by content hash) for
 * a tool's markers, to be asked only of the few files near the top.
 */
export function rankingClasses(index: RepoIndex, pathClass: (p: string) => FileClass, task: string): { language: RepositoryLanguage; classOf(p: string): FileClass; byContent(p: string, hash: string): FileClass | undefined } {
  let own = familiesMemo.get(index);
  if (!own) familiesMemo.set(index, (own = ownFamilies(index.files.map((f) => f.path), pathClass)));
  const wanted = taskFamilies(task);
  const ownSet = own;
  let language = languageMemo.get(index);
  if (!language) languageMemo.set(index, (language = repositoryLanguage(index.files, pathClass)));
  const cMain = !ablated('c-data-files') && language.family === 'c';
  const systemsNamed = ablated('build-systems') ? undefined : buildSystemsNamed(task);
  let named: Set<string> | undefined;
  // A script the task names in prose is what it is about, whatever its language (see namedScripts).
  const isNamed = (p: string) => {
    if (ablated('named-scripts')) return false;
    named ??= namedScripts(task, new Set(index.files.filter((f) => f.path.includes('.') && languageFamily(f.path) && !ownSet.has(languageFamily(f.path)!)).map((f) => stemOfPath(f.path))));
    return named.has(stemOfPath(p));
  };
  return {
    language,
    classOf(p) {
      let c = pathClass(p);
      if (c !== 'vendored' && c !== 'generated' && !ablated('release-copies')) c = releaseCopyClass(p) ?? c;
      for (const [rule, refine] of SOURCE_PATH_RULES) if (c === 'source' && !ablated(rule)) c = refine(p) ?? c;
      // A build system's files rank as configuration, unless the task's title names that system (build-systems.ts).
      const system = systemsNamed && (c === 'source' || c === 'doc' || c === 'script') ? buildSystemOf(p) : undefined;
      if (system) return systemsNamed!.has(system) ? 'source' : 'config';
      if (c !== 'source' || !ownSet.size) return c;
      if (cMain) c = cDataFileClass(p) ?? c;
      if (c !== 'source') return c;
      const fam = languageFamily(p);
      return fam && !ownSet.has(fam) && !wanted.has(fam) && !isNamed(p) ? 'script' : c;
    },
    byContent(p, hash) {
      const key = `${hash}:${p}`;
      let c = headMemo.get(key);
      if (c === undefined) {
        c = classifyContent(headOf(index, p)) ?? null;
        if (headMemo.size >= HEAD_MEMO_MAX) headMemo.clear();
        headMemo.set(key, c);
      }
      return c ?? undefined;
    },
  };
}
