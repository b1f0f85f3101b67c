import path from 'node:path';
import picomatch from 'picomatch';
import type { NavigatorConstraints, TierPathEntry } from '../contracts/index.js';
import { type IndexedFile, type RepoIndex, splitWords } from '../repomap/index.js';
import { fileWords } from './registry.js';
import { isCandidateWord } from './stop-words.js';
import type { BranchResult, MagicWord, PlannedFile, ReviewResult, TierMap, TierRegistry, TrunkResult } from './types.js';

/** What traversal needs from the run. */
export interface TraversalInput {
  words: MagicWord[];
  registry: TierRegistry;
  index: RepoIndex;
  constraints: NavigatorConstraints;
  max_files: number;
  pass: number;
  /** The previous pass's review (pass 2 acts on it). */
  review?: ReviewResult;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Files the capsule's CONSTRAINTS allow to be loaded. */
export function inScope(constraints: NavigatorConstraints): (p: string) => boolean {
  const scope = constraints.scope.length ? picomatch(constraints.scope, { dot: true }) : undefined;
  const exclude = constraints.exclude.length ? picomatch(constraints.exclude, { dot: true }) : undefined;
  return (p) => (!scope || scope(p)) && !exclude?.(p);
}

/** How strongly a file anchors a word: 3 named after it, 2 defines it, 1 elsewhere in its path or headings. */
function strength(f: IndexedFile, word: string): number {
  const parts = splitWords(word);
  const has = (list: string[]) => parts.every((p) => list.includes(p));
  const stem = splitWords(path.basename(f.path).replace(/\.[^.]+$/, ''));
  if (has(stem)) return 3;
  if (f.outline.defs.some((d) => d.kind !== 'heading' && has(splitWords(d.name)))) return 2;
  return 1;
}

/** Relevance of a file to the magic words: Σ idf(word) × strength, over the words it anchors. */
export function relevance(f: IndexedFile, words: string[], registry: TierRegistry, total: number): { score: number; words: string[] } {
  const matched: { w: string; s: number }[] = [];
  let score = 0;
  for (const w of words) {
    const files = registry.files.get(w) ?? [];
    if (!files.includes(f.path)) continue;
    const s = strength(f, w) * Math.log(1 + total / Math.max(1, files.length));
    score += s;
    matched.push({ w, s });
  }
  matched.sort((a, b) => b.s - a.s || byPath(a.w, b.w));
  return { score: round(score), words: matched.map((m) => m.w) };
}

/** MAP_TO_TIERS: each magic word's tier (from the registry, never assumed) and the files it anchors. */
export function mapToTiers(words: MagicWord[], registry: TierRegistry): TierMap {
  const tiers = new Map(registry.records.map((r) => [r.word, r.tier]));
  return { words: words.map((w) => ({ word: w.word, tier: tiers.get(w.word) ?? w.tier, files: registry.files.get(w.word) ?? [] })) };
}

/** Words a trunk file covers: its path words and definitions; a document covers only its file-name words. */
function coverWords(f: IndexedFile): Set<string> {
  if (f.language === 'markdown' || f.language === 'text') {
    const out = new Set<string>();
    for (const w of splitWords(f.path.replace(/\.[^./]+$/, ''))) if (isCandidateWord(w)) out.add(w);
    return out;
  }
  return fileWords(f);
}

function covers(f: IndexedFile, word: string): boolean {
  const cw = coverWords(f);
  return splitWords(word).every((p) => cw.has(p)) || cw.has(word);
}

/**
 * TRAVERSE_TRUNK: visits the tier-0 files before anything else. A word is covered when a trunk code
 * file or manifest defines/names it (a document only by its file name); trunk files that mention a
 * word are loaded low (L2) either way.
 */
export function traverseTrunk(input: TraversalInput): TrunkResult {
  const { words, registry, index } = input;
  const files = new Map(index.files.map((f) => [f.path, f]));
  const allowed = inScope(input.constraints);
  const dropped = new Set(input.pass > 1 ? (input.review?.unmatched_files ?? []) : []);
  const trunk = registry.trunk.filter((p) => files.has(p) && allowed(p) && !dropped.has(p));
  const again = input.pass > 1 ? 're-navigation: ' : '';
  const entries: TierPathEntry[] = [
    {
      tier: 'T0',
      anchor: '',
      files_loaded: [],
      justification: `${again}trunk first: ${trunk.length} tier-0 file${trunk.length === 1 ? '' : 's'}${trunk.length ? ` (${trunk.slice(0, 4).join(', ')}${trunk.length > 4 ? ', …' : ''})` : ''}`,
    },
  ];
  const planned = new Map<string, PlannedFile>();
  const covered: string[] = [];
  const uncovered: string[] = [];
  const all = words.map((w) => w.word);
  for (const { word } of words) {
    const anchored = new Set(registry.files.get(word) ?? []);
    const hits = trunk.filter((p) => anchored.has(p));
    const cover = hits.filter((p) => covers(files.get(p)!, word));
    (cover.length ? covered : uncovered).push(word);
    if (!hits.length) continue;
    const ranked = hits
      .map((p) => ({ p, r: relevance(files.get(p)!, all, registry, index.files.length) }))
      .sort((a, b) => b.r.score - a.r.score || byPath(a.p, b.p))
      .slice(0, 2);
    for (const { p, r } of ranked) if (!planned.has(p)) planned.set(p, { path: p, tier: 0, words: r.words, relevance: r.score, level: 2 });
    entries.push({
      tier: 'T0',
      anchor: word,
      files_loaded: ranked.map((x) => x.p).sort(byPath),
      justification: `${again}"${word}" is ${cover.length ? 'covered' : 'mentioned'} by trunk file${ranked.length > 1 ? 's' : ''} ${ranked.map((x) => x.p).join(', ')}`,
    });
  }
  return { entries, planned: [...planned.values()], covered, uncovered, resolves: uncovered.length === 0 };
}

const MODULE_ENTRY = /^(index|mod|__init__|main|lib)\.[^.]+$/;

/**
 * BRANCH_IF_NEEDED: for each word the trunk left uncovered, descends tier 1 (top-level folder) →
 * tier 2 (module) → tier 3 (files), visiting only folders that hold files anchored by the word, and
 * plans the best leaves. A folder's own entry file that anchors the word is a branch hit (loaded low).
 */
export function branchIfNeeded(input: TraversalInput, trunk: TrunkResult): BranchResult {
  const { registry, index } = input;
  const files = new Map(index.files.map((f) => [f.path, f]));
  const allowed = inScope(input.constraints);
  const trunkSet = new Set(registry.trunk);
  const dropped = new Set(input.pass > 1 ? (input.review?.unmatched_files ?? []) : []);
  const all = input.words.map((w) => w.word);
  const again = input.pass > 1 ? 're-navigation: ' : '';
  const firstUncovered = new Set(input.pass > 1 ? (input.review?.uncovered ?? []) : []);
  // Re-navigation visits the words the review found uncovered first, and looks at one more leaf for them.
  const order = [...trunk.uncovered].sort((a, b) => Number(firstUncovered.has(b)) - Number(firstUncovered.has(a)));
  const entries: TierPathEntry[] = [];
  const seen = new Set<string>();
  const planned = new Map<string, PlannedFile>();
  const leaves: PlannedFile[] = [];
  for (const word of order) {
    const anchored = (registry.files.get(word) ?? []).filter((p) => !trunkSet.has(p) && allowed(p) && !dropped.has(p) && files.has(p));
    if (!anchored.length) {
      entries.push({ tier: 'T1', anchor: word, files_loaded: [], justification: `${again}"${word}" anchors no file outside the trunk in scope` });
      continue;
    }
    const ranked = anchored
      .map((p) => ({ p, r: relevance(files.get(p)!, all, registry, index.files.length) }))
      .sort((a, b) => b.r.score - a.r.score || byPath(a.p, b.p));
    const k = firstUncovered.has(word) ? 3 : 2;
    for (const { p, r } of ranked.slice(0, k)) {
      const parts = p.split('/');
      const chain: [string, string, string][] = [];
      if (parts.length > 1) chain.push(['T1', parts[0]!, `${parts[0]}/`]);
      if (parts.length > 2) chain.push(['T2', parts.slice(0, 2).join('/'), `${parts.slice(0, 2).join('/')}/`]);
      for (const [tier, folder, label] of chain) {
        const key = `${tier}\0${word}\0${folder}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const under = anchored.filter((x) => x.startsWith(`${folder}/`));
        const entryFile = under.find((x) => x.slice(folder.length + 1).match(MODULE_ENTRY) && x !== p);
        const hit = entryFile && !planned.has(entryFile) ? entryFile : undefined;
        if (hit) {
          const hr = relevance(files.get(hit)!, all, registry, index.files.length);
          planned.set(hit, { path: hit, tier: tier === 'T1' ? 1 : 2, words: hr.words, relevance: hr.score, level: 2 });
        }
        entries.push({
          tier,
          anchor: word,
          files_loaded: hit ? [hit] : [],
          justification: `${again}"${word}": ${under.length} of ${anchored.length} anchored file${anchored.length === 1 ? '' : 's'} under ${label}`,
        });
      }
      const f = files.get(p)!;
      const defsHit = f.outline.defs.filter((d) => d.kind !== 'heading' && r.words.some((w) => splitWords(d.name).join('_').includes(splitWords(w).join('_'))));
      entries.push({
        tier: 'T3',
        anchor: word,
        files_loaded: [p],
        justification: `${again}"${word}" ${defsHit.length ? `is defined in ${p} (${defsHit.slice(0, 3).map((d) => d.name).join(', ')})` : `names ${p}`}; relevance ${r.score}`,
      });
      if (!planned.has(p) && !leaves.some((l) => l.path === p)) leaves.push({ path: p, tier: 3, words: r.words, relevance: r.score, level: 3 });
    }
  }
  // The best leaves are rendered high: their matching definitions in full, the rest as structure.
  leaves.sort((a, b) => b.relevance - a.relevance || byPath(a.path, b.path));
  const high = Math.max(1, Math.ceil(input.max_files / 2));
  leaves.forEach((l, i) => {
    if (i >= high) return;
    const f = files.get(l.path)!;
    const patterns = l.words.filter((w) => f.outline.defs.some((d) => d.kind !== 'heading' && splitWords(d.name).join('').includes(splitWords(w).join(''))));
    if (patterns.length) {
      l.level = 2;
      l.sections = patterns.map((w) => ({ pattern: `*${splitWords(w).join('*')}*`, level: 4 }));
    } else l.level = 4;
  });
  return { entries, planned: [...planned.values(), ...leaves] };
}
