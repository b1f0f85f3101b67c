import { z } from 'zod';

/** How one model call ended. */
export const LlmCallOutcome = z.enum(['ok', 'invalid_answer', 'timeout', 'rate_limited', 'server_error', 'network_error', 'budget_exceeded', 'aborted']);
export type LlmCallOutcome = z.infer<typeof LlmCallOutcome>;

/** One call to a language model, recorded so that a replay never calls the model again. Never holds a key. */
export const LlmCallRecord = z.object({
  provider: z.string(),
  model: z.string(),
  purpose: z.string().describe("What the call was for: 'route' (tier 3) or 'explore'"),
  persona: z.string().optional().describe('The persona style prior loaded last in the prompt (shannon, knuth, feynman); absent when none was'),
  attempt: z.int().min(1),
  prompt_hash: z.string().describe('sha256 of the canonical prompt (messages + answer schema)'),
  raw_answer: z.string().nullable().describe('The model answer as received (text or tool input JSON)'),
  parsed: z.unknown().optional(),
  outcome: LlmCallOutcome,
  error: z.string().optional(),
  input_tokens: z.int().min(0),
  output_tokens: z.int().min(0),
  usd: z.number().min(0),
  latency_ms: z.number().min(0),
});
export type LlmCallRecord = z.infer<typeof LlmCallRecord>;
