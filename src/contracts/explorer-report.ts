import { z } from 'zod';
import { CompletionReason } from './explorer-state.js';

/** A path currently at high verbosity (reference/turn-report-schema.md FocusArea). */
export const FocusArea = z.object({
  path: z.string().describe('File or directory path'),
  verbosity_level: z.int().min(3).max(4).describe('Current verbosity level'),
  token_contribution: z.int().min(0).optional().describe('Tokens contributed by this path'),
});
export type FocusArea = z.infer<typeof FocusArea>;

/** What interactive mode shows after each step (reference/turn-report-schema.md TurnReport). */
export const TurnReport = z.object({
  step_number: z.int().min(1).describe('Current iteration number'),
  timestamp: z.iso.datetime({ offset: true }).describe('When this turn completed'),
  cost_this_turn: z.number().min(0).describe('USD cost of the last iteration'),
  total_cost: z.number().min(0).describe('Cumulative USD cost'),
  budget_remaining: z.number().min(0).describe('Remaining USD budget'),
  budget_percentage: z.number().min(0).max(100).optional().describe('Percentage of cost budget used'),
  map_size_tokens: z.int().min(0).describe('Current map token count'),
  token_budget: z.int().min(0).describe('Target token budget'),
  token_utilization: z.number().min(0).max(100).optional().describe('Percentage of token budget used'),
  file_count: z.int().min(0).describe('Number of files in current map'),
  focus_areas: z.array(FocusArea).describe('Paths at high verbosity (L3-L4)'),
  excluded_areas: z.array(z.string()).optional().describe('Paths at L0 (excluded)'),
  last_action: z.string().describe('What the agent did in this turn'),
  reasoning: z.string().describe("Agent's explanation for the action"),
  is_complete: z.boolean().describe('Whether exploration is finished'),
  completion_reason: CompletionReason.nullable().optional().describe('Why exploration completed (if is_complete)'),
});
export type TurnReport = z.infer<typeof TurnReport>;

/** The final result of an exploration (seed 000 NavigatorOutput), plus the session and why it ended. */
export const NavigatorOutput = z.object({
  context_string: z.string().describe('The final rendered map content'),
  flight_plan_yaml: z.string().describe('Serialized FlightPlan for reproduction'),
  reasoning_summary: z.string().describe("Agent's explanation of the final selection"),
  total_iterations: z.int().min(0).describe('Number of refinement cycles'),
  total_cost: z.number().min(0).describe('Total USD spent on exploration'),
  token_count: z.int().min(0).describe('Final context size in tokens'),
  completion_reason: CompletionReason.optional().describe('Why the exploration ended (navkernel extension)'),
  session_id: z.string().optional().describe('The session, for `navkernel explore --resume` (navkernel extension)'),
});
export type NavigatorOutput = z.infer<typeof NavigatorOutput>;
