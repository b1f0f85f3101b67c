import type { CompressionReport } from '../../contracts/index.js';
import { countTokens } from '../../repomap/index.js';
import type { CompressionResult, LoadResult } from './types.js';

/** Below this ratio (and over budget) the load is blocked; seed 002 RUNG_641. */
export const COMPRESSION_GATE = 2.0;
/** The ratio navigation aims for. */
export const COMPRESSION_TARGET = 10.0;

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * VALIDATE_COMPRESSION, with counted tokens only:
 * `compression_ratio = tokens of the candidate corpus (text files in scope, estimated from their bytes / 4: counting
 * the whole corpus would cost more than the navigation) / tokens loaded (context.md, counted)`,
 * `context_minimum_tokens` = tokens of loaded spans owned by definitions (or paths) matching a magic word.
 */
export function measureCompression(task: string, load: LoadResult): CompressionResult {
  const loaded = countTokens(load.context);
  const computed = loaded > 0 && Number.isFinite(load.corpus_tokens);
  const ratio = computed ? round2(load.corpus_tokens / loaded) : 0;
  const passed = computed && ratio >= COMPRESSION_GATE;
  const over = load.cut_for_budget.length > 0;
  const notes = !computed
    ? 'nothing was loaded: no ratio to report'
    : passed
      ? `~${load.corpus_tokens} corpus tokens (bytes/4) in ${load.corpus_files.length} files / ${loaded} loaded tokens = ${ratio} (gate ${COMPRESSION_GATE}, target ${COMPRESSION_TARGET})${ratio < COMPRESSION_TARGET ? '; below target' : ''}`
      : `ratio ${ratio} is below the ${COMPRESSION_GATE} gate${over ? `, and ${load.cut_for_budget.length} planned file(s) did not fit the budget` : ''}`;
  const report: CompressionReport = {
    schema_version: '1.0.0',
    agent_type: 'navigator',
    query_token_count: countTokens(task),
    context_loaded_tokens: loaded,
    context_minimum_tokens: load.matched_tokens,
    compression_ratio: ratio,
    compression_ratio_target: COMPRESSION_TARGET,
    compression_gate_passed: passed,
    notes,
  };
  return { report, computed, ratio, gate: COMPRESSION_GATE, demand_over_budget: over };
}
