import type { LlmCallRecord } from '../contracts/index.js';
import type { LanguageModel, LlmGenerateRequest, LlmGenerateResult, LlmToolCall } from './language-model.js';
import { LlmCallError, type LlmCallErrorKind } from './llm-call-error.js';
import { interpretAnswer } from './answer-parts.js';
import { extractJson } from './extract-json.js';
import { promptHash } from './prompt-hash.js';

const FAILURE_KIND: Partial<Record<LlmCallRecord['outcome'], LlmCallErrorKind>> = {
  timeout: 'timeout',
  rate_limited: 'rate_limited',
  server_error: 'server_error',
  network_error: 'network_error',
  aborted: 'aborted',
};

/**
 * A model that replays recorded calls and never reaches a provider: each call takes the next unused record
 * with the same prompt hash, returns its raw answer and token counts, or re-throws its failure.
 * A prompt with no record left is a `replay_miss` (the flows or the prompt changed since the recording).
 */
export function createRecordedModel(records: readonly LlmCallRecord[], options: { provider?: string; model?: string } = {}): LanguageModel {
  const calls = records.filter((r) => r.outcome !== 'budget_exceeded');
  const used = new Set<number>();
  const first = calls[0];

  async function generate(req: LlmGenerateRequest): Promise<LlmGenerateResult> {
    const hash = promptHash(req);
    const idx = calls.findIndex((r, i) => !used.has(i) && r.prompt_hash === hash);
    const rec = calls[idx];
    if (!rec) throw new LlmCallError('replay_miss', `replay: no recorded answer for prompt ${hash.slice(0, 12)}`);
    used.add(idx);
    const failure = FAILURE_KIND[rec.outcome];
    if (failure) throw new LlmCallError(failure, `replayed ${rec.outcome}${rec.error ? `: ${rec.error}` : ''}`);
    const raw = rec.raw_answer ?? '';
    let toolCalls: LlmToolCall[] = [];
    let text = raw;
    const parsed = extractJson(raw);
    if (req.answer.kind === 'object' && parsed.ok && raw.trimStart().startsWith('{')) {
      // A structured answer was recorded as its JSON.
      toolCalls = [{ id: 'replay_1', name: req.answer.name, input: parsed.value }];
      text = '';
    } else if (req.answer.kind === 'tools' && parsed.ok && Array.isArray(parsed.value) && raw.trimStart().startsWith('[')) {
      toolCalls = (parsed.value as { name: string; input: unknown }[]).map((c, i) => ({ id: `replay_${i + 1}`, name: c.name, input: c.input }));
      text = '';
    }
    return {
      ...interpretAnswer(req.answer, toolCalls, text),
      toolCalls,
      text,
      rawResponse: { replayed: hash },
      usage: { inputTokens: rec.input_tokens, outputTokens: rec.output_tokens },
      finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      warnings: [],
    };
  }

  return { provider: options.provider ?? first?.provider ?? 'recorded', modelId: options.model ?? first?.model ?? 'recorded', replay: true, generate };
}
