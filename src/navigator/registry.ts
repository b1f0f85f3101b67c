import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { MagicWordRecord, ValidationError, type ValidationIssue } from '../contracts/index.js';
import type { IndexedFile, RepoIndex } from '../repomap/index.js';
import { splitWords } from '../repomap/index.js';
import { isCandidateWord } from './stop-words.js';
import type { TierRegistry } from './types.js';

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

/** Singular/plural variant used as a direct alias in built registries (tokens ↔ token). */
function inflection(w: string): string {
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('s') && !w.endsWith('ss') && w.length > 3) return w.slice(0, -1);
  if (w.endsWith('y') && !/[aeiou]y$/.test(w)) return `${w.slice(0, -1)}ies`;
  return `${w}s`;
}

const GRAVITY = [1, 0.7, 0.4, 0.2];
const DOMAIN = ['universal', 'universal', 'protocol', 'domain-specific'];

/** The words a file anchors: from its path, its definitions, and (Markdown) its top headings. */
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
 * Builds a tier registry from an index, deterministically: tier 0 the trunk, tier 1 top-level folders,
 * tier 2 the folders below them, tier 3 files. A word's tier is the shallowest place it occurs (a
 * trunk file, a top-level folder name, a module folder name, or anything in a file); its `paths` are
 * every file it occurs in.
 */
export function buildRegistry(index: RepoIndex): TierRegistry {
  const trunk = trunkFiles(index.files);
  const trunkSet = new Set(trunk);
  const occ = new Map<string, { tier: number; files: Set<string>; parent: string | null }>();
  const rootWord = splitWords(path.basename(index.root)).filter(isCandidateWord)[0] ?? 'repository';
  const note = (w: string, tier: number, file: string, parent: string | null) => {
    let o = occ.get(w);
    if (!o) occ.set(w, (o = { tier, files: new Set(), parent }));
    if (tier < o.tier) {
      o.tier = tier;
      o.parent = parent;
    }
    o.files.add(file);
  };
  for (const f of index.files) {
    const parts = f.path.split('/');
    const folderWord = (seg: string | undefined) => (seg ? splitWords(seg).filter(isCandidateWord)[0] ?? null : null);
    const top = parts.length > 1 ? parts[0] : undefined;
    const mod = parts.length > 2 ? parts[1] : undefined;
    const inTrunk = trunkSet.has(f.path);
    if (top) for (const w of splitWords(top)) if (isCandidateWord(w)) note(w, inTrunk ? 0 : 1, f.path, inTrunk ? null : rootWord);
    if (mod) for (const w of splitWords(mod)) if (isCandidateWord(w)) note(w, inTrunk ? 0 : 2, f.path, inTrunk ? null : folderWord(top) ?? rootWord);
    const parent = folderWord(mod) ?? folderWord(top) ?? rootWord;
    for (const w of fileWords(f)) note(w, inTrunk ? 0 : 3, f.path, inTrunk ? null : parent);
  }
  const words = [...occ.keys()].sort();
  const children = new Map<string, string[]>();
  for (const w of words) {
    const p = occ.get(w)!.parent;
    if (p && p !== w) {
      let list = children.get(p);
      if (!list) children.set(p, (list = []));
      list.push(w);
    }
  }
  const records: MagicWordRecord[] = words.map((w, i) => {
    const o = occ.get(w)!;
    const alias = inflection(w);
    const files = [...o.files].sort();
    return {
      id: `NK-${String(i + 1).padStart(4, '0')}`,
      word: w,
      tier: o.tier,
      definition: `occurs in ${files.length} file${files.length === 1 ? '' : 's'}, first ${files[0]}`,
      parent: o.tier === 0 ? null : o.parent === w ? rootWord : o.parent,
      children: o.tier === 3 ? [] : (children.get(w) ?? []),
      gravity: GRAVITY[o.tier]!,
      domain: DOMAIN[o.tier]!,
      related_words: [],
      aliases: occ.has(alias) ? [] : [alias],
      paths: files,
    };
  });
  return toRegistry('built', 'built from the repository', records, index, trunk);
}

/** A registry from records: resolves each word's `paths` globs against the index (or, without paths, the files it occurs in). */
export function toRegistry(source: TierRegistry['source'], origin: string, records: MagicWordRecord[], index: RepoIndex, trunkHint?: string[]): TierRegistry {
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
  return { source, origin, records, lookup, files, trunk: [...trunk].sort() };
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
      issues.push({ path: `line ${i + 1}`, code: 'invalid_json', message: (err as Error).message });
      return;
    }
    const r = MagicWordRecord.safeParse(doc);
    if (!r.success) {
      for (const e of r.error.issues) issues.push({ path: `line ${i + 1}: $${e.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`, code: e.code, message: e.message });
      return;
    }
    if (seen.has(r.data.word)) issues.push({ path: `line ${i + 1}: $.word`, code: 'duplicate', message: `word ${JSON.stringify(r.data.word)} appears twice` });
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
  /** Cache directory for built registries (keyed by the repository state hash); false disables. */
  cacheDir?: string | false;
}

/** The registry for a repository: an explicit file, a conventional one in the repo, or a built (cached) one. */
export function loadRegistry(index: RepoIndex, options: LoadRegistryOptions = {}): TierRegistry {
  if (options.registryFile) {
    const records = parseRegistryJsonl(readFileSync(options.registryFile, 'utf8'), options.registryFile);
    return toRegistry('repo', options.registryFile, records, index);
  }
  for (const rel of REGISTRY_PATHS) {
    if (index.files.some((f) => f.path === rel)) {
      const records = parseRegistryJsonl(readFileSync(path.join(index.root, rel), 'utf8'), rel);
      return toRegistry('repo', rel, records, index);
    }
  }
  if (options.cacheDir) {
    const file = path.join(options.cacheDir, 'navigator', `registry-${createHash('sha256').update(`${index.root}\0${index.state_hash}`).digest('hex').slice(0, 24)}.jsonl`);
    if (existsSync(file)) {
      try {
        return toRegistry('built', file, parseRegistryJsonl(readFileSync(file, 'utf8'), file), index);
      } catch {
        // a corrupt cache entry is rebuilt
      }
    }
    const built = buildRegistry(index);
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, registryToJsonl(built.records));
    renameSync(tmp, file);
    return { ...built, origin: file };
  }
  return buildRegistry(index);
}
