import { NavkernelError } from '../contracts/index.js';
import type { LanguageModel, LlmFinishReason, LlmGenerateRequest, LlmGenerateResult, LlmMessage, LlmToolCall } from './language-model.js';
import { LlmCallError, kindForStatus, parseRetryAfter } from './llm-call-error.js';
import { interpretAnswer } from './answer-parts.js';
import { toGeminiSchema } from './gemini-schema.js';
import { redactSecrets, redactValue } from '../redact.js';
import { DEFAULT_MODELS } from './pricing.js';
import { requireOptionalPackage } from '../optional-package.js';

/** Options of createGeminiModel: the model, the key and base URL, retries. */
export interface GeminiModelOptions {
  /** Default: the economy model `gemini-2.5-flash-lite`. */
  model?: string;
  /** Default: `GEMINI_API_KEY`, else `GOOGLE_API_KEY`. */
  apiKey?: string;
  /** Default: `GOOGLE_GEMINI_BASE_URL` (read by the SDK), else the SDK's default. */
  baseUrl?: string;
  /** Gemini 2.5 thinking budget; unset leaves the model's default. */
  thinkingBudget?: number;
  env?: NodeJS.ProcessEnv;
}

type GenAiSdk = typeof import('@google/genai');
type GenAiClient = InstanceType<GenAiSdk['GoogleGenAI']>;

/** A Gemini model on generateContent through `@google/genai` (loaded on the first call). */
export function createGeminiModel(options: GeminiModelOptions = {}): LanguageModel {
  requireOptionalPackage('@google/genai', 'a Gemini model (--llm gemini)');
  const env = options.env ?? process.env;
  const apiKey = options.apiKey ?? env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY;
  if (!apiKey) throw new NavkernelError('LLM_KEY_MISSING', 'GEMINI_API_KEY is not set (needed by --llm gemini)');
  const modelId = options.model ?? DEFAULT_MODELS.gemini;
  const baseUrl = options.baseUrl ?? env.GOOGLE_GEMINI_BASE_URL;
  const secrets = [apiKey];
  let sdk: Promise<GenAiClient> | undefined;

  async function client(): Promise<GenAiClient> {
    // No retryOptions: the SDK makes one attempt and our retry loop decides.
    sdk ??= import('@google/genai').then((mod) => new mod.GoogleGenAI({ apiKey, ...(baseUrl ? { httpOptions: { baseUrl } } : {}) }));
    return sdk;
  }

  async function generate(req: LlmGenerateRequest): Promise<LlmGenerateResult> {
    const ai = await client();
    const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
    // The SDK's ApiError carries no headers: a fetch wrapper keeps the last response's retry-after.
    let lastHeaders: Headers | undefined;
    const capturingFetch = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]): Promise<Response> => {
      const res = await fetch(input, init);
      lastHeaders = res.headers;
      return res;
    };
    const config: Record<string, unknown> = {
      maxOutputTokens: req.maxOutputTokens,
      abortSignal: req.signal,
      httpOptions: { ...(baseUrl ? { baseUrl } : {}), fetch: capturingFetch },
      ...(system ? { systemInstruction: system } : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(options.thinkingBudget !== undefined ? { thinkingConfig: { thinkingBudget: options.thinkingBudget } } : {}),
    };
    if (req.answer.kind === 'object') {
      config.responseMimeType = 'application/json';
      config.responseSchema = toGeminiSchema(req.answer.schema);
    } else {
      config.tools = [{ functionDeclarations: req.answer.tools.map((t) => ({ name: t.name, description: t.description, parameters: toGeminiSchema(t.inputSchema) })) }];
      config.toolConfig = { functionCallingConfig: { mode: (req.answer.choice ?? 'required') === 'required' ? 'ANY' : 'AUTO' } };
    }
    let response: Record<string, unknown>;
    try {
      const call = ai.models.generateContent.bind(ai.models) as (p: unknown) => Promise<unknown>;
      response = JSON.parse(JSON.stringify(await call({ model: modelId, contents: toGeminiContents(req.messages), config }))) as Record<string, unknown>;
    } catch (err) {
      throw toLlmError(err, lastHeaders, secrets);
    }
    delete response.sdkHttpResponse;
    const candidate = ((response.candidates as Record<string, unknown>[] | undefined) ?? [])[0] ?? {};
    const parts = ((candidate.content as Record<string, unknown> | undefined)?.parts as Record<string, unknown>[] | undefined) ?? [];
    const toolCalls: LlmToolCall[] = [];
    const texts: string[] = [];
    for (const part of parts) {
      if (part.thought === true) continue;
      if (typeof part.text === 'string') texts.push(part.text);
      const fc = part.functionCall as Record<string, unknown> | undefined;
      if (fc) toolCalls.push({ id: typeof fc.id === 'string' ? fc.id : `call_${toolCalls.length + 1}`, name: String(fc.name), input: redactValue(fc.args ?? {}, secrets) });
    }
    const text = redactSecrets(texts.join(''), secrets);
    const usage = (response.usageMetadata ?? {}) as Record<string, number | undefined>;
    return {
      ...interpretAnswer(req.answer, toolCalls, text),
      toolCalls,
      text,
      rawResponse: redactValue(response, secrets),
      usage: {
        inputTokens: usage.promptTokenCount ?? 0,
        // Thinking tokens are billed as output.
        outputTokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
      },
      finishReason: toolCalls.length > 0 ? 'tool_calls' : finishReason(candidate.finishReason),
      warnings: [],
    };
  }

  return { provider: 'gemini', modelId, generate };
}

function finishReason(reason: unknown): LlmFinishReason {
  switch (reason) {
    case 'STOP':
      return 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
      return 'content_filter';
    default:
      return 'other';
  }
}

function toGeminiContents(messages: LlmMessage[]): { role: 'user' | 'model'; parts: unknown[] }[] {
  const out: { role: 'user' | 'model'; parts: unknown[] }[] = [];
  const push = (role: 'user' | 'model', parts: unknown[]): void => {
    const last = out[out.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  };
  for (const m of messages) {
    if (m.role === 'user') push('user', [{ text: m.content }]);
    else if (m.role === 'tool') push('user', [{ functionResponse: { id: m.toolCallId, name: m.toolName, response: { output: m.content } } }]);
    else if (m.role === 'assistant') {
      const parts: unknown[] = m.content ? [{ text: m.content }] : [];
      for (const c of m.toolCalls ?? []) parts.push({ functionCall: { id: c.id, name: c.name, args: c.input ?? {} } });
      push('model', parts);
    }
  }
  return out;
}

/** Gemini puts the wait in the error body (google.rpc.RetryInfo `retryDelay: "1.5s"`) as well as, sometimes, a header. */
function retryDelayFromBody(message: string): number | undefined {
  const m = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(message);
  return m?.[1] !== undefined ? Math.round(Number(m[1]) * 1000) : undefined;
}

function toLlmError(err: unknown, headers: Headers | undefined, secrets: string[]): LlmCallError {
  const text = redactSecrets(err instanceof Error ? err.message : String(err), secrets);
  const name = err instanceof Error ? err.name : '';
  if (name === 'AbortError' || name === 'TimeoutError') return new LlmCallError('aborted', 'gemini: request aborted');
  const status = typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : undefined;
  if (status !== undefined) {
    const retryAfterMs = parseRetryAfter(headers, Date.now()) ?? retryDelayFromBody(text);
    return new LlmCallError(kindForStatus(status), `gemini: ${status} ${text}`, { status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
  }
  return new LlmCallError('network_error', `gemini: ${text}`);
}
