import type { ContextLoadReceipt, FlightPlan, NavigatorBudget, NavigatorConstraints } from '../contracts/index.js';
import { countTokens, renderFlightPlan, type RepoIndex } from '../repomap/index.js';
import { inScope } from './traverse.js';
import type { LoadResult, MagicWord, PlannedFile } from './types.js';

export interface LoadInput {
  task: string;
  words: MagicWord[];
  /** Files planned by this pass's traversal, trunk first. */
  planned: PlannedFile[];
  index: RepoIndex;
  budget: NavigatorBudget;
  constraints: NavigatorConstraints;
  pass: number;
  /** Tool calls already spent by earlier passes. */
  tool_calls_before: number;
}

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

/** The first lines of context.md. */
export function contextTitle(task: string, words: MagicWord[]): string {
  return `# Context for: ${task.replace(/\s+/g, ' ').trim()}\nmagic words: ${words.map((w) => w.word).join(', ')}`;
}

/**
 * LOAD_CONTEXT: renders the planned files through the repo map (trunk first, then by plan order),
 * within max_files (and the tool-call budget), max_lines (lines read) and the token budget. The
 * receipt starts empty on every pass.
 */
export async function loadContext(input: LoadInput): Promise<LoadResult> {
  const { index, budget } = input;
  const plan = planToFlightPlan(input.planned, input.words, budget.max_tokens);
  // One tool call reads the registry; each file read is one more.
  const callsLeft = Math.max(0, budget.max_tool_calls - input.tool_calls_before - 1);
  const render = await renderFlightPlan(index.root, plan, {
    index,
    maxFiles: Math.min(budget.max_files, callsLeft),
    maxLines: budget.max_lines,
    matchWords: input.words.map((w) => w.word),
    priority: input.planned.map((p) => p.path),
    title: contextTitle(input.task, input.words),
  });
  const byPath = new Map(input.planned.map((p) => [p.path, p]));
  const loaded = render.files.filter((f) => f.level > 0);
  const receipt: ContextLoadReceipt = {
    schema_version: '1.0.0',
    agent_type: 'navigator',
    files_loaded: loaded.map((f) => ({
      path: f.path,
      lines_read: f.lines_read,
      magic_word_match: byPath.get(f.path)?.words[0] ?? '',
      relevance_score: byPath.get(f.path)?.relevance ?? 0,
    })),
    total_lines_loaded: loaded.reduce((s, f) => s + f.lines_read, 0),
    budget_limit_lines: budget.max_lines,
    budget_used_fraction: round4(loaded.reduce((s, f) => s + f.lines_read, 0) / budget.max_lines),
    null_checks_performed: true,
  };
  const matches: Record<string, string[]> = {};
  for (const f of loaded) matches[f.path] = byPath.get(f.path)?.words ?? [];
  const allowed = inScope(input.constraints);
  const corpus = index.files.filter((f) => allowed(f.path));
  const cut = render.files.filter((f) => byPath.has(f.path) && f.cut !== undefined).map((f) => f.path);
  return {
    pass: input.pass,
    context: render.text,
    receipt,
    matches,
    files: loaded,
    flight_plan: plan,
    tokens_loaded: countTokens(render.text),
    matched_tokens: loaded.reduce((s, f) => s + f.matched_tokens, 0),
    lines_read: receipt.total_lines_loaded,
    tool_calls: input.tool_calls_before + 1 + loaded.filter((f) => f.lines_read > 0).length,
    cut_for_budget: cut,
    corpus_tokens: corpus.reduce((s, f) => s + f.tokens, 0),
    corpus_files: corpus.map((f) => f.path),
  };
}
