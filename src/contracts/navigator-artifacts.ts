import { z } from 'zod';

/** How a navigation ended: `PASS`, or `NEED_INFO: <reason>` / `BLOCKED: <forbidden state or gate>`. */
const StopReason = z.string().regex(/^(PASS|NEED_INFO: .+|BLOCKED: .+)$/);

/** One visited node of the tier tree, with why it was visited (seed 002 navigation_map.json). */
export const TierPathEntry = z
  .object({
    tier: z.string().min(1).describe('T0 trunk, T1 top-level folder, T2 module, T3 file'),
    anchor: z.string().describe('The magic word that led here ("" for the trunk visit itself)'),
    files_loaded: z.array(z.string()).describe('Repo-relative paths loaded because of this node, sorted'),
    justification: z.string().min(1),
  })
  .strict();
export type TierPathEntry = z.infer<typeof TierPathEntry>;

/** `navigation_map.json` exactly in seed 002's shape. */
export const NavigationMap = z
  .object({
    schema_version: z.literal('1.0.0'),
    agent_type: z.literal('navigator'),
    rung_target: z.union([z.literal(641), z.literal(274177), z.literal(65537)]).describe('The rung asked for: 641 (default), 274177 (--verify-stable / --rung 274177) or 65537 (--rung 65537)'),
    query: z.string().describe('Verbatim query from the CNF capsule'),
    magic_words_extracted: z.array(z.string()),
    tier_path_traversed: z.array(TierPathEntry),
    trunk_first_compliance: z.boolean(),
    total_files_loaded: z.int().min(0),
    stop_reason: StopReason,
    null_checks_performed: z.boolean(),
    northstar_metric: z
      .object({
        metric: z.string(),
        source: z.enum(['northstar', 'ecosystem_northstar']),
        origin: z.string().describe('"text" or the repository path the NORTHSTAR was read from'),
        line: z.int().positive(),
        evidence: z.array(z.string()).describe('Stemmed words the metric shares with the task and the loaded files'),
        files: z.array(z.string()).describe('Loaded files that share a word with the metric'),
      })
      .strict()
      .nullable()
      .optional()
      .describe('Present when the capsule gives a NORTHSTAR: the metric line the loaded context serves (null when none)'),
  })
  .strict();
export type NavigationMap = z.infer<typeof NavigationMap>;

const LineRange = z.tuple([z.int().positive(), z.int().positive()]).describe('[first, last]: 1-based, inclusive');
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * One loaded file of `context_load_receipt.json` (seed 002's fields, plus navkernel's). Honest accounting
 * (seed 002 "Silent Context Spill"): `lines_read` is every line the navigator read from the file (the
 * whole file: it reads a file to find the windows it shows), `lines_shown` the lines put in the context,
 * `ranges` those lines as runs, and `range_sha256` the sha256 of each range's text, so `navigate --check`
 * can prove the ranges still read the same.
 */
export const LoadedFileReceipt = z
  .object({
    path: z.string().min(1),
    lines_read: z.int().min(0).describe('Lines read from the file: all of them (the actual cost)'),
    lines_shown: z.int().min(0).describe('Lines of the file shown in the context (the sum of the ranges\' lengths)'),
    ranges: z.array(LineRange).describe('The lines shown, as runs [first, last] (1-based, inclusive), ascending'),
    range_sha256: z.array(Sha256).describe('sha256 of each range\'s lines joined with "\\n", in the order of `ranges`'),
    magic_word_match: z.string(),
    relevance_score: z.number().min(0),
  })
  .strict();
export type LoadedFileReceipt = z.infer<typeof LoadedFileReceipt>;

/** One ranked definition of the receipt: where the task's evidence points (issue 21). */
export const RankedDefinitionReceipt = z
  .object({
    path: z.string().min(1),
    symbol: z.string().min(1).describe('Qualified name inside the file (Class.method)'),
    kind: z.string(),
    range: z.tuple([z.int().positive(), z.int().positive()]).describe('1-based inclusive line range of the definition'),
    line: z.int().positive().optional().describe('A line inside it the evidence names (a frame line, a raise site)'),
    score: z.number().min(0),
    evidence: z.array(z.string()).describe('What put it there: frames, messages, imports, names'),
    loaded: z.boolean().describe('Its file is among files_loaded'),
  })
  .strict();
export type RankedDefinitionReceipt = z.infer<typeof RankedDefinitionReceipt>;

/** How sure the navigator is of its first file (issue 40): see docs/navigator.md, "How sure the pick is". */
export const PickConfidenceReceipt = z
  .object({
    level: z.enum(['high', 'medium', 'low']).describe('high: the best file holds resolved evidence and leads the next by half its score or more (the pick stops early); medium: one of the two; low: neither'),
    margin: z.number().min(0).max(1).describe('1 - second score / best score'),
    evidence: z.number().min(0).max(1).describe("The best file's evidence as a share of the most evidence adds"),
    kept: z.int().min(0).describe('Files the ranking kept before the budget (fewer than max_files when the pick is conclusive)'),
    reason: z.string(),
  })
  .strict();
export type PickConfidenceReceipt = z.infer<typeof PickConfidenceReceipt>;

/** `context_load_receipt.json` in seed 002's shape, plus navkernel's fields. */
export const ContextLoadReceipt = z
  .object({
    schema_version: z.literal('1.0.0'),
    agent_type: z.literal('navigator'),
    files_loaded: z.array(LoadedFileReceipt),
    total_lines_loaded: z.int().min(0).describe('Sum of files_loaded[].lines_shown: the lines loaded into the context, what BUDGET.max_lines bounds'),
    total_lines_read: z.int().min(0).describe('Sum of files_loaded[].lines_read: the lines read to choose them (seed 002 "Silent Context Spill": reported, never hidden)'),
    budget_limit_lines: z.int().positive().describe('BUDGET.max_lines: bounds the lines shown'),
    budget_used_fraction: z.number().min(0).describe('total_lines_loaded / budget_limit_lines, rounded to 4 decimals'),
    null_checks_performed: z.boolean(),
    files_read_not_loaded: z
      .array(z.object({ path: z.string().min(1), lines_read: z.int().min(0) }).strict())
      .optional()
      .describe('Files read but then left out of the context (the token budget): their reading was spent too'),
    rung_checks: z
      .array(z.object({ rung: z.int().positive(), check: z.string(), passed: z.boolean(), detail: z.string() }).strict())
      .optional()
      .describe('Checks of a requested rung (navkernel navigate --rung 65537); absent otherwise'),
    definitions: z
      .array(RankedDefinitionReceipt)
      .optional()
      .describe("The task's evidence resolved to definitions, best first (at most 20); absent when the task names none"),
    confidence: PickConfidenceReceipt.optional().describe('How sure the pick is of its first file (files_loaded is in rank order, best first); absent when nothing was ranked'),
  })
  .strict();
export type ContextLoadReceipt = z.infer<typeof ContextLoadReceipt>;

/**
 * `compression_report.json` exactly in seed 002's shape. navkernel's definition:
 * `compression_ratio = tokens of the candidate corpus / context_loaded_tokens` (0 when nothing was loaded),
 * `context_minimum_tokens` = tokens of the loaded spans that matched a magic word.
 */
export const CompressionReport = z
  .object({
    schema_version: z.literal('1.0.0'),
    agent_type: z.literal('navigator'),
    query_token_count: z.int().min(0),
    context_loaded_tokens: z.int().min(0),
    context_minimum_tokens: z.int().min(0),
    compression_ratio: z.number().min(0),
    compression_ratio_target: z.number().positive(),
    compression_gate_passed: z.boolean(),
    notes: z.string(),
  })
  .strict();
export type CompressionReport = z.infer<typeof CompressionReport>;
