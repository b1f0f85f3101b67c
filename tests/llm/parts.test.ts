import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  extractJson,
  countTokens,
  splitLongRuns,
  findPricing,
  estimateCallUsd,
  PRICING_PRESETS,
  charterViolation,
  nonGoalMatching,
  createScriptedModel,
  createLlmArbiter,
  buildArbiterMessages,
  DEFAULT_PROMPT_LIMITS,
  parseLlmSpec,
  generateWithRetry,
  LlmCallError,
  type LanguageModel,
} from '../../src/llm/index.js';
import { parseRetryAfter } from '../../src/llm/llm-call-error.js';
import { arbiterInput, CANDIDATES } from './arbiter-fixture.js';

describe('extractJson (seed 004: strip fences, parse, bracket-match)', () => {
  it('parses plain, fenced, prose-wrapped and nested answers', () => {
    expect(extractJson('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(extractJson('```json\n{"a":[1,2]}\n```')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(extractJson('```\n{"a":2}')).toEqual({ ok: true, value: { a: 2 } });
    expect(extractJson('I choose {"id":"x","why":"a } in a string"} because.')).toEqual({ ok: true, value: { id: 'x', why: 'a } in a string' } });
    expect(extractJson('noise {broken} then {"ok":true}')).toEqual({ ok: true, value: { ok: true } });
  });
  it('reports what cannot be parsed', () => {
    expect(extractJson('')).toEqual({ ok: false, error: 'empty answer' });
    expect(extractJson('{"candidate_id": "x", ').ok).toBe(false);
    expect(extractJson('no json here').ok).toBe(false);
  });
});

describe('token estimate (gpt-tokenizer, cl100k_base)', () => {
  it('counts special-token text as text instead of throwing', async () => {
    expect(await countTokens('a <|endoftext|> b')).toBeGreaterThan(3);
  });
  it('splits long runs without whitespace so minified text stays linear, keeping every character', async () => {
    const minified = 'x=function(a){return(a+1)};'.repeat(2000); // 54,000 chars without whitespace
    const base64 = 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo='.repeat(1000);
    const text = `head ${minified} middle words ${base64} tail`;
    const pieces = splitLongRuns(text);
    expect(pieces.join('')).toBe(text);
    for (const p of pieces) expect(p).not.toMatch(/\S{201}/);
    const n = await countTokens(text);
    expect(n).toBeGreaterThan(10_000);
  });
});

describe('pricing and budget', () => {
  it("holds seed 000's gemini prices and economy presets, matched by exact name or longest prefix", () => {
    expect(findPricing('gemini-2.0-flash')).toMatchObject({ input_per_million: 0.075, output_per_million: 0.3 });
    expect(findPricing('gemini-1.5-pro')).toMatchObject({ input_per_million: 1.25, output_per_million: 5 });
    expect(findPricing('gemini-2.0-flash-thinking-exp')?.model_name).toBe('gemini-2.0-flash-thinking');
    expect(findPricing('claude-haiku-4-5-20251001')?.model_name).toBe('claude-haiku-4-5');
    expect(findPricing('gpt-9')).toBeUndefined();
    expect(PRICING_PRESETS.length).toBeGreaterThanOrEqual(8);
  });
  it('overrides win over presets; estimateCallUsd computes from tokens', () => {
    expect(estimateCallUsd('gemini-2.0-flash', 1_000_000, 1_000_000)).toBeCloseTo(0.375, 12);
    expect(estimateCallUsd('gemini-2.0-flash', 1_000_000, 0, [{ model_name: 'gemini-2.0-flash', input_per_million: 0.1, output_per_million: 0.4 }])).toBeCloseTo(0.1, 12);
    expect(() => estimateCallUsd('gpt-9', 1, 1)).toThrow(/no price known/);
  });
});

describe('charter check', () => {
  const charter = { goal: 'Implement the planned work', non_goals: ['Refactoring unrelated code such as the auth module', 'Writing documentation'], key_question: 'q' };
  it('matches a target whose words all fall under a non-goal', () => {
    expect(nonGoalMatching('refactor-auth', charter)).toBe(charter.non_goals[0]);
    expect(nonGoalMatching('authRefactoring', charter)).toBe(charter.non_goals[0]);
    expect(nonGoalMatching('docs-writer', charter)).toBeUndefined();
    expect(nonGoalMatching('write-documentation', charter)).toBe(charter.non_goals[1]);
  });
  it('leaves in-scope targets and target-less moves alone', () => {
    expect(nonGoalMatching('auto-linter', charter)).toBeUndefined();
    expect(nonGoalMatching('auth-tests', charter)).toBeUndefined();
    expect(charterViolation({ id: 'escalate', decision: 'ESCALATE', target: null, description: '' }, charter)).toBeUndefined();
  });
});

describe('prompt bounds', () => {
  it('caps the forensic document: a 200 kB log and 500 concerns still give a small prompt', () => {
    const input = arbiterInput();
    input.request = {
      ...input.request,
      forensics: {
        error_output: 'E'.repeat(100_000) + '\nFATAL: the real error at the end',
        concerns: Array.from({ length: 500 }, (_, i) => ({ severity: 'LOW' as const, description: `concern ${i} `.repeat(100) })),
        lint: { errors: 3, output: 'L'.repeat(100_000) },
      },
    };
    const [, user] = buildArbiterMessages(input, CANDIDATES, DEFAULT_PROMPT_LIMITS);
    const doc = JSON.parse(user!.content.slice(user!.content.indexOf('{'))) as { forensics: Record<string, unknown> };
    expect(JSON.stringify(doc.forensics).length).toBeLessThanOrEqual(DEFAULT_PROMPT_LIMITS.maxForensicsChars);
    expect(user!.content.length).toBeLessThan(8_000);
    expect(String(doc.forensics.error_output)).toContain('FATAL: the real error at the end');
  });
  it('is the same bytes for the same input', () => {
    expect(buildArbiterMessages(arbiterInput(), CANDIDATES)).toEqual(buildArbiterMessages(arbiterInput(), CANDIDATES));
  });
});

describe('scripted model', () => {
  it('picks the first offered id matching its globs, in preference order', async () => {
    const navigate = createLlmArbiter(createScriptedModel([{ pick: ['terminate', 'detour:*', 'escalate'], reason: 'lint blocks the planned work' }]));
    const a = await navigate(arbiterInput());
    expect(a.proposal).toEqual({ candidate_id: 'detour:auto-linter', reason: 'lint blocks the planned work' });
    expect(a.calls[0]).toMatchObject({ provider: 'scripted', outcome: 'ok', usd: 0 });
    expect(a.calls[0]!.input_tokens).toBeGreaterThan(100); // counted by gpt-tokenizer (cl100k_base)
  });
  it('rules mode reuses entries by `when`, priced as a real model', async () => {
    const model = createScriptedModel({ model: 'claude-haiku-4-5', mode: 'rules', answers: [{ when: '"status":"UNVERIFIED"', pick: 'loop:*' }, { pick: 'escalate' }] });
    const navigate = createLlmArbiter(model);
    const a = await navigate(arbiterInput());
    const b = await navigate(arbiterInput());
    const other = arbiterInput();
    other.request = { ...other.request, status: 'BLOCKED' };
    const c = await navigate(other);
    expect([a.proposal?.candidate_id, b.proposal?.candidate_id, c.proposal?.candidate_id]).toEqual(['loop:implement', 'loop:implement', 'escalate']);
    expect(a.cost_usd).toBeGreaterThan(0);
  });
  it('sequence mode runs out, and scripted failures go through the retry loop', async () => {
    const navigate = createLlmArbiter(createScriptedModel([{ error: 'rate_limited', retry_after_ms: 10 }, { pick: 'escalate' }]), { retryEnv: { sleep: async () => {} } });
    const a = await navigate(arbiterInput());
    expect(a.calls.map((c) => c.outcome)).toEqual(['rate_limited', 'ok']);
    const b = await navigate(arbiterInput());
    expect(b.proposal).toBeUndefined();
    expect(b.skipped?.rule).toBe('llm_unavailable');
  });
  it('rejects an invalid script with the path of the problem', () => {
    expect(() => createScriptedModel([{ pick: 'x', bogus: 1 } as never])).toThrow(/scripted model/);
  });
});

describe('inject_nodes proposals', () => {
  const input = () => {
    const i = arbiterInput({ inject_nodes: { allowed: true, max_nodes: 2, roster: ['code-implementer', 'critic'] } });
    i.candidates = [...CANDIDATES, { id: 'inject_nodes', decision: 'INJECT_NODES', target: null, description: 'insert ad-hoc steps' }];
    return i;
  };
  const run = (nodes: unknown) => createLlmArbiter(createScriptedModel([{ answer: { candidate_id: 'inject_nodes', reason: 'r', inject_nodes: nodes } }]), { invalidAnswerRetries: 0 })(input());
  it('accepts unique ids run by agents of the roster', async () => {
    const a = await run([{ id: 'add-retry-tests', agent: 'code-implementer', purpose: 'cover the retry path the plan asks for' }]);
    expect(a.proposal?.inject_nodes).toEqual([{ id: 'add-retry-tests', agent: 'code-implementer', purpose: 'cover the retry path the plan asks for' }]);
  });
  it('refuses nodes whose purpose shares nothing with the charter goal, and asks again', async () => {
    const model = createScriptedModel([
      { answer: { candidate_id: 'inject_nodes', reason: 'r', inject_nodes: [{ id: 'polish-ui', agent: 'code-implementer', purpose: 'restyle the login page while we are here' }] } },
      { answer: { candidate_id: 'loop:implement', reason: 'two tests fail' } },
    ]);
    const a = await createLlmArbiter(model)(input());
    expect(a.rejected).toEqual([expect.objectContaining({ rule: 'llm_goal_misaligned', decision: 'INJECT_NODES', why: expect.stringMatching(/shares nothing with the charter's goal "Implement the planned work"/) })]);
    expect(a.proposal?.candidate_id).toBe('loop:implement');
    expect(a.calls).toHaveLength(2);
  });
  it.each([
    [[{ id: 'a', agent: 'hacker' }], /not in the flow's roster/],
    [[{ id: 'a', agent: 'critic' }, { id: 'a', agent: 'critic' }], /proposed twice/],
    [[{ id: 'a', agent: 'critic' }, { id: 'b', agent: 'critic' }, { id: 'c', agent: 'critic' }], /at most 2/],
    [[{ id: 'implement', agent: 'critic' }], /collides/],
    [[{ id: 'bad id!', agent: 'critic' }], /not a valid step id/],
    [[], /without any node/],
  ])('refuses %j', async (nodes, why) => {
    const a = await run(nodes);
    expect(a.proposal).toBeUndefined();
    expect(a.rejected[0]?.rule).toBe('llm_invalid_nodes');
    expect(a.rejected[0]?.why).toMatch(why);
  });
});

describe('only legal candidates come out, whatever the model says (property)', () => {
  it('holds for arbitrary answers', async () => {
    const answer = fc.oneof(
      fc.record({ candidate_id: fc.oneof(fc.string(), fc.constantFrom(...CANDIDATES.map((c) => c.id), 'terminate', 'TERMINATE', ' escalate ')), reason: fc.string() }),
      fc.anything(),
    );
    await fc.assert(
      fc.asyncProperty(answer, answer, async (a1, a2) => {
        const model = createScriptedModel([{ answer: a1 }, { answer: a2 }]);
        const r = await createLlmArbiter(model)(arbiterInput());
        if (r.proposal) {
          expect(CANDIDATES.map((c) => c.id)).toContain(r.proposal.candidate_id);
          expect(r.proposal.candidate_id).not.toBe('detour:refactor-auth');
        }
        expect(r.calls.length).toBeLessThanOrEqual(2);
      }),
      { numRuns: 150 },
    );
  });
});

describe('retry loop', () => {
  const failing = (kinds: LlmCallError['kind'][]): LanguageModel => {
    let i = 0;
    return {
      provider: 'test',
      modelId: 'test',
      generate: async () => {
        const k = kinds[i++];
        if (k) throw new LlmCallError(k, k);
        return { toolCalls: [], text: 'ok', rawAnswer: 'ok', rawResponse: {}, usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'stop', warnings: [] };
      },
    };
  };
  const req = { messages: [{ role: 'user' as const, content: 'x' }], answer: { kind: 'tools' as const, tools: [] }, maxOutputTokens: 10 };
  it('does not retry a client error', async () => {
    const at = await generateWithRetry(failing(['client_error']), req, { env: { sleep: async () => {} } });
    expect(at.map((a) => a.ok)).toEqual([false]);
  });
  it('stops at the attempt limit and within the total time bound', async () => {
    let clock = 0;
    const env = { now: () => clock, sleep: async (ms: number) => void (clock += ms), random: () => 1 };
    const at = await generateWithRetry(failing(['server_error', 'server_error', 'server_error', 'server_error']), req, { policy: { maxAttempts: 10, totalTimeMs: 1000, baseDelayMs: 300 }, env });
    // waits 300, 600 → at 900; the next wait (1200) would end past 1000: stop after 3 attempts
    expect(at.length).toBe(3);
  });
  it('reads retry-after as seconds, an HTTP date, or retry-after-ms', () => {
    const h = (o: Record<string, string>) => new Headers(o);
    expect(parseRetryAfter(h({ 'retry-after': '2' }), 0)).toBe(2000);
    expect(parseRetryAfter(h({ 'retry-after-ms': '150', 'retry-after': '2' }), 0)).toBe(150);
    expect(parseRetryAfter(h({ 'retry-after': new Date(10_000).toUTCString() }), 4_000)).toBe(6000);
    expect(parseRetryAfter(h({}), 0)).toBeUndefined();
  });
});

describe('parseLlmSpec', () => {
  it('reads provider, model and file', () => {
    expect(parseLlmSpec('anthropic')).toEqual({ provider: 'anthropic' });
    expect(parseLlmSpec('gemini:gemini-2.0-flash')).toEqual({ provider: 'gemini', model: 'gemini-2.0-flash' });
    expect(parseLlmSpec('scripted:./answers/a.json')).toEqual({ provider: 'scripted', file: './answers/a.json' });
    expect(() => parseLlmSpec('scripted')).toThrow(/needs a file/);
  });
});
