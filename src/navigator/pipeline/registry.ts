import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { ValidationError, issuesFromZod, type ValidationIssue } from '../../contracts/errors.js';
import { toIssueCode } from '../../contracts/issue-codes.js';
import { MagicWordRecord } from '../../contracts/navigator-capsule.js';
import type { IndexedFile, RepoIndex } from '../../repomap/index.js';
import { splitWords } from '../../repomap/index.js';
import { isCandidateWord } from '../retrieval/stop-words.js';
import { termsOfWord } from '../retrieval/ranking.js';
import { openTextIndex, type TextIndex, type TextIndexFeed } from '../retrieval/text-index.js';
import type { TierRegistry, WordLookup } from './types.js';

/** Conventional registry locations inside a repository, tried in order. */
export const REGISTRY_PATHS = ['.navkernel/magic-words.jsonl', 'magic-words.jsonl', 'data/magic-words.jsonl', 'docs/magic-words.jsonl'];

const MANIFESTS = new Set([
  'package.json', 'pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'go.mod', 'cargo.toml', 'pom.xml',
  'build.gradle', 'build.gradle.kts', 'deno.json', 'composer.json', 'gemfile', 'makefile',
]);
const ENTRY_STEMS = new Set(['index', 'main', 'app', 'lib', 'mod', '__init__', '__main__', 'cli']);

/** Tier-0 files: top-level README/docs, manifests, and entry points (root, `src/`, `cmd/*`). */
export function trunkFiles(files: IndexedFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    const parts = f.path.split('/');
    const base = parts[parts.length - 1]!.toLowerCase();
    const stem = base.replace(/\.[^.]+$/, '').replace(/\.d$/, '');
    const depth = parts.length;
    const isDoc = /^readme(\.|$)/.test(base) || (depth === 2 && parts[0] === 'docs' && /\.(md|mdx|rst|txt)$/.test(base));
    const isManifest = depth === 1 && MANIFESTS.has(base);
    const isEntry =
      f.language !== 'text' &&
      f.language !== 'markdown' &&
      ENTRY_STEMS.has(stem) &&
      (depth === 1 || (depth === 2 && parts[0] === 'src') || (depth === 3 && parts[0] === 'cmd'));
    if ((isDoc && depth <= 2) || isManifest || isEntry) out.push(f.path);
  }
  return out.sort();
}

/** Tier-0 files by file list: a long-lived process gets the same list back for an unchanged repository (see indexRepo). */
const trunkMemo = new WeakMap<readonly IndexedFile[], string[]>();
function trunkOf(files: IndexedFile[]): string[] {
  let t = trunkMemo.get(files);
  if (!t) trunkMemo.set(files, (t = trunkFiles(files)));
  return [...t];
}

/** The words a file anchors: from its path, its definitions, and (Markdown) its top headings (repo registries without paths). */
export function fileWords(f: IndexedFile): Set<string> {
  const words = new Set<string>();
  for (const w of splitWords(f.path.replace(/\.[^./]+$/, ''))) if (isCandidateWord(w)) words.add(w);
  for (const d of f.outline.defs) {
    if (d.kind === 'heading' && d.parent !== null && f.outline.defs[d.parent]?.parent !== null) continue;
    for (const w of splitWords(d.name)) if (isCandidateWord(w)) words.add(w);
  }
  return words;
}

/**
 * The built registry: the repository's full-text index. Every word whose terms (the word, its stem, a
 * compound's whole form) occur in the index is a registry word; its files are the files containing it.
 * No records are materialised (a word's tier is where its best file sits, decided by the traversal).
 */
export function textRegistry(index: RepoIndex, text: TextIndex): TierRegistry {
  const trunk = trunkOf(index.files);
  const known = new Map<string, boolean>();
  const lookup: WordLookup = {
    get(k) {
      const key = k.toLowerCase();
      let ok = known.get(key);
      if (ok === undefined) known.set(key, (ok = /^[a-z0-9]+$/.test(key) && termsOfWord(key, text).length > 0));
      return ok ? key : undefined;
    },
    has(k) {
      return lookup.get(k) !== undefined;
    },
  };
  const memo = new Map<string, string[]>();
  const files = {
    get(w: string): string[] | undefined {
      let list = memo.get(w);
      if (!list) {
        const set = new Set<string>();
        for (const t of termsOfWord(w, text)) for (const p of text.filesWith(t)) set.add(p);
        memo.set(w, (list = [...set].sort()));
      }
      return list;
    },
  };
  return { source: 'built', origin: text.origin, records: [], lookup, files, text, trunk };
}

/** A registry from records: resolves each word's `paths` globs against the index (or, without paths, the files it occurs in). */
export function toRegistry(source: TierRegistry['source'], origin: string, records: MagicWordRecord[], index: RepoIndex, text: TextIndex, trunkHint?: string[]): TierRegistry {
  const lookup = new Map<string, string>();
  for (const r of records) lookup.set(r.word.toLowerCase(), r.word);
  for (const r of records) for (const a of r.aliases) if (!lookup.has(a.toLowerCase())) lookup.set(a.toLowerCase(), r.word);
  let occurrences: Map<string, string[]> | undefined;
  const occurrenceFiles = (w: string): string[] => {
    if (!occurrences) {
      occurrences = new Map();
      for (const f of index.files)
        for (const x of fileWords(f)) {
          let l = occurrences.get(x);
          if (!l) occurrences.set(x, (l = []));
          l.push(f.path);
        }
    }
    // A compound word (forbidden_state) occurs where all its parts do.
    const parts = splitWords(w);
    if (parts.length <= 1) return occurrences.get(w) ?? [];
    const sets = parts.map((p) => new Set(occurrences!.get(p) ?? []));
    return [...sets[0]!].filter((f) => sets.every((s) => s.has(f)));
  };
  const files = new Map<string, string[]>();
  const paths = index.files.map((f) => f.path);
  const known = new Set(paths);
  for (const r of records) {
    let list: string[];
    if (r.paths.length) {
      // Literal paths (all of a built registry) resolve by lookup; only real globs are matched.
      const globs = r.paths.filter((p) => /[*?[\]{}()!]/.test(p) && !known.has(p));
      list = r.paths.filter((p) => known.has(p));
      if (globs.length) {
        const m = picomatch(globs, { dot: true });
        list.push(...paths.filter((p) => m(p)));
      }
    } else list = occurrenceFiles(r.word.toLowerCase());
    files.set(r.word, [...new Set(list)].sort());
  }
  const trunk = new Set(trunkHint ?? trunkFiles(index.files));
  if (source === 'repo') for (const r of records) if (r.tier === 0) for (const f of files.get(r.word) ?? []) if (r.paths.length) trunk.add(f);
  return { source, origin, records, lookup, files, text, trunk: [...trunk].sort() };
}

/** Parses a magic-words JSONL file; every bad line is reported at once with its line number. */
export function parseRegistryJsonl(text: string, source: string): MagicWordRecord[] {
  const records: MagicWordRecord[] = [];
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let doc: unknown;
    try {
      doc = JSON.parse(line);
    } catch (err) {
      issues.push({ line: i + 1, path: [], code: 'invalid_json', message: (err as Error).message });
      return;
    }
    const r = MagicWordRecord.safeParse(doc);
    if (!r.success) {
      for (const e of issuesFromZod(r.error.issues, toIssueCode)) issues.push({ ...e, line: i + 1 });
      return;
    }
    if (seen.has(r.data.word)) issues.push({ line: i + 1, path: ['word'], code: 'duplicate', message: `word ${JSON.stringify(r.data.word)} appears twice`, word: r.data.word });
    seen.add(r.data.word);
    records.push(r.data);
  });
  if (issues.length) throw new ValidationError('INVALID_REGISTRY', source, issues);
  return records;
}

/** Serialises records as JSONL (one record per line, in the given order). */
export function registryToJsonl(records: MagicWordRecord[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

export interface LoadRegistryOptions {
  /** An explicit registry file (`--registry`); otherwise the conventional paths, otherwise built. */
  registryFile?: string;
  /** Cache directory for the persistent full-text index; false keeps it in memory. */
  cacheDir?: string | false;
  /** The full-text index as written during the parse (see textIndexFeed), finished here. */
  feed?: TextIndexFeed;
}

/** Where the persistent text index of a repository lives in a cache directory. */
export function textIndexFile(cacheDir: string, root: string): string {
  return path.join(cacheDir, 'navigator', `text-${createHash('sha256').update(root).digest('hex').slice(0, 16)}.sqlite`);
}

/** The registry for a repository: an explicit file, a conventional one in the repo, or the full-text index itself. */
export function loadRegistry(index: RepoIndex, options: LoadRegistryOptions = {}): TierRegistry {
  const text = openTextIndex(index, options.cacheDir ? textIndexFile(options.cacheDir, index.root) : false, options.feed);
  if (options.registryFile) {
    const records = parseRegistryJsonl(readFileSync(options.registryFile, 'utf8'), options.registryFile);
    return toRegistry('repo', options.registryFile, records, index, text);
  }
  for (const rel of REGISTRY_PATHS) {
    if (index.files.some((f) => f.path === rel)) {
      const records = parseRegistryJsonl(readFileSync(path.join(index.root, rel), 'utf8'), rel);
      return toRegistry('repo', rel, records, index, text);
    }
  }
  return textRegistry(index, text);
}
