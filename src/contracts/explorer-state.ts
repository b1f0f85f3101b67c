import { existsSync, statSync } from 'node:fs';
import { z } from 'zod';
import { PRICING_PRESETS } from './pricing.js';
import { FlightPlan, FlightPlanDiff } from './flight-plan.js';
import { issuesFromZod, type ValidationIssue } from './errors.js';
import { toIssueCode } from './issue-codes.js';

/** Token pricing of the explorer's model, USD per million tokens (seed 000 ModelPricingRates). */
export const ModelPricingRates = z.object({
  model_name: z.string().min(1).describe('Model identifier (e.g. "gemini-2.0-flash")'),
  input_per_million: z.number().positive().describe('USD per 1M input tokens'),
  output_per_million: z.number().positive().describe('USD per 1M output tokens'),
});
export type ModelPricingRates = z.infer<typeof ModelPricingRates>;

function preset(name: string): ModelPricingRates {
  const p = PRICING_PRESETS.find((x) => x.model_name === name);
  if (!p) throw new Error(`pricing preset ${name} missing from src/contracts/pricing.ts`);
  return ModelPricingRates.parse(p);
}

/**
 * Pricing presets: the four rows of seed 000's table, then the Claude and Gemini economy models. The numbers
 * are those of `PRICING_PRESETS` in `src/contracts/pricing.ts` (one table for the whole package).
 */
export const MODEL_PRICING_PRESETS = {
  GEMINI_2_FLASH: preset('gemini-2.0-flash'),
  GEMINI_2_FLASH_THINKING: preset('gemini-2.0-flash-thinking'),
  GEMINI_1_5_PRO: preset('gemini-1.5-pro'),
  GEMINI_1_5_FLASH: preset('gemini-1.5-flash'),
  GEMINI_2_0_FLASH_LITE: preset('gemini-2.0-flash-lite'),
  GEMINI_2_5_FLASH_LITE: preset('gemini-2.5-flash-lite'),
  GEMINI_2_5_FLASH: preset('gemini-2.5-flash'),
  CLAUDE_HAIKU_4_5: preset('claude-haiku-4-5'),
  CLAUDE_3_5_HAIKU: preset('claude-3-5-haiku'),
  CLAUDE_3_HAIKU: preset('claude-3-haiku'),
} as const satisfies Record<string, ModelPricingRates>;

/** Seed 000's default pricing (gemini-2.0-flash). */
export const GEMINI_2_FLASH_PRICING: ModelPricingRates = MODEL_PRICING_PRESETS.GEMINI_2_FLASH;

/** Cost budget configuration and tracking (seed 000 BudgetConfig). */
export const BudgetConfig = z.object({
  max_spend_usd: z.number().positive().default(2.0).describe('Maximum allowed spend in USD'),
  current_spend_usd: z.number().min(0).default(0).describe('Amount spent so far in USD'),
  model_pricing_rates: ModelPricingRates,
});
export type BudgetConfig = z.infer<typeof BudgetConfig>;

/** Actions of the explorer's two tools (closed set). */
export const ExplorerAction = z.enum(['update_flight_plan', 'finalize_context']);
export type ExplorerAction = z.infer<typeof ExplorerAction>;

/**
 * One decision of the exploration (seed 000 DecisionLogEntry). `config_diff` is the partial FlightPlan
 * applied (`{}` when nothing was). navkernel adds optional fields: `cost_usd` of the model call of the step,
 * and `rejected` when the model's answer was refused (the reason it was told, and what it sent).
 */
export const DecisionLogEntry = z.object({
  step: z.int().positive().describe('Step number (1-indexed)'),
  action: ExplorerAction.describe('Action type'),
  reasoning: z.string().min(1).describe('Explanation for the decision'),
  config_diff: FlightPlanDiff.default({}).describe('Partial FlightPlan changes applied'),
  timestamp: z.iso.datetime({ offset: true }).describe('When the decision was made (ISO 8601)'),
  cost_usd: z.number().min(0).optional().describe('USD of the model call of this step (navkernel extension)'),
  rejected: z
    .object({
      reason: z.string().min(1).describe('Why the answer was refused, as told to the model'),
      tool: z.string().optional().describe('The tool the model called (absent when it called none)'),
      input: z.unknown().describe('The tool input the model sent, or its text when it called no tool'),
    })
    .optional()
    .describe('Set when the model\'s answer was refused; the plan is then unchanged (navkernel extension)'),
  user_feedback: z
    .string()
    .optional()
    .describe("What the user answered `feedback: TEXT` with after this step: given to the model in the next prompt (navkernel extension)"),
  model: z.string().optional().describe('The model that made this step\'s call, `provider:model` (navkernel extension: tells the economy model\'s steps from the escalated ones)'),
  call_signature: z
    .string()
    .optional()
    .describe('The tool call\'s signature: 16 hex of the sha256 of its name and input without the reasoning (navkernel extension: identical calls in a row are a stall, seed 004)'),
  escalated: z
    .object({ from: z.string(), to: z.string(), reason: z.string() })
    .optional()
    .describe('Set on the first step made by the stronger model after the session stalled on the economy one (navkernel extension)'),
});
export type DecisionLogEntry = z.infer<typeof DecisionLogEntry>;

/** Statistics about the current map, computed from its real render (seed 000 MapMetadata). */
export const MapMetadata = z.object({
  total_tokens: z.int().min(0).default(0).describe('Token count of the current map'),
  file_count: z.int().min(0).default(0).describe('Number of files in the map'),
  focus_areas: z.array(z.string()).default([]).describe('Paths at high verbosity (L3-L4)'),
  excluded_count: z.int().min(0).default(0).describe('Number of files at L0 (excluded)'),
  budget_utilization: z.number().min(0).max(100).default(0).describe('Percentage of the token budget used'),
});
export type MapMetadata = z.infer<typeof MapMetadata>;

/**
 * Why an exploration ended: the reference's `agent_done`, `budget_exceeded`, `max_iterations`,
 * `user_cancelled`, plus `user_finalized` (the user chose "finalize now"), `agent_error` (the model could
 * not be reached), `no_llm` (the deterministic start was the answer) and `stalled` (the same tool call
 * repeated with no stronger model left to move to: seed 004's anti-stall; the reason is in the summary).
 */
export const CompletionReason = z.enum(['agent_done', 'budget_exceeded', 'max_iterations', 'user_cancelled', 'user_finalized', 'agent_error', 'no_llm', 'stalled']);
export type CompletionReason = z.infer<typeof CompletionReason>;

/**
 * The explorer's root state (seed 000 NavigatorState), saved after every step. navkernel adds
 * `completion_reason`. `repo_path` must be an existing directory: that is checked by
 * `checkNavigatorState` (a file-system fact, not a shape, so the JSON Schema cannot say it).
 */
export const NavigatorState = z.object({
  user_task: z.string().min(1).describe("The user's goal/task description"),
  repo_path: z.string().min(1).describe('Absolute path to the repository being explored'),
  execution_mode: z.enum(['autonomous', 'interactive']).default('autonomous'),
  budget_config: BudgetConfig,
  flight_plan: FlightPlan,
  decision_log: z.array(DecisionLogEntry).default([]),
  map_metadata: MapMetadata.default({ total_tokens: 0, file_count: 0, focus_areas: [], excluded_count: 0, budget_utilization: 0 }),
  interactive_pause: z.boolean().default(false),
  exploration_complete: z.boolean().default(false),
  reasoning_summary: z.string().default(''),
  completion_reason: CompletionReason.nullable().default(null).describe('Why the exploration ended (navkernel extension)'),
});
export type NavigatorState = z.infer<typeof NavigatorState>;
export type NavigatorStateInput = z.input<typeof NavigatorState>;

/**
 * Parses a NavigatorState and, with `checkRepo` (default true), checks that `repo_path` is an existing
 * directory. Issues carry JSON paths.
 */
export function checkNavigatorState(doc: unknown, options: { checkRepo?: boolean } = {}): { success: true; data: NavigatorState } | { success: false; issues: ValidationIssue[] } {
  const parsed = NavigatorState.safeParse(doc);
  if (!parsed.success) {
    return {
      success: false,
      issues: issuesFromZod(parsed.error.issues, toIssueCode),
    };
  }
  if (options.checkRepo !== false) {
    const p = parsed.data.repo_path;
    if (!existsSync(p) || !statSync(p).isDirectory()) return { success: false, issues: [{ path: ['repo_path'], code: 'repo_not_found', message: `Repository path does not exist: ${p}` }] };
  }
  return { success: true, data: parsed.data };
}

/** How a session runs, saved beside its NavigatorState so `--resume` carries on with the same settings. */
export const ExplorerSessionConfig = z.object({
  model: z.string().nullable().describe('The model spec (`anthropic[:MODEL]`, `gemini[:MODEL]`, `scripted:FILE`), null for --no-llm'),
  max_iterations: z.int().positive().default(20),
  token_limit: z.int().positive().describe("The user's token limit: the model may not raise the plan's budget past it"),
  max_output_tokens: z.int().positive().default(1024).describe('Output cap of each call, also the output reserve of the budget check'),
  excerpt_tokens: z.int().positive().default(1500).describe('Tokens of map text shown to the model each turn'),
  persona: z
    .string()
    .nullable()
    .optional()
    .describe('The persona style prior loaded last in every prompt (shannon, knuth, feynman), null for none; absent in sessions saved before personas (auto on resume)'),
  escalate_to: z.string().nullable().optional().describe('The stronger model a stalled session may move to (seed 002: haiku, escalate to sonnet), null or absent for none'),
  escalated_at_step: z.int().min(0).nullable().optional().describe('The last step made before the session moved to `escalate_to` (null or absent: not escalated)'),
  stall_turns: z.int().min(0).optional().describe('Steps in a row without a plan change that are a stall (default 3; 0 turns the signal off)'),
  repeat_limit: z.int().min(0).optional().describe('Identical tool calls in a row that are a stall (default 3; 0 turns the signal off)'),
});
export type ExplorerSessionConfig = z.infer<typeof ExplorerSessionConfig>;
