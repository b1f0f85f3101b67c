import type { NavigatorBudget } from '../../contracts/index.js';
import { countTokens } from '../../repomap/index.js';
import type { Artifacts, CompressionResult, LoadResult, MagicWord, ReviewResult } from './types.js';

export interface ReviewInput {
  words: MagicWord[];
  load: LoadResult;
  compression: CompressionResult;
  artifacts: Artifacts;
  budget: NavigatorBudget;
  pass: number;
  /** Tool calls of every pass so far. */
  tool_calls: number;
}

/** Re-navigations SOCRATIC_REVIEW may ask for in one run. */
export const MAX_RENAVIGATIONS = 1;

/**
 * SOCRATIC_REVIEW: a deterministic critique of the pass — a magic word no loaded file covers, a loaded
 * file that matched none, budget headroom left while a word is uncovered — plus the checks of the exit:
 * hard limits, and compression computed from real counts and above the gate.
 */
export function socraticReview(input: ReviewInput): ReviewResult {
  const { load, budget } = input;
  const critiques: string[] = [];
  const covered = new Set<string>();
  const unmatched: string[] = [];
  for (const f of load.files) {
    const words = load.matches[f.path] ?? [];
    if (!words.length) unmatched.push(f.path);
    // A file shown as a path only covers a word only through its path.
    if (f.level >= 2 || f.matched_tokens > 0) for (const w of words) covered.add(w);
  }
  const uncovered = input.words.map((w) => w.word).filter((w) => !covered.has(w));
  for (const w of uncovered) critiques.push(`magic word "${w}" is not covered by any loaded file`);
  for (const p of unmatched) critiques.push(`${p} was loaded but matches no magic word`);
  const tokens = load.tokens_loaded;
  const files = load.files.length;
  const lines = load.lines_shown;
  const headroom = tokens < budget.max_tokens * 0.9 && files < budget.max_files && lines < budget.max_lines && input.tool_calls < budget.max_tool_calls;
  if (headroom && uncovered.length) critiques.push(`budget headroom left (${tokens}/${budget.max_tokens} tokens, ${files}/${budget.max_files} files, ${lines}/${budget.max_lines} lines shown) while ${uncovered.length} word(s) are uncovered`);
  const limits: string[] = [];
  if (tokens > budget.max_tokens) limits.push(`tokens ${tokens} > ${budget.max_tokens}`);
  if (files > budget.max_files) limits.push(`files ${files} > ${budget.max_files}`);
  if (lines > budget.max_lines) limits.push(`lines shown ${lines} > ${budget.max_lines}`);
  if (input.tool_calls > budget.max_tool_calls) limits.push(`tool calls ${input.tool_calls} > ${budget.max_tool_calls}`);
  let compression_problem: string | undefined;
  const c = input.compression;
  if (!load.files.length) compression_problem = 'no file was loaded: a context without files is not a pass';
  else if (!c.computed) compression_problem = 'compression was not computed';
  else if (c.report.context_loaded_tokens !== countTokens(load.context)) compression_problem = 'reported loaded tokens do not match a recount of the context';
  else if (c.ratio < c.gate) compression_problem = `compression ratio ${c.ratio} is below the ${c.gate} gate`;
  return {
    critiques,
    uncovered,
    unmatched_files: unmatched,
    renavigate: (uncovered.length > 0 && headroom) || unmatched.length > 0,
    budget_allows: headroom && input.pass <= MAX_RENAVIGATIONS,
    limits_exceeded: limits,
    compression_valid: compression_problem === undefined,
    ...(compression_problem ? { compression_problem } : {}),
  };
}
