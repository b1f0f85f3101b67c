import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor, runExplorer } from '../../src/explorer/index.js';
import { createAnthropicModel, createGeminiModel, type LanguageModel } from '../../src/llm/index.js';
import { startFakeLlmServer, type FakeLlmServer, type FakeRequest } from '../support/fake-llm-server.js';
import { makeRepo } from './helpers.js';

const KEY = 'fake-key-EXPLORER-0123456789';
let server: FakeLlmServer;
let repo: string;
beforeAll(async () => {
  server = await startFakeLlmServer();
  repo = makeRepo();
});
afterAll(async () => server.close());
afterEach(() => server.reset());

const TASK = 'fix the discount calculation in the cart total';

/** The tool names offered, the forced-call setting, and the tool result sent back, read from each wire format. */
const wire: Record<'anthropic' | 'gemini', { tools: (r: FakeRequest) => string[]; forced: (r: FakeRequest) => boolean; toolResult: (r: FakeRequest) => string | undefined }> = {
  anthropic: {
    tools: (r) => (r.body.tools as { name: string }[]).map((t) => t.name),
    forced: (r) => (r.body.tool_choice as { type: string }).type === 'any',
    toolResult: (r) => {
      for (const m of r.body.messages as { role: string; content: { type: string; tool_use_id?: string; content?: string }[] }[]) {
        for (const b of m.content) if (b.type === 'tool_result') return `${b.tool_use_id}|${b.content}`;
      }
      return undefined;
    },
  },
  gemini: {
    tools: (r) => ((r.body.tools as { functionDeclarations: { name: string }[] }[])[0]!.functionDeclarations).map((d) => d.name),
    forced: (r) => (r.body.toolConfig as { functionCallingConfig: { mode: string } }).functionCallingConfig.mode === 'ANY',
    toolResult: (r) => {
      for (const c of r.body.contents as { parts: { functionResponse?: { id?: string; name: string; response: { output: string } } }[] }[]) {
        for (const p of c.parts) if (p.functionResponse) return `${p.functionResponse.id}|${p.functionResponse.response.output}`;
      }
      return undefined;
    },
  },
};

const adapters: ['anthropic' | 'gemini', () => LanguageModel, { input: number; output: number }][] = [
  ['anthropic', () => createAnthropicModel({ apiKey: KEY, baseURL: server.url, model: 'claude-haiku-4-5' }), { input: 1.0, output: 5.0 }],
  ['gemini', () => createGeminiModel({ apiKey: KEY, baseUrl: server.url, model: 'gemini-2.5-flash-lite' }), { input: 0.1, output: 0.4 }],
];

describe.each(adapters)('a session through the real %s SDK', (provider, make, price) => {
  it('offers the two tools, applies the update, returns the result as a tool result, finalizes; cost from the reported usage', async () => {
    server.enqueue(
      { kind: 'tool_calls', calls: [{ name: 'update_flight_plan', input: { config_diff: { verbosity: [{ pattern: 'src/cart/**', level: 4 }] }, reasoning: 'the cart is the task' } }], usage: { input_tokens: 3000, output_tokens: 80 } },
      { kind: 'tool_calls', calls: [{ name: 'finalize_context', input: { reasoning: 'cart and discount at full text' } }], usage: { input_tokens: 3500, output_tokens: 40 } },
    );
    const r = await runExplorer({ repo, task: TASK, model: make(), cacheDir: false, tokens: 4000 });
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests as [FakeRequest, FakeRequest];
    expect(first.provider).toBe(provider);
    expect(wire[provider].tools(first)).toEqual(['update_flight_plan', 'finalize_context']);
    expect(wire[provider].forced(first)).toBe(true);
    expect(wire[provider].toolResult(first)).toBeUndefined();
    expect(wire[provider].toolResult(second)).toMatch(/^step_1\|applied \{"verbosity":\[\{"pattern":"src\/cart\/\*\*","level":4\}\]\}/);
    expect(JSON.stringify(first.body)).not.toContain(KEY);

    expect(r.state.completion_reason).toBe('agent_done');
    expect(r.state.map_metadata.focus_areas).toEqual(expect.arrayContaining(['src/cart/cart.ts', 'src/cart/discount.ts']));
    expect(r.state.budget_config.model_pricing_rates).toMatchObject({ input_per_million: price.input, output_per_million: price.output });
    const expected = ((3000 + 3500) * price.input + (80 + 40) * price.output) / 1e6;
    expect(r.output.total_cost).toBeCloseTo(expected, 12);
  });

  it('an invalid diff is refused and the provider sees the reason in the tool result', async () => {
    server.enqueue(
      { kind: 'tool_calls', calls: [{ name: 'update_flight_plan', input: { config_diff: { verbosity: [{ pattern: 'nowhere/**', level: 3 }] }, reasoning: 'guess' } }] },
      { kind: 'tool_calls', calls: [{ name: 'finalize_context', input: { reasoning: 'fine as it is' } }] },
    );
    const r = await runExplorer({ repo, task: TASK, model: make(), cacheDir: false, tokens: 4000 });
    expect(wire[provider].toolResult(server.requests[1]!)).toMatch(/^step_1\|REJECTED: verbosity\.0\.pattern: "nowhere\/\*\*" matches no file/);
    expect(r.state.decision_log[0]!.rejected).toBeDefined();
    expect(r.state.completion_reason).toBe('agent_done');
  });

  it('a provider that keeps failing ends the session as an agent error (exit 4) with the map so far', async () => {
    server.setDefault({ kind: 'http_error', status: 500, message: 'boom' });
    const r = await runExplorer({ repo, task: TASK, model: make(), cacheDir: false, tokens: 4000, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    server.setDefault(undefined);
    expect(server.requests).toHaveLength(2);
    expect(r.state.completion_reason).toBe('agent_error');
    expect(r.error).toMatch(/500/);
    expect(r.output.context_string).toContain('applyDiscount');
    expect(exitCodeFor(r)).toBe(4);
  });
});
