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
    rung_target: z.int().positive(),
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

/** One loaded file of `context_load_receipt.json`. `lines_read` counts lines read, not only lines kept. */
export const LoadedFileReceipt = z
  .object({
    path: z.string().min(1),
    lines_read: z.int().min(0),
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

/** `context_load_receipt.json` exactly in seed 002's shape. */
export const ContextLoadReceipt = z
  .object({
    schema_version: z.literal('1.0.0'),
    agent_type: z.literal('navigator'),
    files_loaded: z.array(LoadedFileReceipt),
    total_lines_loaded: z.int().min(0),
    budget_limit_lines: z.int().positive(),
    budget_used_fraction: z.number().min(0),
    null_checks_performed: z.boolean(),
    rung_checks: z
      .array(z.object({ rung: z.int().positive(), check: z.string(), passed: z.boolean(), detail: z.string() }).strict())
      .optional()
      .describe('Checks of a requested rung (navkernel navigate --rung 65537); absent otherwise'),
    definitions: z
      .array(RankedDefinitionReceipt)
      .optional()
      .describe("The task's evidence resolved to definitions, best first (at most 20); absent when the task names none"),
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
