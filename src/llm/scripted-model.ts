import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { NavkernelError } from '../contracts/index.js';
import type { JsonSchema, LanguageModel, LlmGenerateRequest, LlmGenerateResult, LlmToolCall } from './language-model.js';
import { LlmCallError } from './llm-call-error.js';
import { interpretAnswer } from './answer-parts.js';
import { countTokens } from './token-estimate.js';

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

/** Glob with `*` as "any text", anchored. */
function globMatches(glob: string, value: string): boolean {
  const re = new RegExp(`^${glob.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(value);
}

function offeredEnum(req: LlmGenerateRequest, field: string): string[] {
  const schema: JsonSchema | undefined = req.answer.kind === 'object' ? req.answer.schema : undefined;
  const prop = (schema?.properties as Record<string, { enum?: unknown[] }> | undefined)?.[field];
  return (prop?.enum ?? []).map(String);
}

/**
 * A model that answers from a script (for users' own tests and the demo): no network, no key.
 * Token usage is the script's, or counted with js-tiktoken over the prompt and the answer, so costs
 * can be reported as if the calls had gone to `model`.
 */
export function createScriptedModel(script: ScriptedScriptInput, options: { name?: string } = {}): LanguageModel {
  const parsed = ScriptedScript.safeParse(script);
  if (!parsed.success) throw new NavkernelError('INVALID_SCRIPT', `scripted model: ${parsed.error.issues.map((i) => `$.${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const s = Array.isArray(parsed.data) ? { model: undefined, mode: 'sequence' as const, answers: parsed.data } : parsed.data;
  const used = new Set<number>();

  async function generate(req: LlmGenerateRequest): Promise<LlmGenerateResult> {
    const promptText = req.messages.map((m) => m.content).join('\n');
    const idx = s.answers.findIndex((a, i) => (s.mode === 'rules' || !used.has(i)) && (a.when === undefined || promptText.includes(a.when)));
    const entry = s.answers[idx];
    if (!entry) throw new LlmCallError('script_exhausted', `scripted model: no answer left for this prompt (${s.answers.length} scripted)`);
    if (s.mode === 'sequence') used.add(idx);
    if ('error' in entry) {
      throw new LlmCallError(entry.error, `scripted ${entry.error}`, entry.retry_after_ms !== undefined ? { retryAfterMs: entry.retry_after_ms } : {});
    }
    let toolCalls: LlmToolCall[] = [];
    let text = '';
    if ('pick' in entry) {
      const globs = Array.isArray(entry.pick) ? entry.pick : [entry.pick];
      const offered = offeredEnum(req, entry.field);
      const chosen = globs.map((g) => offered.find((id) => globMatches(g, id))).find((id) => id !== undefined) ?? globs[0];
      toolCalls = [{ id: 'scripted_1', name: req.answer.kind === 'object' ? req.answer.name : 'answer', input: { [entry.field]: chosen, reason: entry.reason } }];
    } else if ('answer' in entry) {
      toolCalls = [{ id: 'scripted_1', name: req.answer.kind === 'object' ? req.answer.name : 'answer', input: entry.answer }];
    } else if ('tool_calls' in entry) {
      toolCalls = entry.tool_calls.map((c, i) => ({ id: `scripted_${i + 1}`, name: c.name, input: c.input }));
    } else {
      text = entry.text;
    }
    const answer = interpretAnswer(req.answer, toolCalls, text);
    const usage = entry.usage
      ? { inputTokens: entry.usage.input_tokens, outputTokens: entry.usage.output_tokens }
      : { inputTokens: await countTokens(promptText + JSON.stringify(req.answer)), outputTokens: await countTokens(answer.rawAnswer) };
    return { ...answer, toolCalls, text, rawResponse: { scripted: idx }, usage, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop', warnings: [] };
  }

  return { provider: 'scripted', modelId: options.name ?? 'script', ...(s.model ? { pricingModelId: s.model } : {}), generate };
}

/** A scripted model from a JSON file (see `ScriptedScript`, published as `schemas/scripted-llm-script.schema.json`). */
export function loadScriptedModel(file: string): LanguageModel {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new NavkernelError('INVALID_SCRIPT', `scripted model: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return createScriptedModel(doc as ScriptedScriptInput, { name: file });
}
