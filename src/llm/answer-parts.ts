import { extractJson } from './extract-json.js';
import type { LlmAnswerSpec, LlmToolCall } from './language-model.js';

/** `object`, `parseError` and `rawAnswer` of a result, from the tool calls and text a provider returned. */
export function interpretAnswer(
  spec: LlmAnswerSpec,
  toolCalls: LlmToolCall[],
  text: string,
): { object?: unknown; parseError?: string; rawAnswer: string } {
  if (spec.kind === 'tools') {
    const rawAnswer = toolCalls.length > 0 ? JSON.stringify(toolCalls.map((c) => ({ name: c.name, input: c.input }))) : text;
    return { rawAnswer };
  }
  const call = toolCalls.find((c) => c.name === spec.name) ?? toolCalls[0];
  if (call && call.input !== undefined) return { object: call.input, rawAnswer: JSON.stringify(call.input) };
  // No usable structured answer: the model answered in text (possibly fenced or wrapped in prose).
  const parsed = extractJson(text);
  if (parsed.ok) return { object: parsed.value, rawAnswer: text };
  return { parseError: parsed.error, rawAnswer: text };
}
