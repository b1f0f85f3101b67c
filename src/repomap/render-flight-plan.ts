import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import picomatch from 'picomatch';
import { FlightPlan, type FlightPlanInput, type SectionRule } from '../contracts/flight-plan.js';
import { ValidationError, issuesFromZod } from '../contracts/errors.js';
import { toIssueCode } from '../contracts/issue-codes.js';
import { captureLines, compileCustomQuery, isQueryProblem } from './custom-query.js';
import { isCodeLanguage } from './languages.js';
import { extractOutline } from './outline.js';
import { rankFiles, type SymbolFiles } from './rank.js';
import { type IndexedFile, indexRepo, type IndexOptions, type RepoIndex } from './repo-index.js';
import { type Level, renderFile, type RenderedFile } from './render-file.js';
import { resolveInsideRoot } from './safe-path.js';
import { countTokens } from './tokens.js';

/** One file of a rendered map. */
export interface MapFile {
  path: string;
  /** Level rendered (0 = left out). */
  level: Level;
  /** Level the FlightPlan asked for (before the budget degraded it). */
  wanted_level: Level;
  tokens: number;
  lines_read: number;
  /** 1-based rank in the ranking (1 = most important). */
  rank: number;
  score: number;
  /** Tokens of the rendered text owned by definitions matching `matchWords` (0 without them). */
  matched_tokens: number;
  /** Captures added by custom queries. */
  captures: number;
  /** Why the file is below its wanted level: `budget`, `max_files`, `max_lines`, or absent. */
  cut?: 'budget' | 'max_files' | 'max_lines';
}

/** MapMetadata of seed 000, computed from the real render. */
export interface MapMetadata {
  total_tokens: number;
  file_count: number;
  /** Paths rendered at L3-L4. */
  focus_areas: string[];
  /** Files at L0 (excluded by rules or by the budget). */
  excluded_count: number;
  /** Percentage of the token budget used (0-100). */
  budget_utilization: number;
}

export interface RenderFlightPlanOptions extends IndexOptions {
  /** Reuse an index (skips scanning). */
  index?: RepoIndex;
  /** A full-text lookup for focus symbols (files that contain one get the reference boost). */
  symbolFiles?: SymbolFiles;
  /** Level of files no verbosity rule matches (default 2). */
  defaultLevel?: Level;
  /** At most this many files rendered at L1 or above. */
  maxFiles?: number;
  /** At most this many lines read in total (sum of lines_read). */
  maxLines?: number;
  /** Lowercase words for `matched_tokens` (the navigator's magic words). */
  matchWords?: string[];
  /** First line of the text (default none). */
  title?: string;
  /** Paths to consider first, in this order, before the ranking (the navigator's load plan). */
  priority?: string[];
}

export interface RenderResult {
  text: string;
  /** Every indexed file, in path order, with its level (0 when left out). */
  files: MapFile[];
  metadata: MapMetadata;
  /** Problems that did not stop the render (custom queries that do not compile, files changed since indexing). */
  warnings: string[];
  index: RepoIndex;
}

interface Wanted {
  level: Level;
  sections?: SectionRule[];
}

function wantedFor(path: string, plan: FlightPlan, rules: ((p: string) => boolean)[], defaultLevel: Level): Wanted {
  let level: Level = defaultLevel;
  let sections: SectionRule[] | undefined;
  plan.verbosity.forEach((r, i) => {
    if (!rules[i]!(path)) return;
    if (r.level !== undefined) {
      level = r.level as Level;
      sections = r.sections;
    } else {
      sections = r.sections;
      if (level === 0) level = 1;
    }
  });
  return sections ? { level, sections } : { level };
}

function topLevel(w: Wanted): Level {
  const s = Math.max(0, ...(w.sections ?? []).map((r) => r.level));
  return (s >= 2 ? Math.max(w.level, s) : w.level) as Level;
}

function capped(w: Wanted, cap: Level): Wanted {
  const level = Math.min(w.level, cap) as Level;
  return w.sections ? { level, sections: w.sections.map((r) => ({ ...r, level: Math.min(r.level, cap) })) } : { level };
}

/**
 * Renders a repository map as a FlightPlan says: files ranked (reference-graph PageRank with the
 * focus path and symbol boosts), each rendered at the level of the last matching verbosity rule
 * (section rules inside), custom query captures added, and the budget enforced as a hard limit by
 * degrading lower-ranked files level by level (L4 → L1) and leaving out what still does not fit.
 */
export async function renderFlightPlan(repoRoot: string, planInput: FlightPlanInput | FlightPlan, options: RenderFlightPlanOptions = {}): Promise<RenderResult> {
  const parsed = FlightPlan.safeParse(planInput);
  if (!parsed.success) {
    throw new ValidationError(
      'INVALID_FLIGHT_PLAN',
      'flight plan',
      issuesFromZod(parsed.error.issues, toIssueCode),
    );
  }
  const plan = parsed.data;
  const index = options.index ?? (await indexRepo(repoRoot, options));
  const defaultLevel = options.defaultLevel ?? 2;
  const ruleMatchers = plan.verbosity.map((r) => picomatch(r.pattern, { dot: true }));
  const queryMatchers = plan.custom_queries.map((q) => picomatch(q.pattern, { dot: true }));
  const matchWords = options.matchWords ? new Set(options.matchWords.map((w) => w.toLowerCase())) : undefined;
  const warnings: string[] = [];
  const byPath = new Map(index.files.map((f) => [f.path, f]));
  let ranking = rankFiles(index.files, plan.focus, options.symbolFiles);
  if (options.priority?.length) {
    const pos = new Map(options.priority.map((p, i) => [p, i]));
    ranking = [...ranking.filter((r) => pos.has(r.path)).sort((a, b) => pos.get(a.path)! - pos.get(b.path)!), ...ranking.filter((r) => !pos.has(r.path))];
  }
  const header = options.title ? `${options.title}\n\n` : '';
  const budget = plan.budget;
  let used = countTokens(header);
  let linesUsed = 0;
  let filesUsed = 0;
  const result = new Map<string, { map: MapFile; rendered?: RenderedFile }>();
  const reported = new Set<string>();

  const loadText = async (file: IndexedFile): Promise<{ file: IndexedFile; text: string }> => {
    const text = readFileSync(resolveInsideRoot(index.root, file.path), 'utf8');
    const hash = createHash('sha256').update(text).digest('hex');
    if (hash === file.hash) return { file, text };
    warnings.push(`${file.path}: changed since it was indexed; outline recomputed`);
    return { file: { ...file, hash, outline: await extractOutline(file.language, text) }, text };
  };

  const capturesFor = async (file: IndexedFile, text: string): Promise<{ lines: number[]; captures: number }> => {
    const lang = file.language;
    if (!isCodeLanguage(lang)) return { lines: [], captures: 0 };
    const lines = new Set<number>();
    let captures = 0;
    for (let i = 0; i < plan.custom_queries.length; i++) {
      if (!queryMatchers[i]!(file.path)) continue;
      const q = await compileCustomQuery(lang, plan.custom_queries[i]!.query);
      if (isQueryProblem(q)) {
        const key = `${i}:${lang}`;
        if (!reported.has(key)) {
          reported.add(key);
          warnings.push(`custom_queries[${i}] (${lang}): ${q.message}`);
        }
        continue;
      }
      const got = await captureLines(lang, q, text);
      got.lines.forEach((l) => lines.add(l));
      captures += got.captures;
    }
    return { lines: [...lines], captures };
  };

  let rank = 0;
  for (const s of ranking) {
    rank++;
    const file = byPath.get(s.path)!;
    const wanted = wantedFor(file.path, plan, ruleMatchers, defaultLevel);
    const top = topLevel(wanted);
    const base: MapFile = { path: file.path, level: 0, wanted_level: top, tokens: 0, lines_read: 0, rank, score: s.score, matched_tokens: 0, captures: 0 };
    if (top === 0) {
      result.set(file.path, { map: base });
      continue;
    }
    if (options.maxFiles !== undefined && filesUsed >= options.maxFiles) {
      result.set(file.path, { map: { ...base, cut: 'max_files' } });
      continue;
    }
    if (budget - used < 2) {
      result.set(file.path, { map: { ...base, cut: 'budget' } });
      continue;
    }
    let loaded: { file: IndexedFile; text: string } | undefined;
    let extra: { lines: number[]; captures: number } = { lines: [], captures: 0 };
    let chosen: { r: RenderedFile; tokens: number } | undefined;
    let cut: MapFile['cut'];
    for (let cap = top; cap >= 1; cap--) {
      const w = capped(wanted, cap as Level);
      if (cap >= 2 && !loaded) {
        loaded = await loadText(file);
        if (plan.custom_queries.length) extra = await capturesFor(loaded.file, loaded.text);
      }
      const r = renderFile(loaded?.file ?? file, loaded?.text ?? '', w.level, {
        ...(w.sections ? { sections: w.sections } : {}),
        ...(cap >= 2 && extra.lines.length ? { extraLines: extra.lines } : {}),
        ...(matchWords ? { matchWords } : {}),
      });
      if (r.level === 0) break;
      const tokens = countTokens(r.text);
      if (used + tokens > budget) {
        cut = 'budget';
        continue;
      }
      if (options.maxLines !== undefined && linesUsed + r.lines_read > options.maxLines) {
        cut = cut ?? 'max_lines';
        continue;
      }
      chosen = { r, tokens };
      break;
    }
    if (!chosen) {
      result.set(file.path, { map: { ...base, ...(cut ? { cut } : {}) } });
      continue;
    }
    used += chosen.tokens;
    linesUsed += chosen.r.lines_read;
    filesUsed++;
    const map: MapFile = {
      ...base,
      level: chosen.r.level,
      tokens: chosen.tokens,
      lines_read: chosen.r.lines_read,
      matched_tokens: chosen.r.matched_text ? countTokens(chosen.r.matched_text) : 0,
      captures: chosen.r.level >= 2 ? extra.captures : 0,
      ...(chosen.r.level < top && cut ? { cut } : {}),
    };
    result.set(file.path, { map, rendered: chosen.r });
  }

  const ordered = index.files.map((f) => result.get(f.path)!);
  let text = header + ordered.map((e) => e.rendered?.text ?? '').join('');
  let total = countTokens(text);
  // Blocks are counted one by one; joined text can differ by a token at a seam. Keep the limit hard.
  while (total > budget) {
    const victim = [...ordered].filter((e) => e.rendered).sort((a, b) => b.map.rank - a.map.rank)[0];
    if (!victim) break;
    victim.rendered = undefined;
    victim.map = { ...victim.map, level: 0, tokens: 0, lines_read: 0, matched_tokens: 0, captures: 0, cut: 'budget' };
    text = header + ordered.map((e) => e.rendered?.text ?? '').join('');
    total = countTokens(text);
  }
  const files = ordered.map((e) => e.map);
  const included = files.filter((f) => f.level > 0);
  return {
    text,
    files,
    metadata: {
      total_tokens: total,
      file_count: included.length,
      focus_areas: included.filter((f) => f.level >= 3).map((f) => f.path),
      excluded_count: files.length - included.length,
      budget_utilization: Math.round((total / budget) * 10000) / 100,
    },
    warnings,
    index,
  };
}
