/**
 * The language-model port: one small contract every provider adapter implements
 * (in the spirit of vercel/ai's LanguageModel). Adapters throw `LlmCallError` for
 * transport trouble; answers the model got wrong are data (`object` undefined, `parseError` set).
 */

/** A JSON Schema object, as sent to a provider. */
export type JsonSchema = Record<string, unknown>;

/** A call the model made to one of the offered tools. */
export interface LlmToolCall {
  /** Provider id of the call (Anthropic `toolu_…`; Gemini's id or `call_<n>`). */
  id: string;
  name: string;
  /** Arguments as parsed by the provider or by JSON extraction; undefined when they could not be parsed. */
  input: unknown;
}

/** One message of the conversation. `system` messages are joined into the provider's system prompt. */
export type LlmMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: LlmToolCall[] }
  /** The result of a tool call the assistant made, sent back to the model. */
  | { role: 'tool'; toolCallId: string; toolName: string; content: string };

/** A tool the model may call. */
export interface LlmTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/**
 * What shape the answer must take:
 * - `object`: one structured answer (Anthropic: a forced call of a tool named `name`; Gemini: a response schema);
 * - `tools`: a choice among several tools (`choice: 'required'` forces a call, `'auto'` lets the model answer in text).
 */
export type LlmAnswerSpec =
  | { kind: 'object'; name: string; description: string; schema: JsonSchema }
  | { kind: 'tools'; tools: LlmTool[]; choice?: 'required' | 'auto' };

/** One call to a language model: messages, tools, the answer shape and limits. */
export interface LlmGenerateRequest {
  messages: LlmMessage[];
  answer: LlmAnswerSpec;
  /** Output cap sent to the provider; also the output side of the pre-call cost estimate. */
  maxOutputTokens: number;
  temperature?: number;
  /** Aborts the HTTP request (timeout or caller). */
  signal?: AbortSignal;
}

/** Tokens a call used, as the provider counted them. */
export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

export type LlmFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other';

/** A language model's answer: text or tool calls, why it stopped, and the tokens used. */
export interface LlmGenerateResult {
  /** `object` mode: the parsed answer; undefined when the model's answer could not be parsed. */
  object?: unknown;
  /** Why `object` is undefined. */
  parseError?: string;
  /** Tool calls, in the model's order (`object` mode: the forced call, if the model made it). */
  toolCalls: LlmToolCall[];
  /** Text parts of the answer, joined. */
  text: string;
  /** The answer as received: the tool input JSON or the text. Never holds a key. */
  rawAnswer: string;
  /** The provider's response body (secrets redacted). */
  rawResponse: unknown;
  usage: LlmUsage;
  finishReason: LlmFinishReason;
  warnings: string[];
}

/** A model behind one provider. */
export interface LanguageModel {
  /** `anthropic`, `gemini`, `scripted`, `recorded`. */
  readonly provider: string;
  readonly modelId: string;
  /** Model id used to look up prices (a scripted model can be priced as a real one). */
  readonly pricingModelId?: string;
  /** True for models that replay recorded answers: callers skip back-off delays. */
  readonly replay?: boolean;
  generate(request: LlmGenerateRequest): Promise<LlmGenerateResult>;
}
