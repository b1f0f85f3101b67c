import picomatch from 'picomatch';
import type { NavigatorConstraints, TierPathEntry } from '../../contracts/index.js';
import type { RepoIndex } from '../../repomap/index.js';
import { pickConfidence } from '../retrieval/confidence.js';
import { pythonFirst } from '../retrieval/python-first.js';
import { pythonTestsAfter } from '../retrieval/python-tests-after.js';
import { rankForTask, type RankedFile, type TaskRanking } from '../retrieval/ranking.js';
import { wholeFileBest, withWholeFileBest } from '../retrieval/whole-file.js';
import type { ResolvedEvidence } from '../retrieval/evidence/index.js';
import type { BranchResult, MagicWord, PlannedFile, ReviewResult, TierMap, TierRegistry, TrunkResult } from './types.js';

/** What traversal needs from the run. */
export interface TraversalInput {
  /** The task, verbatim (what it is about decides the class weights). */
  task: string;
  words: MagicWord[];
  registry: TierRegistry;
  index: RepoIndex;
  constraints: NavigatorConstraints;
  max_files: number;
  pass: number;
  /** The previous pass's review (pass 2 acts on it). */
  review?: ReviewResult;
  /** The task's evidence resolved in the repository (ranked definitions and their files). */
  evidence?: ResolvedEvidence;
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Files the capsule's CONSTRAINTS allow to be loaded. */
export function inScope(constraints: NavigatorConstraints): (p: string) => boolean {
  const scope = constraints.scope.length ? picomatch(constraints.scope, { dot: true }) : undefined;
  const exclude = constraints.exclude.length ? picomatch(constraints.exclude, { dot: true }) : undefined;
  return (p) => (!scope || scope(p)) && !exclude?.(p);
}

/** The task ranking of a traversal input, computed once per pass (trunk and branch share it). */
const rankings = new WeakMap<TraversalInput['registry'], Map<string, TaskRanking>>();
export function rankingFor(input: TraversalInput): TaskRanking {
  const dropped = new Set(input.pass > 1 ? (input.review?.unmatched_files ?? []) : []);
  const key = JSON.stringify([input.task, input.words.map((w) => w.word), [...dropped].sort(), input.constraints.scope, input.constraints.exclude]);
  let memo = rankings.get(input.registry);
  if (!memo) rankings.set(input.registry, (memo = new Map()));
  let r = memo.get(key);
  if (!r) {
    const allowed = inScope(input.constraints);
    const anchored = input.registry.source === 'repo' ? new Map(input.words.map((w) => [w.word, input.registry.files.get(w.word) ?? []])) : undefined;
    r = rankForTask(input.task, input.words, input.index, input.registry.text, (p) => allowed(p) && !dropped.has(p), anchored, input.evidence);
    memo.set(key, r);
  }
  return r;
}

/** Plain search's best files for a pass's task, asked once per ranking. */
const wholeFiles = new WeakMap<TaskRanking, string[]>();
function wholeFileFor(input: TraversalInput, ranking: TaskRanking): string[] {
  let w = wholeFiles.get(ranking);
  if (!w) wholeFiles.set(ranking, (w = wholeFileBest(input.task, input.registry.text)));
  return w;
}

/** The evidenced definitions of a file, best first (at most 6). */
function focusOf(input: TraversalInput, path: string): Pick<PlannedFile, 'focus'> {
  const defs = (input.evidence?.definitions ?? []).filter((d) => d.path === path).slice(0, 6);
  return defs.length ? { focus: defs } : {};
}

/** MAP_TO_TIERS: each magic word's tier (from the registry, never assumed) and the files it anchors. */
export function mapToTiers(words: MagicWord[], registry: TierRegistry): TierMap {
  const tiers = new Map(registry.records.map((r) => [r.word, r.tier]));
  return { words: words.map((w) => ({ word: w.word, tier: tiers.get(w.word) ?? w.tier, files: registry.files.get(w.word) ?? [] })) };
}

const why = (f: RankedFile) =>
  `score ${f.score} (text ${f.text}${f.evidence ? `, evidence ${f.evidence}` : ''}${f.definition ? `, ${f.definition === 1 ? 'defines' : 'names'} ${f.words[0]}` : ''}${f.graph >= 0.05 ? `, graph ${f.graph}` : ''}${f.class !== 'source' ? `, ${f.class}` : ''})`;

/** The files a pass loads: the best of the ranking within max_files; a second pass adds the best file of each uncovered word. */
function picks(input: TraversalInput): RankedFile[] {
  const ranking = rankingFor(input);
  // In rank order, best first; a conclusive pick stops before the files far below its best one, and a second pass
  // (the review found words uncovered, with room left) does not fill the places back with their files.
  const confidence = pickConfidence(ranking.files, input.max_files);
  // A full pick gives its last places to plain search's best files (whole-file.ts); a conclusive one stops short.
  const top = withWholeFileBest(ranking.files.slice(0, confidence.kept), ranking.files, wholeFileFor(input, ranking), input.max_files);
  if (input.pass > 1 && confidence.level !== 'high')
    for (const w of input.review?.uncovered ?? []) {
      if (top.some((f) => f.words.includes(w))) continue;
      const best = ranking.files.find((f) => f.words.includes(w));
      if (!best) continue;
      if (top.length >= input.max_files) top.pop();
      top.push(best);
    }
  return pythonTestsAfter(pythonFirst(top, ranking.files, ranking.language), ranking.language, input.task);
}

/**
 * TRAVERSE_TRUNK: visits the tier-0 files before anything else. A trunk file is planned when it ranks
 * among the files the task loads; a word is covered by the trunk when its best-ranked file is a trunk file.
 */
export function traverseTrunk(input: TraversalInput): TrunkResult {
  const { words, registry, index } = input;
  const files = new Set(index.files.map((f) => f.path));
  const allowed = inScope(input.constraints);
  const dropped = new Set(input.pass > 1 ? (input.review?.unmatched_files ?? []) : []);
  const trunk = registry.trunk.filter((p) => files.has(p) && allowed(p) && !dropped.has(p));
  const trunkSet = new Set(trunk);
  const again = input.pass > 1 ? 're-navigation: ' : '';
  const entries: TierPathEntry[] = [
    {
      tier: 'T0',
      anchor: '',
      files_loaded: [],
      justification: `${again}trunk first: ${trunk.length} tier-0 file${trunk.length === 1 ? '' : 's'}${trunk.length ? ` (${trunk.slice(0, 4).join(', ')}${trunk.length > 4 ? ', …' : ''})` : ''}`,
    },
  ];
  if (!words.length) return { entries, planned: [], covered: [], uncovered: [], resolves: false };
  const ranking = rankingFor(input);
  const chosen = picks(input).filter((f) => trunkSet.has(f.path));
  const planned: PlannedFile[] = chosen.map((f) => ({ path: f.path, tier: 0, words: f.words, relevance: f.score, level: 2, ...focusOf(input, f.path) }));
  const covered: string[] = [];
  const uncovered: string[] = [];
  for (const { word } of words) {
    const best = ranking.files.find((f) => f.words.includes(word));
    (best && trunkSet.has(best.path) ? covered : uncovered).push(word);
    const mine = chosen.filter((f) => f.words[0] === word);
    if (mine.length)
      entries.push({
        tier: 'T0',
        anchor: word,
        files_loaded: mine.map((f) => f.path).sort(byPath),
        justification: `${again}"${word}" is ${best && trunkSet.has(best.path) ? 'covered' : 'mentioned'} by trunk file${mine.length > 1 ? 's' : ''} ${mine.map((f) => `${f.path} ${why(f)}`).join(', ')}`,
      });
  }
  return { entries, planned, covered, uncovered, resolves: uncovered.length === 0 };
}

/**
 * BRANCH_IF_NEEDED: below the trunk, the best-ranked files of the task, each reached through its
 * top-level folder (T1) and module (T2) to the file (T3), with why it ranks where it does.
 */
export function branchIfNeeded(input: TraversalInput, trunk: TrunkResult): BranchResult {
  const { registry } = input;
  const trunkSet = new Set(registry.trunk);
  const again = input.pass > 1 ? 're-navigation: ' : '';
  const entries: TierPathEntry[] = [];
  const seen = new Set<string>();
  const planned: PlannedFile[] = [];
  const taken = new Set(trunk.planned.map((p) => p.path));
  const ranking = rankingFor(input);
  for (const f of picks(input)) {
    if (trunkSet.has(f.path) || taken.has(f.path)) continue;
    const word = f.words[0]!;
    const parts = f.path.split('/');
    const chain: [string, string][] = [];
    if (parts.length > 1) chain.push(['T1', parts[0]!]);
    if (parts.length > 2) chain.push(['T2', parts.slice(0, 2).join('/')]);
    for (const [tier, folder] of chain) {
      if (seen.has(folder)) continue;
      seen.add(folder);
      const under = ranking.files.filter((x) => x.path.startsWith(`${folder}/`)).length;
      entries.push({ tier, anchor: word, files_loaded: [], justification: `${again}"${word}": ${under} ranked file${under === 1 ? '' : 's'} under ${folder}/` });
    }
    entries.push({ tier: 'T3', anchor: word, files_loaded: [f.path], justification: `${again}${f.path} matches ${f.words.map((w) => `"${w}"`).join(', ')}; ${why(f)}` });
    planned.push({ path: f.path, tier: 3, words: f.words, relevance: f.score, level: 3, ...focusOf(input, f.path) });
  }
  return { entries, planned };
}
