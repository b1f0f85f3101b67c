import type { FileClass } from '../../repomap/file-class.js';
import type { IndexedFile, RepoIndex } from '../../repomap/repo-index.js';
import { splitWords, splitWordsShared } from '../../repomap/words.js';
import type { TextIndex } from './text-index.js';
import { lineTerms, stemOf } from './terms.js';
import type { ResolvedEvidence } from './evidence/index.js';
import { type Adjacency, cachedAdjacency, undirected } from './reference-adjacency.js';
import { rankingClasses } from './file-kind.js';
import type { RepositoryLanguage } from './repository-language.js';
import { includeEdges } from './include-graph.js';
import { dumpRanking, rankDumpOn } from './rank-dump.js';

/** A word of the task that the ranking weighs (the pipeline passes its magic words). */
export interface QueryWord {
  word: string;
}

/** The most resolved evidence adds to a file's score (the text score is at most 1). */
export const EVIDENCE_MAX = 1.6;
/** A file's raw evidence score squashed: strong evidence approaches EVIDENCE_MAX, weak evidence adds little. */
export const squashEvidence = (raw: number): number => (raw > 0 ? (EVIDENCE_MAX * raw) / (raw + 1) : 0);

/** How a file ranks for a task, and why. */
export interface RankedFile {
  path: string;
  score: number;
  /** BM25F over the fields, normalised to the best hit (0–1). */
  text: number;
  /** 1 when the file defines a name equal to a magic word, 0.5 for a name containing it, else 0. */
  definition: number;
  /** Personalised PageRank over the reference graph, seeded by the text hits, normalised (0–1). */
  graph: number;
  /** What the issue's resolved evidence adds (frames, messages, imports, names: see evidence/), squashed (0–EVIDENCE_MAX). */
  evidence: number;
  class: FileClass;
  /** Magic words whose terms occur in the file, rarest first. */
  words: string[];
}

export interface TaskRanking {
  files: RankedFile[];
  /** Per magic word: its index terms and the files containing them (sorted). */
  terms: Map<string, { terms: string[]; idf: number; files: Set<string> }>;
  /** What the task is about, for the class weights. */
  about: { tests: boolean; docs: boolean; examples: boolean };
  /** The language the repository's own code is mostly written in, counted with the ranking's classes. */
  language: RepositoryLanguage;
}

/** The index terms of a magic word: the word itself (a whole identifier) and its stem, those the index knows. */
export function termsOfWord(word: string, text: TextIndex): string[] {
  const parts = splitWords(word);
  const cands = parts.length > 1 ? [parts.join(''), ...parts.map(stemOf)] : [word.toLowerCase(), stemOf(word.toLowerCase())];
  return [...new Set(cands)].filter((t) => text.docFreq(t) > 0);
}

const TEST_WORDS = new Set(['test', 'tests', 'testing', 'spec', 'specs', 'unittest', 'pytest', 'fixture', 'fixtures', 'coverage']);
// Not `docstring`: a docstring lives in the source file it documents.
const DOC_WORDS = new Set(['doc', 'docs', 'documentation', 'readme', 'changelog', 'typo', 'typos', 'guide']);
/** An issue's title is about the docs only when it says what in them is wrong ("typo in the README"): "doc rendering
 * is broken" or "the docs say X but it does Y" report a bug in the code. */
const ISSUE_DOC_WORDS = new Set(['readme', 'changelog', 'typo', 'typos']);
/** Likewise a bug report whose title names tests ("caplog fixture doesn't restore the level after a test", "pytest
 * tries to collect X") reports a fault in what runs the tests; a flaky test is a fault in the test itself. */
const ISSUE_TEST_WORDS = new Set(['flaky']);
const EXAMPLE_WORDS = new Set(['example', 'examples', 'demo', 'demos', 'sample', 'samples', 'tutorial']);

/** Class weights: sources first; tests, docs and examples only when the task is about them; generated and vendored last. */
export function classWeight(c: FileClass, about: TaskRanking['about']): number {
  switch (c) {
    case 'source':
      return 1;
    case 'test':
      return about.tests ? 1.1 : 0.3;
    case 'doc':
      return about.docs ? 1.1 : 0.3;
    case 'example':
      return about.examples ? 1.1 : 0.3;
    // Manifests, CI and editor settings: below the sources like the documents (an issue's import paths and package
    // names are the manifest's rarest words, but the fix is in the code they name).
    case 'config':
      return 0.3;
    // A helper script in another language than the repository's code (its build, release, CI): below the sources.
    case 'script':
      return 0.3;
    default:
      return 0.1;
  }
}

/**
 * What a task is about, from its own words. An issue (several lines) is judged by its title, its first
 * non-blank line: its body quotes tests, docs and examples as reproductions and output, which says
 * nothing about where the fix goes.
 */
export function taskAbout(task: string): TaskRanking['about'] {
  const lines = task.split(/\r?\n/).filter((l) => l.trim() !== '');
  const issue = lines.length > 1;
  const words = new Set(splitWords(issue ? lines[0]! : task));
  const has = (s: Set<string>) => [...words].some((w) => s.has(w));
  return { tests: has(issue ? ISSUE_TEST_WORDS : TEST_WORDS), docs: has(issue ? ISSUE_DOC_WORDS : DOC_WORDS), examples: has(EXAMPLE_WORDS) };
}

/** How many of the best-ranked files are read for a tool's markers (file-kind.ts). */
export const CONTENT_CHECKED = 48;

/** How many times a term of an issue's title counts in the text query (the body's terms count once). */
export const TITLE_TIMES = 2;

/**
 * An issue's title says what it is about in a few words; its body adds reproductions, output and
 * environment that repeat many other words. For a task of several lines, the terms of its first
 * non-blank line count TITLE_TIMES in the full-text query; a one-line task has no body to outweigh.
 */
export function titleWeights(task: string, allTerms: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  const lines = task.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length < 2) return out;
  const title = new Set(lineTerms(lines[0]!));
  for (const t of allTerms) if (title.has(t)) out.set(t, TITLE_TIMES);
  return out;
}

/** In a task of several lines, terms in more than this share of the files are left out of the text query. */
export const ISSUE_DF_MAX = 0.1;

/**
 * The terms of the full-text query. An issue (several lines) names many everyday words — of its template,
 * its environment, its prose — that occur in a large share of the files; each adds little, but together
 * they lift the longest files, which hold them all, above the ones the issue is about. In a task of several
 * lines, terms found in more than ISSUE_DF_MAX of the files are left out (they still count as magic
 * words, for the windows and the matched words); a one-line task keeps every term.
 */
export function queryTerms(task: string, all: readonly string[], text: Pick<TextIndex, 'docFreq' | 'size'>): string[] {
  const lines = task.split(/\r?\n/).filter((l) => l.trim() !== '').length;
  if (lines < 2) return [...all];
  const max = ISSUE_DF_MAX * Math.max(1, text.size);
  const kept = all.filter((t) => text.docFreq(t) <= max);
  return kept.length ? kept : [...all];
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** The reference graph: file → files defining names it references (weights √count / definers), as aider builds it. */
function referenceGraph(files: IndexedFile[]): { to: number; w: number }[][] {
  const definers = new Map<string, number[]>();
  files.forEach((f, i) => {
    const seen = new Set<string>();
    for (const d of f.outline.defs) {
      if (d.kind === 'heading' || d.name.length < 3 || seen.has(d.name)) continue;
      seen.add(d.name);
      let list = definers.get(d.name);
      if (!list) definers.set(d.name, (list = []));
      list.push(i);
    }
  });
  const includes = includeEdges(files);
  return files.map((f, i) => {
    // C and C++ module structure (#include, header ↔ source) first, then the names.
    const acc = new Map<number, number>(includes[i]);
    for (const [name, count] of f.outline.refs) {
      const defs = definers.get(name);
      // A name defined in many files says little about which one is meant.
      if (!defs || defs.length > 8) continue;
      const w = Math.sqrt(count) / defs.length;
      for (const j of defs) if (j !== i) acc.set(j, (acc.get(j) ?? 0) + w);
    }
    return [...acc.entries()].sort((a, b) => a[0] - b[0]).map(([to, w]) => ({ to, w }));
  });
}

/**
 * Personalised PageRank where the walk follows references in both directions (a file that uses a hit
 * and the file a hit uses are both neighbours), restarting at the seeds in proportion to their weight.
 */
function personalisedPageRank(adj: Adjacency, seeds: Map<number, number>, iterations = 30, damping = 0.5): Float64Array<ArrayBuffer> {
  const { offsets, to, w: weight, total } = adj;
  const n = total.length;
  const personal = new Float64Array(n);
  let psum = 0;
  for (const [i, w] of seeds) psum += w;
  for (const [i, w] of seeds) personal[i] = w / psum;
  let rank = Float64Array.from(personal);
  for (let it = 0; it < iterations; it++) {
    const next = new Float64Array(n);
    let dangling = 0;
    for (let i = 0; i < n; i++) {
      const r = rank[i]!;
      if (r === 0) continue;
      if (total[i] === 0) {
        dangling += r;
        continue;
      }
      for (let k = offsets[i]!, end = offsets[i + 1]!; k < end; k++) next[to[k]!]! += (damping * r * weight[k]!) / total[i]!;
    }
    for (let i = 0; i < n; i++) next[i]! += (1 - damping + damping * dangling) * personal[i]!;
    rank = next;
  }
  return rank;
}

/** The key of the three characters of `s` at `i` (any UTF-16 units). */
const trigramAt = (s: string, i: number): number => (s.charCodeAt(i) * 65536 + s.charCodeAt(i + 1)) * 65536 + s.charCodeAt(i + 2);

/**
 * The best share among the words a name contains: `(whole) => max share of a word that is a substring of whole`, 0
 * when none is. Words of three characters or more are found through their first three (a name is tested at each of
 * its positions against the few words starting there), shorter ones by a plain search: the same answer as testing
 * every word, in far fewer tests when a long issue gives hundreds of words.
 */
export function substringShares(shareOf: ReadonlyMap<string, number>): (whole: string) => number {
  const byTrigram = new Map<number, [string, number][]>();
  const short: [string, number][] = [];
  for (const [w, r] of shareOf) {
    if (w.length < 3) {
      short.push([w, r]);
      continue;
    }
    const k = trigramAt(w, 0);
    const list = byTrigram.get(k);
    if (list) list.push([w, r]);
    else byTrigram.set(k, [[w, r]]);
  }
  return (whole) => {
    let best = 0;
    for (const [w, r] of short) if (r > best && whole.includes(w)) best = r;
    for (let i = 0; i + 3 <= whole.length; i++) {
      const list = byTrigram.get(trigramAt(whole, i));
      if (list) for (const [w, r] of list) if (r > best && whole.startsWith(w, i)) best = r;
    }
    return best;
  };
}

/** What a definition's name is matched by, task-independent: its parts joined (`backofflimit`) and each part's stem. */
interface NameForm {
  whole: string;
  stems: readonly string[];
}
const nameForms = new Map<string, NameForm>();
const NAME_FORMS_MAX = 200_000;
const formsOfFile = new WeakMap<object, readonly NameForm[]>();

/**
 * The name forms of a file's definitions (headings left out), each distinct name once, worked out once per outline:
 * a long-lived process ranks the same files for task after task, and only the words' shares change.
 */
function definitionForms(f: IndexedFile): readonly NameForm[] {
  let forms = formsOfFile.get(f.outline);
  if (forms) return forms;
  const seen = new Set<string>();
  const out: NameForm[] = [];
  for (const d of f.outline.defs) {
    if (d.kind === 'heading' || seen.has(d.name)) continue;
    seen.add(d.name);
    let form = nameForms.get(d.name);
    if (!form) {
      const parts = splitWordsShared(d.name);
      form = { whole: parts.join(''), stems: parts.map(stemOf) };
      if (nameForms.size >= NAME_FORMS_MAX) nameForms.clear();
      nameForms.set(d.name, form);
    }
    out.push(form);
  }
  formsOfFile.set(f.outline, (forms = out));
  return forms;
}

/**
 * Ranks the repository's files for a task's magic words: BM25F text score (rarer words weigh more),
 * a bonus for defining a magic word exactly (more than for a name that merely contains it), credit
 * through the reference graph for files that use or are used by the hits, times the class weight.
 * `allowed` filters the candidates (scope, files dropped by the review). Deterministic: ties by path.
 */
export function rankForTask(task: string, words: QueryWord[], index: RepoIndex, text: TextIndex, allowed: (p: string) => boolean, anchored?: Map<string, string[]>, evidence?: ResolvedEvidence): TaskRanking {
  const about = taskAbout(task);
  const N = Math.max(1, text.size);
  const terms = new Map<string, { terms: string[]; idf: number; files: Set<string> }>();
  for (const w of words) {
    const ts = termsOfWord(w.word, text);
    const files = new Set<string>();
    for (const t of ts) for (const p of text.filesWith(t)) files.add(p);
    for (const p of anchored?.get(w.word) ?? []) files.add(p);
    const idf = Math.log(1 + N / Math.max(1, files.size));
    terms.set(w.word, { terms: ts, idf, files });
  }
  const allTerms = queryTerms(task, [...terms.values()].flatMap((t) => t.terms), text);
  const hits = text.search(allTerms, 400, titleWeights(task, allTerms));
  const maxText = Math.max(1e-9, ...hits.map((h) => h.score));
  const textOf = new Map(hits.map((h) => [h.path, h.score / maxText]));
  for (const [w, t] of terms) for (const p of anchored?.get(w) ?? []) textOf.set(p, Math.max(textOf.get(p) ?? 0, 0.5));
  // Path order whatever order the index lists files in: nothing below may depend on it.
  const fileAt = [...index.files].sort((a, b) => byPath(a.path, b.path));
  const pos = new Map(fileAt.map((f, i) => [f.path, i]));
  const maxIdf = Math.max(1e-9, ...[...terms.values()].map((t) => t.idf));
  // Definitions: exact (the name is the word) beats partial (the name contains it).
  const wholeWords = words.map((w) => ({ w: w.word, whole: splitWords(w.word).join(''), stem: stemOf(w.word.toLowerCase()), idf: terms.get(w.word)?.idf ?? 0 }));
  // A name's score depends on the name alone: computed once per distinct name. Its best word is exact (the name's whole
  // form is the word's, or its one part stems to the word's stem: 1) or partial (the name contains the word, or a part
  // stems to its stem: 0.5), times the word's idf share. Words are looked up by whole form and stem, and tried as
  // substrings best share first (the same maximum as trying every word in turn, in far fewer tests on a long issue).
  const shareOf = new Map<string, number>();
  const stemShare = new Map<string, number>();
  for (const q of wholeWords) {
    const r = q.idf / maxIdf;
    if (!((shareOf.get(q.whole) ?? -1) >= r)) shareOf.set(q.whole, r);
    if (!((stemShare.get(q.stem) ?? -1) >= r)) stemShare.set(q.stem, r);
  }
  const containedShare = substringShares(shareOf);
  const nameScore = new Map<NameForm, number>();
  const scoreName = (form: NameForm): number => {
    let best = nameScore.get(form);
    if (best !== undefined) return best;
    best = 0;
    const exact = shareOf.get(form.whole);
    if (exact !== undefined && exact > best) best = exact;
    for (const stem of form.stems) {
      const r = stemShare.get(stem);
      if (r === undefined) continue;
      const v = form.stems.length === 1 ? r : 0.5 * r;
      if (v > best) best = v;
    }
    const r = containedShare(form.whole);
    if (0.5 * r > best) best = 0.5 * r;
    nameScore.set(form, best);
    return best;
  };
  const definition = (f: IndexedFile): number => {
    let best = 0;
    for (const form of definitionForms(f)) {
      const v = scoreName(form);
      if (v > best) best = v;
    }
    return best;
  };
  const wordSet = new Set(words.map((w) => splitWords(w.word).join('')));
  // An issue (several lines) names a manifest by its file name (`Cargo.toml`, `package.json`): its words `go`, `cargo`
  // or `package` are the language's and the ecosystem's, not the file's. A one-line task may name it by its stem.
  const oneLine = task.split(/\r?\n/).filter((l) => l.trim() !== '').length < 2;
  const taskLower = task.toLowerCase();
  const namesFile = (p: string) => {
    const file = p.slice(p.lastIndexOf('/') + 1);
    const base = file.replace(/\..*$/, '');
    if (!oneLine) return file.includes('.') && new RegExp(`(?<![\\w.-])${file.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`).test(taskLower);
    return base.length > 0 && wordSet.has(splitWords(base).join(''));
  };
  const kinds = rankingClasses(index, (p) => text.classOf(p), task);
  // Seeds for the graph: the text hits, weighted by score and class.
  const seeds = new Map<number, number>();
  for (const [p, s] of textOf) {
    const i = pos.get(p);
    if (i === undefined) continue;
    const cw = classWeight(kinds.classOf(p), about);
    if (s * cw > 0.05) seeds.set(i, s * cw);
  }
  const evOf = (p: string) => squashEvidence(evidence?.files.get(p)?.score ?? 0);
  for (const p of evidence?.files.keys() ?? []) {
    const i = pos.get(p);
    if (i === undefined) continue;
    const s = evOf(p) * classWeight(kinds.classOf(p), about);
    if (s > 0.05) seeds.set(i, (seeds.get(i) ?? 0) + s);
  }
  let graph: Float64Array<ArrayBuffer> = new Float64Array(fileAt.length);
  let adjacency: Adjacency | undefined;
  const adjacencyOf = (): Adjacency => (adjacency ??= cachedAdjacency(fileAt, text.derived, referenceGraph.toString() + includeEdges.toString(), () => undirected(referenceGraph(fileAt))));
  if (seeds.size) graph = personalisedPageRank(adjacencyOf(), seeds);
  // Only what the walk adds beyond the restart (a seed's own restart mass is its text score again).
  let maxGraph = 1e-12;
  for (let i = 0; i < graph.length; i++) if (graph[i]! > maxGraph) maxGraph = graph[i]!;
  const out: RankedFile[] = [];
  const termList = [...terms.entries()];
  for (let i = 0; i < fileAt.length; i++) {
    const f = fileAt[i]!;
    if (!allowed(f.path)) continue;
    const t = textOf.get(f.path) ?? 0;
    const g = graph[i]! / maxGraph;
    const e = evOf(f.path);
    if (t === 0 && g < 0.02 && e === 0) continue;
    const cls = kinds.classOf(f.path);
    const def = t > 0 ? definition(f) : 0;
    // A configuration file the task names (`package.json` for "the package manifest") is wanted like a source.
    const cw = cls === 'config' && namesFile(f.path) ? 1 : classWeight(cls, about);
    const score = (t + 0.35 * def + 0.25 * g + e) * cw;
    const matched = termList.filter(([, x]) => x.files.has(f.path)).sort((a, b) => b[1].idf - a[1].idf || byPath(a[0], b[0])).map(([w]) => w);
    // A file is loaded for a word it contains, never for its neighbours alone.
    if (!matched.length) continue;
    out.push({ path: f.path, score: round(score), text: round(t), definition: round(def), graph: round(g), evidence: round(e), class: cls, words: matched });
  }
  out.sort((a, b) => b.score - a.score || byPath(a.path, b.path));
  // The files near the top are read for a tool's markers (a parser generator's output, an amalgamated header): a
  // source by its path that a tool wrote ranks as generated.
  const hashOf = new Map(fileAt.map((f) => [f.path, f.hash]));
  let changed = false;
  for (const f of out.slice(0, CONTENT_CHECKED)) {
    if (f.class !== 'source') continue;
    const c = kinds.byContent(f.path, hashOf.get(f.path) ?? '');
    if (!c) continue;
    f.score = round((f.score * classWeight(c, about)) / classWeight(f.class, about));
    f.class = c;
    changed = true;
  }
  if (changed) out.sort((a, b) => b.score - a.score || byPath(a.path, b.path));
  // Measurement only (NAVKERNEL_RANK_DUMP): the whole ranking, for trying a rule offline.
  if (rankDumpOn())
    dumpRanking(out, {
      neighbours: (p) => {
        const a = adjacencyOf();
        const i = pos.get(p)!;
        const of: Record<string, number> = {};
        for (let k = a.offsets[i]!; k < a.offsets[i + 1]!; k++) of[fileAt[a.to[k]!]!.path] = (of[fileAt[a.to[k]!]!.path] ?? 0) + a.w[k]!;
        return of;
      },
      named: (p) => [...new Set(fileAt[pos.get(p)!]!.outline.defs.filter((d) => d.kind !== 'heading' && shareOf.has(splitWords(d.name).join(''))).map((d) => d.name))].slice(0, 30),
    });
  return { files: out, terms, about, language: kinds.language };
}
