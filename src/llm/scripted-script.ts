import { z } from 'zod';

const Usage = z.object({ input_tokens: z.int().min(0), output_tokens: z.int().min(0) }).strict();
const When = z.string().min(1).optional().describe('Use this entry only when the prompt contains this text (e.g. `"step_completed":"review"`)');

/** One scripted answer. */
export const ScriptedAnswer = z.union([
  z
    .object({
      pick: z.union([z.string(), z.array(z.string())]).describe('Glob(s) over the offered ids (`*` = any text), in order of preference, e.g. `detour:*`'),
      field: z.string().default('candidate_id').describe('The enum property of the answer schema the globs match'),
      reason: z.string().default('scripted answer'),
      when: When,
      usage: Usage.optional(),
    })
    .strict(),
  z.object({ answer: z.unknown().describe('The structured answer, returned as is'), when: When, usage: Usage.optional() }).strict(),
  z
    .object({ tool_calls: z.array(z.object({ name: z.string(), input: z.unknown() }).strict()).min(1), when: When, usage: Usage.optional() })
    .strict(),
  z.object({ text: z.string().describe('Raw text; JSON is extracted from it as from a real model'), when: When, usage: Usage.optional() }).strict(),
  z
    .object({
      error: z.enum(['timeout', 'rate_limited', 'server_error', 'network_error']),
      retry_after_ms: z.int().min(0).optional(),
      when: When,
    })
    .strict(),
]);
export type ScriptedAnswer = z.infer<typeof ScriptedAnswer>;

/** A scripted model's file: a list of answers, or the list with options. */
export const ScriptedScript = z.union([
  z.array(ScriptedAnswer),
  z
    .object({
      model: z.string().optional().describe('Price the calls as this model (e.g. `claude-haiku-4-5`); default: unpriced (USD 0)'),
      mode: z
        .enum(['sequence', 'rules'])
        .default('sequence')
        .describe('`sequence`: each entry answers once, in order; `rules`: each call uses the first entry whose `when` matches, entries are reused'),
      answers: z.array(ScriptedAnswer),
    })
    .strict(),
]);
export type ScriptedScript = z.infer<typeof ScriptedScript>;
export type ScriptedScriptInput = z.input<typeof ScriptedScript>;
