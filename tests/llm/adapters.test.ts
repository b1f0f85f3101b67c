import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { createAnthropicModel } from '../../src/llm/anthropic-model.js';
import { createGeminiModel } from '../../src/llm/gemini-model.js';
import type { LanguageModel, LlmGenerateRequest } from '../../src/llm/language-model.js';
import { LlmCallError } from '../../src/llm/llm-call-error.js';

const KEY = 'fake-key-ADAPTERS-0123456789';
/** SDK 1.x sends an API key as `Authorization: Bearer`; older ones as `x-api-key`. */
const anthropicKeyHeader = (h: Record<string, string | string[] | undefined>): string | undefined =>
  (h['x-api-key'] as string | undefined) ?? (h.authorization as string | undefined)?.replace(/^Bearer /, '');
let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(async () => server.close());
afterEach(() => server.reset());

const objectRequest: LlmGenerateRequest = {
  messages: [
    { role: 'system', content: 'You route.' },
    { role: 'user', content: 'pick one' },
  ],
  answer: {
    kind: 'object',
    name: 'route',
    description: 'Pick a move',
    schema: { type: 'object', properties: { candidate_id: { type: 'string', enum: ['loop:build', 'escalate'] }, reason: { type: 'string' } }, required: ['candidate_id', 'reason'] },
  },
  maxOutputTokens: 200,
};

const toolsRequest: LlmGenerateRequest = {
  messages: [
    { role: 'user', content: 'explore' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_prev', name: 'update_flight_plan', input: { config_diff: {} } }] },
    { role: 'tool', toolCallId: 'toolu_prev', toolName: 'update_flight_plan', content: 'rejected: empty diff' },
  ],
  answer: {
    kind: 'tools',
    choice: 'required',
    tools: [
      { name: 'update_flight_plan', description: 'edit the plan', inputSchema: { type: 'object', properties: { reasoning: { type: 'string' } }, required: ['reasoning'] } },
      { name: 'finalize_context', description: 'finish', inputSchema: { type: 'object', properties: { reasoning: { type: 'string' } }, required: ['reasoning'] } },
    ],
  },
  maxOutputTokens: 300,
};

const adapters: [string, () => LanguageModel][] = [
  ['anthropic', () => createAnthropicModel({ apiKey: KEY, baseURL: server.url, model: 'claude-haiku-4-5' })],
  ['gemini', () => createGeminiModel({ apiKey: KEY, baseUrl: server.url, model: 'gemini-2.5-flash-lite' })],
];

describe.each(adapters)('%s adapter through the real SDK', (provider, make) => {
  it('gets a structured answer constrained by the schema (forced tool call / response schema)', async () => {
    server.enqueue({ kind: 'object', value: { candidate_id: 'loop:build', reason: '2 tests fail' }, usage: { input_tokens: 321, output_tokens: 17 } });
    const r = await make().generate(objectRequest);
    expect(r.object).toEqual({ candidate_id: 'loop:build', reason: '2 tests fail' });
    expect(r.usage).toEqual({ inputTokens: 321, outputTokens: 17 });
    const req = server.requests[0]!;
    expect(req.provider).toBe(provider);
    if (provider === 'anthropic') {
      expect(req.body.tool_choice).toEqual({ type: 'tool', name: 'route' });
      expect(req.body.system).toBe('You route.');
      expect(anthropicKeyHeader(req.headers)).toBe(KEY);
      expect(req.body.max_tokens).toBe(200);
    } else {
      const gc = req.body.generationConfig as Record<string, unknown>;
      expect(gc.responseMimeType).toBe('application/json');
      expect((gc.responseSchema as { properties: { candidate_id: { enum: string[]; type: string } } }).properties.candidate_id).toMatchObject({ type: 'STRING', enum: ['loop:build', 'escalate'] });
      expect(req.headers['x-goog-api-key']).toBe(KEY);
      expect(req.path).not.toContain(KEY);
      expect(req.model).toBe('gemini-2.5-flash-lite');
    }
  });

  it('extracts JSON from a fenced text answer and reports an unparseable one', async () => {
    server.enqueue({ kind: 'text', text: 'Sure:\n```json\n{"candidate_id":"escalate","reason":"x"}\n```' });
    server.enqueue({ kind: 'text', text: '{candidate_id: escalate' });
    const m = make();
    const a = await m.generate(objectRequest);
    expect(a.object).toEqual({ candidate_id: 'escalate', reason: 'x' });
    const b = await m.generate(objectRequest);
    expect(b.object).toBeUndefined();
    expect(b.parseError).toMatch(/JSON/);
    expect(b.rawAnswer).toBe('{candidate_id: escalate');
  });

  it('offers several tools, sends back earlier tool calls and results, and returns the call made', async () => {
    server.enqueue({ kind: 'tool_calls', calls: [{ name: 'finalize_context', input: { reasoning: 'enough' } }] });
    const r = await make().generate(toolsRequest);
    expect(r.toolCalls.map((c) => [c.name, c.input])).toEqual([['finalize_context', { reasoning: 'enough' }]]);
    expect(r.finishReason).toBe('tool_calls');
    const body = server.requests[0]!.body;
    if (provider === 'anthropic') {
      expect(body.tool_choice).toEqual({ type: 'any' });
      expect((body.tools as unknown[]).length).toBe(2);
      const msgs = body.messages as { role: string; content: { type: string }[] }[];
      expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(msgs[2]!.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_prev' });
    } else {
      expect(body.toolConfig).toMatchObject({ functionCallingConfig: { mode: 'ANY' } });
      const contents = body.contents as { role: string; parts: Record<string, unknown>[] }[];
      expect(contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
      expect(contents[2]!.parts[0]).toHaveProperty('functionResponse');
    }
  });

  it('turns a 429 into a retryable error carrying retry-after', async () => {
    server.enqueue({ kind: 'http_error', status: 429, retryAfter: '2' });
    const err = await make().generate(objectRequest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmCallError);
    expect((err as LlmCallError).kind).toBe('rate_limited');
    expect((err as LlmCallError).retryable).toBe(true);
    expect((err as LlmCallError).retryAfterMs).toBe(2000);
  });

  it('turns a 500 into a retryable server error and a 400 into a non-retryable one', async () => {
    server.enqueue({ kind: 'http_error', status: 500 }, { kind: 'http_error', status: 400 });
    const m = make();
    const e1 = (await m.generate(objectRequest).catch((e: unknown) => e)) as LlmCallError;
    expect([e1.kind, e1.retryable, e1.status]).toEqual(['server_error', true, 500]);
    const e2 = (await m.generate(objectRequest).catch((e: unknown) => e)) as LlmCallError;
    expect([e2.kind, e2.retryable, e2.status]).toEqual(['client_error', false, 400]);
  });

  it('redacts a key the server echoes back in an error body', async () => {
    server.enqueue({ kind: 'http_error', status: 401, message: `invalid x-api-key ${KEY}` });
    const err = (await make().generate(objectRequest).catch((e: unknown) => e)) as LlmCallError;
    expect(err.message).toContain('[REDACTED]');
    expect(err.message).not.toContain(KEY);
  });

  it('stops when its signal aborts a hanging request', async () => {
    server.enqueue({ kind: 'hang' });
    const ctl = new AbortController();
    const p = make().generate({ ...objectRequest, signal: ctl.signal });
    setTimeout(() => ctl.abort(), 50);
    const err = (await p.catch((e: unknown) => e)) as LlmCallError;
    expect(err).toBeInstanceOf(LlmCallError);
    expect(err.kind).toBe('aborted');
  });
});

describe('adapter configuration', () => {
  it('anthropic honours ANTHROPIC_BASE_URL and reads the key from the environment', async () => {
    server.enqueue({ kind: 'object', value: { candidate_id: 'escalate', reason: 'r' } });
    const m = createAnthropicModel({ env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url } });
    expect(m.modelId).toBe('claude-haiku-4-5');
    const r = await m.generate(objectRequest);
    expect(r.object).toEqual({ candidate_id: 'escalate', reason: 'r' });
    expect(anthropicKeyHeader(server.requests[0]!.headers)).toBe(KEY);
  });

  it('a missing key is a typed configuration error that names the variable, not a key', () => {
    expect(() => createAnthropicModel({ env: {} })).toThrow(/ANTHROPIC_API_KEY is not set/);
    expect(() => createGeminiModel({ env: {} })).toThrow(/GEMINI_API_KEY is not set/);
  });
});
