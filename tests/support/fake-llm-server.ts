/**
 * A local stand-in for the Anthropic Messages API (`POST /v1/messages`) and the Gemini generateContent API
 * (`POST /v1beta/models/<model>:generateContent`) on 127.0.0.1, random port, for tests that drive the
 * real SDKs. Replies are scripted per request (FIFO queue, then the default reply); every request is recorded.
 *
 *   const server = await startFakeLlmServer();
 *   server.enqueue({ kind: 'object', value: { candidate_id: 'loop:build', reason: '2 tests fail' } });
 *   createAnthropicModel({ apiKey: 'test-key', baseURL: server.url });
 *   createGeminiModel({ apiKey: 'test-key', baseUrl: server.url });
 *   ... server.requests[0].body ...
 *   await server.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeProvider = 'anthropic' | 'gemini';

export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
}

/** What the server answers to one request. */
export type FakeReply =
  /** The structured answer in the provider's native form: Anthropic a `tool_use` of the forced tool; Gemini JSON text. */
  | { kind: 'object'; value: unknown; usage?: FakeUsage }
  /** One or more tool calls (Anthropic `tool_use` blocks; Gemini `functionCall` parts). */
  | { kind: 'tool_calls'; calls: { name: string; input: unknown }[]; text?: string; usage?: FakeUsage }
  /** A plain text answer (e.g. fenced or malformed JSON). */
  | { kind: 'text'; text: string; usage?: FakeUsage; finish?: 'stop' | 'length' }
  /** An HTTP error in the provider's error format. `retryAfter` sets the `retry-after` header (seconds). */
  | { kind: 'http_error'; status: number; message?: string; retryAfter?: string; headers?: Record<string, string> }
  /** Never answers; the connection stays open until the client gives up (or the server closes). */
  | { kind: 'hang' }
  /** Full control: status, headers and a JSON body. */
  | { kind: 'raw'; status: number; headers?: Record<string, string>; body: unknown };

/** A request as the server saw it. Headers are kept verbatim so tests can check where keys went. */
export interface FakeRequest {
  provider: FakeProvider;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  /** Gemini: the model from the path; Anthropic: `body.model`. */
  model: string;
}

/** A reply, or a function computing one from the request (e.g. to pick the first enum value offered). */
export type FakeReplySource = FakeReply | ((req: FakeRequest) => FakeReply);

export interface FakeLlmServer {
  /** `http://127.0.0.1:<port>`: the base URL for both SDKs. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: FakeRequest[];
  /** Queue replies, answered in order (one per request, whatever the provider). */
  enqueue(...replies: FakeReplySource[]): void;
  /** Reply used when the queue is empty (default: a 500 saying the queue is empty). */
  setDefault(reply: FakeReplySource | undefined): void;
  /** Replies still queued. */
  pending(): number;
  /** Drops queued replies and recorded requests. */
  reset(): void;
  /** Closes the server and every open (e.g. hanging) connection. */
  close(): Promise<void>;
}

const DEFAULT_USAGE: FakeUsage = { input_tokens: 120, output_tokens: 25 };

export async function startFakeLlmServer(): Promise<FakeLlmServer> {
  const queue: FakeReplySource[] = [];
  const requests: FakeRequest[] = [];
  let fallback: FakeReplySource | undefined;
  let seq = 0;

  const server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      body = { unparsed: raw };
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const gemini = /\/models\/([^/:]+):generateContent$/.exec(url.pathname);
    const provider: FakeProvider | undefined = url.pathname.endsWith('/v1/messages') ? 'anthropic' : gemini ? 'gemini' : undefined;
    if (!provider || req.method !== 'POST') {
      send(res, 404, {}, { error: { message: `fake server: no route for ${req.method} ${url.pathname}` } });
      return;
    }
    const request: FakeRequest = {
      provider,
      method: req.method,
      path: url.pathname,
      headers: { ...req.headers },
      body,
      model: provider === 'gemini' ? decodeURIComponent(gemini?.[1] ?? '') : String(body.model ?? ''),
    };
    requests.push(request);
    const source = queue.shift() ?? fallback ?? { kind: 'http_error', status: 500, message: 'fake server: reply queue is empty' };
    const reply = typeof source === 'function' ? source(request) : source;
    seq++;
    if (reply.kind === 'hang') return; // keep the socket open; close() destroys it
    if (provider === 'anthropic') answerAnthropic(res, request, reply, seq);
    else answerGemini(res, request, reply);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    enqueue: (...r) => void queue.push(...r),
    setDefault: (r) => void (fallback = r),
    pending: () => queue.length,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function forcedToolName(req: FakeRequest): string {
  const choice = req.body.tool_choice as { type?: string; name?: string } | undefined;
  if (choice?.type === 'tool' && choice.name) return choice.name;
  const tools = req.body.tools as { name?: string }[] | undefined;
  return tools?.[0]?.name ?? 'answer';
}

function answerAnthropic(res: ServerResponse, req: FakeRequest, reply: Exclude<FakeReply, { kind: 'hang' }>, seq: number): void {
  const message = (content: unknown[], stop: string, usage: FakeUsage = DEFAULT_USAGE): unknown => ({
    id: `msg_fake_${seq}`,
    type: 'message',
    role: 'assistant',
    model: req.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage,
  });
  switch (reply.kind) {
    case 'object':
      return send(res, 200, {}, message([{ type: 'tool_use', id: `toolu_fake_${seq}`, name: forcedToolName(req), input: reply.value }], 'tool_use', reply.usage));
    case 'tool_calls': {
      const blocks: unknown[] = reply.text ? [{ type: 'text', text: reply.text }] : [];
      reply.calls.forEach((c, i) => blocks.push({ type: 'tool_use', id: `toolu_fake_${seq}_${i}`, name: c.name, input: c.input }));
      return send(res, 200, {}, message(blocks, 'tool_use', reply.usage));
    }
    case 'text':
      return send(res, 200, {}, message([{ type: 'text', text: reply.text }], reply.finish === 'length' ? 'max_tokens' : 'end_turn', reply.usage));
    case 'http_error': {
      const type = reply.status === 429 ? 'rate_limit_error' : reply.status >= 500 ? 'api_error' : reply.status === 401 ? 'authentication_error' : 'invalid_request_error';
      const headers = { ...(reply.retryAfter !== undefined ? { 'retry-after': reply.retryAfter } : {}), ...reply.headers };
      return send(res, reply.status, headers, { type: 'error', error: { type, message: reply.message ?? `fake ${reply.status}` } });
    }
    case 'raw':
      return send(res, reply.status, reply.headers ?? {}, reply.body);
  }
}

function answerGemini(res: ServerResponse, req: FakeRequest, reply: Exclude<FakeReply, { kind: 'hang' }>): void {
  const response = (parts: unknown[], finish: string, usage: FakeUsage = DEFAULT_USAGE): unknown => ({
    candidates: [{ content: { role: 'model', parts }, finishReason: finish, index: 0 }],
    usageMetadata: { promptTokenCount: usage.input_tokens, candidatesTokenCount: usage.output_tokens, totalTokenCount: usage.input_tokens + usage.output_tokens },
    modelVersion: req.model,
  });
  switch (reply.kind) {
    case 'object':
      return send(res, 200, {}, response([{ text: JSON.stringify(reply.value) }], 'STOP', reply.usage));
    case 'tool_calls': {
      const parts: unknown[] = reply.text ? [{ text: reply.text }] : [];
      for (const c of reply.calls) parts.push({ functionCall: { name: c.name, args: c.input } });
      return send(res, 200, {}, response(parts, 'STOP', reply.usage));
    }
    case 'text':
      return send(res, 200, {}, response([{ text: reply.text }], reply.finish === 'length' ? 'MAX_TOKENS' : 'STOP', reply.usage));
    case 'http_error': {
      const status = reply.status === 429 ? 'RESOURCE_EXHAUSTED' : reply.status >= 500 ? 'INTERNAL' : reply.status === 401 ? 'UNAUTHENTICATED' : 'INVALID_ARGUMENT';
      const details = reply.status === 429 && reply.retryAfter !== undefined ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${reply.retryAfter}s` }] : [];
      const headers = { ...(reply.retryAfter !== undefined ? { 'retry-after': reply.retryAfter } : {}), ...reply.headers };
      return send(res, reply.status, headers, { error: { code: reply.status, message: reply.message ?? `fake ${reply.status}`, status, details } });
    }
    case 'raw':
      return send(res, reply.status, reply.headers ?? {}, reply.body);
  }
}

/**
 * The enum of the first string property named `field` in the request's answer schema
 * (Anthropic: the forced tool's `input_schema`; Gemini: `generationConfig.responseSchema`).
 * Lets a reply pick a legal candidate without knowing the ids in advance.
 */
export function offeredEnum(req: FakeRequest, field = 'candidate_id'): string[] {
  let schema: Record<string, unknown> | undefined;
  if (req.provider === 'anthropic') {
    const tools = req.body.tools as { name: string; input_schema: Record<string, unknown> }[] | undefined;
    schema = tools?.find((t) => t.name === forcedToolName(req))?.input_schema;
  } else {
    const gc = req.body.generationConfig as Record<string, unknown> | undefined;
    schema = gc?.responseSchema as Record<string, unknown> | undefined;
  }
  const prop = (schema?.properties as Record<string, { enum?: string[] }> | undefined)?.[field];
  return prop?.enum ?? [];
}
