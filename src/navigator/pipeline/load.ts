import type { ContextLoadReceipt, FlightPlan, NavigatorBudget, NavigatorConstraints } from '../../contracts/index.js';
import { readFileSync } from 'node:fs';
import { countTokens, fileHeader, resolveInsideRoot, type IndexedFile, type Level, type MapFile, type RepoIndex } from '../../repomap/index.js';
import { COMPRESSION_GATE } from './compression.js';
import { termsOfWord } from '../retrieval/ranking.js';
import type { TextIndex } from '../retrieval/text-index.js';
import { inScope } from './traverse.js';
import { selectLines } from '../retrieval/windows.js';
import { fileLines, lineRanges, rangeSha256 } from '../retrieval/line-ranges.js';
import type { LoadResult, MagicWord, PlannedFile } from './types.js';
import type { RankedDefinition } from '../retrieval/evidence/index.js';
import type { PickConfidence } from '../retrieval/confidence.js';

export interface LoadInput {
  task: string;
  words: MagicWord[];
  /** Files planned by this pass's traversal, trunk first. */
  planned: PlannedFile[];
  index: RepoIndex;
  /** The full-text index (term weights for finding where the words are). */
  text: TextIndex;
  budget: NavigatorBudget;
  constraints: NavigatorConstraints;
  pass: number;
  /** Tool calls already spent by earlier passes. */
  tool_calls_before: number;
  /** The task's ranked definitions (evidence), reported in the receipt. */
  definitions?: RankedDefinition[];
  /** How sure the ranking is of its first file, reported in the receipt. */
  confidence?: PickConfidence;
}

/** Ranked definitions the receipt reports, at most. */
export const RECEIPT_DEFINITIONS = 20;

const round4 = (x: number) => Math.round(x * 10000) / 10000;

/** The FlightPlan that renders a load plan: everything hidden but the planned files, at their levels. */
export function planToFlightPlan(planned: PlannedFile[], words: MagicWord[], maxTokens: number): FlightPlan {
  const escape = (p: string) => p.replace(/[*?[\]{}()!+@]/g, (c) => `\\${c}`);
  return {
    budget: maxTokens,
    focus: {
      paths: planned.map((p) => ({ pattern: escape(p.path), weight: 10 })),
      symbols: words.map((w) => ({ name: w.word, weight: 10 })),
    },
    verbosity: [
      { pattern: '**', level: 0 },
      ...planned.map((p) => (p.sections ? { pattern: escape(p.path), level: p.level, sections: p.sections } : { pattern: escape(p.path), level: p.level })),
    ],
    custom_queries: [],
  };
}

/** The receipt's `definitions`: the best ranked definitions, each saying whether its file was loaded. */
function receiptDefinitions(defs: RankedDefinition[], loaded: ReadonlySet<string>): NonNullable<ContextLoadReceipt['definitions']> {
  return defs.slice(0, RECEIPT_DEFINITIONS).map((d) => ({
    path: d.path,
    symbol: d.symbol,
    kind: d.kind,
    range: [d.start, d.end] as [number, number],
    ...(d.line !== undefined ? { line: d.line } : {}),
    score: d.score,
    evidence: d.evidence.slice(0, 4),
    loaded: loaded.has(d.path),
  }));
}

/** The first lines of context.md. */
export function contextTitle(task: string, words: MagicWord[]): string {
  return `# Context for: ${task.replace(/\s+/g, ' ').trim()}\nmagic words: ${words.map((w) => w.word).join(', ')}`;
}

/** Fewest lines a planned file is given while lines remain (a window and its signature). */
export const MIN_FILE_LINES = 12;
/** Tokens kept back for each later planned file while one file's lines are chosen (a short window and its header). */
export const MIN_FILE_TOKENS = 150;
/** Lines are shared out in proportion to relevance to this power: the best files get most, the tail its windows. */
export const RELEVANCE_POWER = 2;
const MAX_LINE = 240;
const clip = (line: string) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line);

/** Renders the chosen lines of a file: a header, then numbered lines with `⋮` where lines are skipped. */
export function renderLines(file: IndexedFile, lines: string[], chosen: number[], level: Level): string {
  const full = chosen.length === lines.length && lines.length > 0;
  let out = fileHeader(file, level, full ? undefined : `${chosen.length} shown`);
  let prev = 0;
  for (const l of chosen) {
    if (!full && l > prev + 1) out += '⋮\n';
    out += full ? `${clip(lines[l - 1]!)}\n` : `${l}│${clip(lines[l - 1]!)}\n`;
    prev = l;
  }
  if (!full && prev < lines.length && chosen.length) out += '⋮\n';
  return out;
}

/** Term weights (idf) of the magic words, for finding where they are in a file. */
function termWeights(words: MagicWord[], index: RepoIndex, text: TextIndex): Map<string, number> {
  const n = Math.max(1, text.size);
  const out = new Map<string, number>();
  for (const w of words) for (const t of termsOfWord(w.word, text)) out.set(t, Math.log(1 + n / Math.max(1, text.docFreq(t))));
  return out;
}

/**
 * LOAD_CONTEXT: for each planned file in plan order (trunk first, then by rank), the lines where the
 * magic words are — the densest windows widened to their definitions, plus the outline of the rest —
 * within max_files (and the tool-call budget), max_lines and the token budget. Lines are shared out by
 * relevance squared (a better file gets much more, every file at least MIN_FILE_LINES while lines remain,
 * and MIN_FILE_TOKENS of the token budget, at most half of what is left, is kept back for each later file);
 * max_lines bounds the lines shown, and the tokens stay within the compression gate's share of the corpus (corpus / 2)
 * as far as each file fits there: a file is shown with fewer lines, never left out, for the gate (a tiny repository is not shown whole just because the budget allows). Accounting (seed 002 "Silent Context Spill"): `lines_read` is every line of a file
 * read (the whole file: the windows are found by reading it), `lines_shown` the lines put in the
 * context, as `ranges` with a sha256 each; a file read but then left out is listed apart. Tokens are counted of what is loaded only; the corpus is
 * estimated from its bytes. The receipt starts empty on every pass.
 */
export async function loadContext(input: LoadInput): Promise<LoadResult> {
  const { index, budget } = input;
  const plan = planToFlightPlan(input.planned, input.words, budget.max_tokens);
  const text = input.text;
  const weights = termWeights(input.words, index, text);
  // One tool call reads the registry; each file read is one more.
  const callsLeft = Math.max(0, budget.max_tool_calls - input.tool_calls_before - 1);
  const maxFiles = Math.min(budget.max_files, callsLeft);
  const title = `${contextTitle(input.task, input.words)}\n\n`;
  const byPathFile = new Map(index.files.map((f) => [f.path, f]));
  let tokensUsed = countTokens(title);
  const allowed = inScope(input.constraints);
  const corpus = index.files.filter((f) => allowed(f.path));
  const corpusTokens = corpus.reduce((s, f) => s + f.tokens, 0);
  // The compression gate's share of the corpus (2% below it: blocks are counted one by one, and the ratio is rounded).
  const gateLimit = Math.min(budget.max_tokens, Math.floor((0.98 * corpusTokens) / COMPRESSION_GATE));
  let linesLeft = budget.max_lines;
  const loaded: { map: MapFile; block: string; matched: string; planned: PlannedFile; shown: number[]; lines: string[] }[] = [];
  const readNotLoaded: { path: string; lines_read: number }[] = [];
  const cut: string[] = [];
  const queue = input.planned.filter((p) => byPathFile.has(p.path));
  const relevance = queue.map((p) => Math.max(0.05, p.relevance) ** RELEVANCE_POWER);
  for (let i = 0; i < queue.length; i++) {
    const p = queue[i]!;
    const file = byPathFile.get(p.path)!;
    if (loaded.length >= maxFiles || loaded.length + readNotLoaded.length >= callsLeft || linesLeft <= 0 || budget.max_tokens - tokensUsed < 8) {
      cut.push(p.path);
      continue;
    }
    const after = Math.min(queue.length - i - 1, maxFiles - loaded.length - 1);
    const share = relevance[i]! / relevance.slice(i, i + 1 + after).reduce((a, b) => a + b, 0);
    const first = Math.max(Math.min(MIN_FILE_LINES, linesLeft), Math.min(linesLeft - after * MIN_FILE_LINES, Math.floor(linesLeft * share)));
    let allowance = first;
    // Within the gate's share of the corpus while a file fits there; a file that does not is bounded by the budget alone.
    let tokenLimit = gateLimit;
    const content = readFileSync(resolveInsideRoot(index.root, file.path), 'utf8');
    const lines = fileLines(content);
    let done = false;
    while (allowance > 0 && !done) {
      const sel = selectLines(content, file.outline.defs, weights, allowance, p.focus ?? [], file.language);
      if (!sel.lines.length) break;
      const level: Level = sel.lines.length === lines.length ? 4 : sel.windows.length ? 3 : 2;
      const block = renderLines(file, lines, sel.lines, level);
      const tokens = countTokens(block);
      // Tokens kept back for the later files: MIN_FILE_TOKENS each, at most half of what is left.
      const reserve = after * Math.max(0, Math.min(MIN_FILE_TOKENS, Math.floor((tokenLimit - tokensUsed) / (2 * (after + 1)))));
      if (tokensUsed + tokens > tokenLimit - reserve) {
        allowance = Math.floor(allowance / 2);
        if (allowance === 0 && tokenLimit < budget.max_tokens) {
          tokenLimit = budget.max_tokens;
          allowance = first;
        }
        continue;
      }
      const matchedSet = new Set(sel.matched);
      const matched = sel.lines.filter((l) => matchedSet.has(l)).map((l) => `${l}│${clip(lines[l - 1]!)}\n`).join('');
      tokensUsed += tokens;
      linesLeft -= sel.lines.length;
      loaded.push({
        map: { path: file.path, level, wanted_level: p.level, tokens, lines_read: lines.length, rank: i + 1, score: p.relevance, matched_tokens: 0, captures: 0 },
        block,
        matched,
        planned: p,
        shown: sel.lines,
        lines,
      });
      done = true;
    }
    if (!done) {
      cut.push(p.path);
      readNotLoaded.push({ path: file.path, lines_read: lines.length });
    }
  }
  let context = title + loaded.map((l) => l.block).join('');
  // Blocks are counted one by one; joined text can differ by a token at a seam. Keep the limit hard.
  while (loaded.length && countTokens(context) > budget.max_tokens) {
    const dropped = loaded.pop()!;
    cut.push(dropped.map.path);
    readNotLoaded.push({ path: dropped.map.path, lines_read: dropped.map.lines_read });
    context = title + loaded.map((l) => l.block).join('');
  }
  for (const l of loaded) l.map.matched_tokens = l.matched ? countTokens(l.matched) : 0;
  const files = loaded.map((l) => ({ ...l.map, lines_shown: l.shown.length }));
  const linesShown = files.reduce((s, f) => s + f.lines_shown, 0);
  const receipt: ContextLoadReceipt = {
    schema_version: '1.0.0',
    agent_type: 'navigator',
    files_loaded: loaded.map((l) => {
      const ranges = lineRanges(l.shown);
      return {
        path: l.map.path,
        lines_read: l.map.lines_read,
        lines_shown: l.shown.length,
        ranges,
        range_sha256: ranges.map((r) => rangeSha256(l.lines, r)!),
        magic_word_match: l.planned.words[0] ?? '',
        relevance_score: l.planned.relevance,
      };
    }),
    total_lines_loaded: linesShown,
    total_lines_read: files.reduce((s, f) => s + f.lines_read, 0),
    budget_limit_lines: budget.max_lines,
    budget_used_fraction: round4(linesShown / budget.max_lines),
    null_checks_performed: true,
    ...(readNotLoaded.length ? { files_read_not_loaded: readNotLoaded } : {}),
    ...(input.definitions?.length ? { definitions: receiptDefinitions(input.definitions, new Set(files.map((f) => f.path))) } : {}),
    ...(input.confidence ? { confidence: input.confidence } : {}),
  };
  const matches: Record<string, string[]> = {};
  for (const l of loaded) matches[l.map.path] = l.planned.words;
  return {
    pass: input.pass,
    context,
    receipt,
    matches,
    files,
    flight_plan: plan,
    tokens_loaded: countTokens(context),
    matched_tokens: files.reduce((s, f) => s + f.matched_tokens, 0),
    lines_read: receipt.total_lines_read + readNotLoaded.reduce((s, f) => s + f.lines_read, 0),
    lines_shown: linesShown,
    tool_calls: input.tool_calls_before + 1 + files.length + readNotLoaded.length,
    cut_for_budget: cut,
    corpus_tokens: corpus.reduce((s, f) => s + f.tokens, 0),
    corpus_files: corpus.map((f) => f.path),
  };
}
