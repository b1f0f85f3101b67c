import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ExplorerSessionStore } from '../../src/contracts/index.js';
import { exitCodeFor, resumeExplorer, runExplorer } from '../../src/explorer/index.js';
import { openExplorerStore } from '../../src/ledger/index.js';
import { createAnthropicModel, createScriptedModel, type ScriptedScriptInput } from '../../src/llm/index.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { finalize, makeRepo, promptText, recording, runCli, tmpDir, update } from './helpers.js';

const made: string[] = [];
const stores: ExplorerSessionStore[] = [];
let repo: string;
let server: FakeLlmServer;
beforeAll(async () => {
  repo = makeRepo();
  made.push(repo);
  server = await startFakeLlmServer();
});
afterEach(() => {
  while (stores.length) stores.pop()!.close();
  server.reset();
});
afterAll(async () => {
  await server.close();
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const TASK = 'fix the discount calculation in the cart total';
const base = { cacheDir: false as const, tokens: 4000 };
const scripted = (answers: ScriptedScriptInput, name: string) => recording(createScriptedModel(answers, { name }));
/** The same answer for every call (rules mode reuses the entry). */
const always = (answer: object, name: string) => scripted({ mode: 'rules', answers: [answer] } as ScriptedScriptInput, name);
function store() {
  const d = tmpDir('nk-escalation-');
  made.push(d);
  const s = openExplorerStore(path.join(d, 'ledger.sqlite'));
  stores.push(s);
  return s;
}
/** Distinct refused diffs: each a pattern that matches no file, so the plan never changes but no call repeats. */
const missing = (i: number) => update({ verbosity: [{ pattern: `nowhere-${i}/**`, level: 3 }] }, `try ${i}`);

describe('anti-stall (seed 004; issue 22 item 9)', () => {
  it('identical calls in a row end the session as stalled, with the reason, instead of spending every iteration', async () => {
    const model = always(update({ budget: 3000 }, 'shrink'), 'economy');
    const r = await runExplorer({ ...base, repo, task: TASK, model, maxIterations: 20 });
    expect(r.state.completion_reason).toBe('stalled');
    expect(model.requests).toHaveLength(3);
    expect(r.state.decision_log).toHaveLength(3);
    expect(r.state.reasoning_summary).toMatch(/^Stalled: the same tool call was made 3 times in a row \(steps 1-3\) \(no stronger model to move to\); ended instead of spending the remaining 17 iteration\(s\)\./);
    expect(new Set(r.state.decision_log.map((e) => e.call_signature)).size).toBe(1);
    expect(r.output.context_string).toContain('applyDiscount');
    expect(exitCodeFor(r)).toBe(0);
  });

  it('the same diff with new reasoning is the same call; a threshold of 0 turns the signal off', async () => {
    const words = scripted([update({ budget: 3000 }, 'a'), update({ budget: 3000 }, 'b'), update({ budget: 3000 }, 'c'), finalize()], 'economy');
    const r = await runExplorer({ ...base, repo, task: TASK, model: words });
    expect(r.state.completion_reason).toBe('stalled');
    expect(words.requests).toHaveLength(3);
    const off = always(update({ budget: 3000 }, 'shrink'), 'economy');
    const o = await runExplorer({ ...base, repo, task: TASK, model: off, maxIterations: 5, stall: { repeatedCalls: 0, noChangeTurns: 0 } });
    expect(o.state.completion_reason).toBe('max_iterations');
    expect(off.requests).toHaveLength(5);
  });

  it('steps without a plan change put a hard warning in the next prompt (no stronger model given)', async () => {
    const model = scripted([missing(1), missing(2), missing(3), finalize()], 'economy');
    const r = await runExplorer({ ...base, repo, task: TASK, model });
    expect(r.state.completion_reason).toBe('agent_done');
    expect(promptText(model.requests[2]!)).not.toContain('stall warning');
    expect(promptText(model.requests[3]!)).toContain('stall warning: the plan has not changed for 3 steps (steps 1-3)');
  });
});

describe('escalation to a stronger model (seed 002 "escalate to sonnet"; issue 22 item 9)', () => {
  it('a session whose plan stops changing on the economy model moves to the stronger one, recorded per step and per call', async () => {
    const economy = scripted([missing(1), missing(2), missing(3)], 'haiku-like');
    const strong = scripted([update({ verbosity: [{ pattern: 'src/cart/**', level: 4 }] }, 'the cart, whole'), finalize()], 'sonnet-like');
    const s = store();
    const r = await runExplorer({ ...base, repo, task: TASK, model: economy, escalation: { model: strong }, store: s, sessionId: 'esc-1' });
    expect(r.state.completion_reason).toBe('agent_done');
    expect(economy.requests).toHaveLength(3);
    expect(strong.requests).toHaveLength(2);
    expect(promptText(strong.requests[0]!)).toContain('escalated from scripted:haiku-like to scripted:sonnet-like: the plan has not changed for 3 steps (steps 1-3)');
    expect(r.state.decision_log.map((e) => e.model)).toEqual(['scripted:haiku-like', 'scripted:haiku-like', 'scripted:haiku-like', 'scripted:sonnet-like', 'scripted:sonnet-like']);
    expect(r.state.decision_log[3]!.escalated).toEqual({ from: 'scripted:haiku-like', to: 'scripted:sonnet-like', reason: 'the plan has not changed for 3 steps (steps 1-3)' });
    expect(r.state.decision_log[4]!.escalated).toBeUndefined();
    expect(r.state.map_metadata.focus_areas).toEqual(expect.arrayContaining(['src/cart/cart.ts', 'src/cart/discount.ts']));
    // Saved: the session's config says where it escalated; the ledger's call records name each call's model.
    const saved = s.load('esc-1')!;
    expect(saved.config).toMatchObject({ escalate_to: 'scripted:sonnet-like', escalated_at_step: 3, stall_turns: 3, repeat_limit: 3 });
    expect(s.calls('esc-1').map((c) => `${c.step}:${c.record.model}`)).toEqual(['1:haiku-like', '2:haiku-like', '3:haiku-like', '4:sonnet-like', '5:sonnet-like']);
    // An escalated session carries on on the stronger model; without it, resuming is refused saying which one.
    s.save('esc-1', { ...saved.state, exploration_complete: false, completion_reason: null }, saved.config, new Date());
    const refused = await resumeExplorer(s, 'esc-1', { model: scripted([finalize()], 'haiku-like'), cacheDir: false }).catch((e: unknown) => e as { code: string; message: string });
    expect(refused).toMatchObject({ code: 'INVALID_CONFIG', message: 'session esc-1 escalated to scripted:sonnet-like at step 4: pass that model to carry on' });
    const again = scripted([finalize('done on resume')], 'sonnet-like');
    const resumed = await resumeExplorer(s, 'esc-1', { model: scripted([], 'haiku-like'), escalation: { model: again }, cacheDir: false });
    expect(again.requests).toHaveLength(1);
    expect(resumed.state.decision_log[5]).toMatchObject({ model: 'scripted:sonnet-like', reasoning: 'done on resume' });
  });

  it('repeated calls on the stronger model too end the session as stalled, saying it had escalated', async () => {
    const economy = always(update({ budget: 3000 }, 'shrink'), 'haiku-like');
    const strong = always(update({ budget: 3000 }, 'shrink harder'), 'sonnet-like');
    const r = await runExplorer({ ...base, repo, task: TASK, model: economy, escalation: { model: strong }, maxIterations: 20 });
    expect(economy.requests).toHaveLength(3);
    expect(strong.requests).toHaveLength(3);
    expect(r.state.completion_reason).toBe('stalled');
    expect(r.state.reasoning_summary).toMatch(/^Stalled: the same tool call was made 3 times in a row \(steps 4-6\) after escalating to scripted:sonnet-like;/);
  });

  it('stays on the economy model when the stronger model\'s next call does not fit the USD budget', async () => {
    const economy = always(update({ budget: 3000 }, 'shrink'), 'haiku-like');
    const strong = always(finalize(), 'sonnet-like');
    const pricey = { model_name: 'sonnet-like', input_per_million: 50_000, output_per_million: 250_000 };
    const r = await runExplorer({ ...base, repo, task: TASK, model: economy, escalation: { model: strong, pricing: pricey }, maxSpendUsd: 1 });
    expect(strong.requests).toHaveLength(0);
    expect(r.state.completion_reason).toBe('stalled');
    expect(r.state.reasoning_summary).toMatch(/escalation to scripted:sonnet-like not affordable: its next call \(~\$\d+\.\d+\) would pass the limit/);
    expect(r.state.decision_log.every((e) => e.model === 'scripted:haiku-like')).toBe(true);
  });

  it('through the real Anthropic SDK: haiku repeats itself, the session moves to sonnet (an unpriced id, priced by the override) on the same API, and each call is priced at its model', async () => {
    const KEY = 'fake-key-ESCALATION-0123456789';
    const same = { kind: 'tool_calls' as const, calls: [{ name: 'update_flight_plan', input: { config_diff: { budget: 3000 }, reasoning: 'shrink' } }], usage: { input_tokens: 1000, output_tokens: 50 } };
    server.enqueue(same, same, same, { kind: 'tool_calls', calls: [{ name: 'finalize_context', input: { reasoning: 'enough' } }], usage: { input_tokens: 2000, output_tokens: 40 } });
    const haiku = createAnthropicModel({ apiKey: KEY, baseURL: server.url, model: 'claude-haiku-4-5' });
    const sonnet = createAnthropicModel({ apiKey: KEY, baseURL: server.url, model: 'claude-sonnet-4-6' });
    const r = await runExplorer({ ...base, repo, task: TASK, model: haiku, escalation: { model: sonnet, pricing: { model_name: 'claude-sonnet-4-6', input_per_million: 3, output_per_million: 15 } } });
    expect(server.requests.map((q) => q.body.model)).toEqual(['claude-haiku-4-5', 'claude-haiku-4-5', 'claude-haiku-4-5', 'claude-sonnet-4-6']);
    expect(r.state.completion_reason).toBe('agent_done');
    expect(r.state.decision_log[3]).toMatchObject({ model: 'anthropic:claude-sonnet-4-6', escalated: { from: 'anthropic:claude-haiku-4-5', to: 'anthropic:claude-sonnet-4-6' } });
    expect(r.output.total_cost).toBeCloseTo((3 * (1000 * 1 + 50 * 5) + (2000 * 3 + 40 * 15)) / 1e6, 12);
    expect(r.state.budget_config.model_pricing_rates).toMatchObject({ model_name: 'claude-sonnet-4-6' });
  });

  it('the CLI: --escalate-to claude-sonnet-4-5 (priced by its preset) after --repeat-limit 2 identical haiku calls; the ledger shows both models', async () => {
    const d = tmpDir('nk-escalation-cli-');
    made.push(d);
    const same = { kind: 'tool_calls' as const, calls: [{ name: 'update_flight_plan', input: { config_diff: { budget: 3000 }, reasoning: 'shrink' } }] };
    server.enqueue(same, same, { kind: 'tool_calls', calls: [{ name: 'finalize_context', input: { reasoning: 'enough' } }] });
    const env = { ANTHROPIC_API_KEY: 'fake-key-0123456789abcdef', ANTHROPIC_BASE_URL: server.url };
    const ledger = path.join(d, 'ledger.sqlite');
    const r = await runCli(['explore', '--repo', repo, '--goal', TASK, '--no-cache', '--tokens', '4000', '--ledger', ledger, '--model', 'claude-haiku-4-5', '--escalate-to', 'claude-sonnet-4-5', '--repeat-limit', '2', '--session', 'cli-esc', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.map((q) => q.model)).toEqual(['claude-haiku-4-5', 'claude-haiku-4-5', 'claude-sonnet-4-5']);
    const s = openExplorerStore(ledger, { create: false });
    stores.push(s);
    expect(s.load('cli-esc')!.config).toMatchObject({ escalate_to: 'anthropic:claude-sonnet-4-5', escalated_at_step: 2, repeat_limit: 2 });
    expect(s.load('cli-esc')!.state.budget_config.model_pricing_rates).toEqual({ model_name: 'claude-sonnet-4-5', input_per_million: 3, output_per_million: 15 });
    expect(s.calls('cli-esc').map((c) => c.record.model)).toEqual(['claude-haiku-4-5', 'claude-haiku-4-5', 'claude-sonnet-4-5']);
    const bad = await runCli(['explore', '--repo', repo, '--goal', TASK, '--no-cache', '--ledger', ledger, '--model', 'claude-haiku-4-5', '--stall-turns', '-1'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--stall-turns must be an integer >= 0 (got "-1")');
  });
});
