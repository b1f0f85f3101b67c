import { NavkernelError } from '../contracts/index.js';
import type { LanguageModel, LlmFinishReason, LlmGenerateRequest, LlmGenerateResult, LlmMessage, LlmToolCall } from './language-model.js';
import { LlmCallError, kindForStatus, parseRetryAfter } from './llm-call-error.js';
import { interpretAnswer } from './answer-parts.js';
import { redactSecrets, redactValue } from '../redact.js';
import { DEFAULT_MODELS } from './pricing.js';
import { requireOptionalPackage } from '../optional-package.js';

/** Options of createAnthropicModel: the model, the key and base URL, retries. */
export interface AnthropicModelOptions {
  /** Default: the economy model `claude-haiku-4-5`. */
  model?: string;
  /** Default: `ANTHROPIC_API_KEY`. */
  apiKey?: string;
  /** Default: `ANTHROPIC_BASE_URL`, else the SDK's default. */
  baseURL?: string;
  /** Where keys and base URL are read from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

type AnthropicSdk = typeof import('@anthropic-ai/sdk');
type AnthropicClient = InstanceType<AnthropicSdk['default']>;

/** A Claude model on the Messages API through `@anthropic-ai/sdk` (loaded on the first call). */
export function createAnthropicModel(options: AnthropicModelOptions = {}): LanguageModel {
  requireOptionalPackage('@anthropic-ai/sdk', 'an Anthropic model (--llm anthropic)');
  const env = options.env ?? process.env;
  const apiKey = options.apiKey ?? env.ANTHROPIC_API_KEY;
  if (!apiKey) throw new NavkernelError('LLM_KEY_MISSING', 'ANTHROPIC_API_KEY is not set (needed by --llm anthropic)');
  const modelId = options.model ?? DEFAULT_MODELS.anthropic;
  const baseURL = options.baseURL ?? env.ANTHROPIC_BASE_URL;
  let sdk: Promise<{ mod: AnthropicSdk; client: AnthropicClient }> | undefined;
  const secrets = [apiKey];

  async function client(): Promise<{ mod: AnthropicSdk; client: AnthropicClient }> {
    sdk ??= import('@anthropic-ai/sdk').then((mod) => ({
      mod,
      // Retries and timeouts are ours (bounded total time, retry-after honoured): the SDK makes one attempt.
      client: new mod.default({ apiKey, baseURL: baseURL ?? null, maxRetries: 0, timeout: 10 * 60_000, logLevel: 'off' }),
    }));
    return sdk;
  }

  async function generate(req: LlmGenerateRequest): Promise<LlmGenerateResult> {
    const { mod, client: c } = await client();
    const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
    const body: Record<string, unknown> = {
      model: modelId,
      max_tokens: req.maxOutputTokens,
      messages: toAnthropicMessages(req.messages),
      ...(system ? { system } : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    };
    if (req.answer.kind === 'object') {
      body.tools = [{ name: req.answer.name, description: req.answer.description, input_schema: req.answer.schema }];
      body.tool_choice = { type: 'tool', name: req.answer.name };
    } else {
      body.tools = req.answer.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
      body.tool_choice = { type: (req.answer.choice ?? 'required') === 'required' ? 'any' : 'auto' };
    }
    let response: Record<string, unknown>;
    try {
      const create = c.messages.create.bind(c.messages) as (b: unknown, o: unknown) => Promise<unknown>;
      response = (await create(body, { signal: req.signal })) as Record<string, unknown>;
    } catch (err) {
      throw toLlmError(mod, err, secrets);
    }
    const toolCalls: LlmToolCall[] = [];
    const texts: string[] = [];
    for (const block of (response.content as Record<string, unknown>[] | undefined) ?? []) {
      if (block.type === 'text') texts.push(String(block.text ?? ''));
      else if (block.type === 'tool_use') toolCalls.push({ id: String(block.id), name: String(block.name), input: redactValue(block.input, secrets) });
    }
    const text = redactSecrets(texts.join(''), secrets);
    const usage = (response.usage ?? {}) as Record<string, number | null | undefined>;
    return {
      ...interpretAnswer(req.answer, toolCalls, text),
      toolCalls,
      text,
      rawResponse: redactValue(response, secrets),
      usage: {
        inputTokens: (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
        outputTokens: usage.output_tokens ?? 0,
      },
      finishReason: finishReason(response.stop_reason),
      warnings: [],
    };
  }

  return { provider: 'anthropic', modelId, generate };
}

function finishReason(stop: unknown): LlmFinishReason {
  switch (stop) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}

function toAnthropicMessages(messages: LlmMessage[]): { role: 'user' | 'assistant'; content: unknown[] }[] {
  const out: { role: 'user' | 'assistant'; content: unknown[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: unknown[]): void => {
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'user') push('user', [{ type: 'text', text: m.content }]);
    else if (m.role === 'tool') push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }]);
    else if (m.role === 'assistant') {
      const blocks: unknown[] = m.content ? [{ type: 'text', text: m.content }] : [];
      for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.input ?? {} });
      push('assistant', blocks);
    }
  }
  return out;
}

function toLlmError(mod: AnthropicSdk, err: unknown, secrets: string[]): LlmCallError {
  const msg = (e: unknown): string => redactSecrets(e instanceof Error ? e.message : String(e), secrets);
  if (err instanceof mod.APIUserAbortError) return new LlmCallError('aborted', 'anthropic: request aborted');
  if (err instanceof mod.APIConnectionTimeoutError) return new LlmCallError('timeout', `anthropic: ${msg(err)}`);
  if (err instanceof mod.APIConnectionError) return new LlmCallError('network_error', `anthropic: ${msg(err)}`);
  if (err instanceof mod.APIError && typeof err.status === 'number') {
    const status = err.status;
    const retryAfterMs = parseRetryAfter(err.headers, Date.now());
    return new LlmCallError(kindForStatus(status), `anthropic: ${msg(err)}`, { status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
  }
  return new LlmCallError('network_error', `anthropic: ${msg(err)}`);
}
