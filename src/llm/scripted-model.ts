import path from 'node:path';
import { readFileSync } from 'node:fs';
import { NavkernelError } from '../contracts/index.js';
import type { JsonSchema, LanguageModel, LlmGenerateRequest, LlmGenerateResult, LlmToolCall } from './language-model.js';
import { LlmCallError } from './llm-call-error.js';
import { interpretAnswer } from './answer-parts.js';
import { countTokens } from './token-estimate.js';
import { ScriptedScript, type ScriptedScriptInput } from './scripted-script.js';

export { ScriptedAnswer, ScriptedScript, type ScriptedScriptInput } from './scripted-script.js';

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
 * Token usage is the script's, or counted with gpt-tokenizer (cl100k_base) over the prompt and the answer, so costs
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
  // Named by the file's base name: the model id is recorded and shown, and a full path would leak the host's layout.
  return createScriptedModel(doc as ScriptedScriptInput, { name: path.basename(file) });
}
