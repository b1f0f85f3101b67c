import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUserLine } from '../../src/explorer/index.js';
import { openExplorerStore } from '../../src/ledger/index.js';
import { parseLlmSpec } from '../../src/llm/index.js';
import { runCliHere } from '../support/cli.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { makeRepo, NO_KEYS, runCli, startCli, tmpDir } from './helpers.js';

const TASK = 'fix the discount calculation in the cart total';

let repo: string;
let dir: string;
let server: FakeLlmServer;
beforeAll(async () => {
  repo = makeRepo();
  dir = tmpDir('nk-explore-controls-');
  server = await startFakeLlmServer();
});
afterAll(async () => server.close());

const common = (ledger = 'ledger.sqlite') => ['explore', '--repo', repo, '--goal', TASK, '--no-cache', '--tokens', '4000', '--ledger', path.join(dir, ledger)];
const updateCall = (config_diff: unknown, reasoning: string) => ({ kind: 'tool_calls' as const, calls: [{ name: 'update_flight_plan', input: { config_diff, reasoning } }] });
const finalizeCall = (reasoning = 'the cart and its discount are in') => ({ kind: 'tool_calls' as const, calls: [{ name: 'finalize_context', input: { reasoning } }] });
const systemText = (body: Record<string, unknown>) => JSON.stringify(body.system ?? body.systemInstruction ?? body.config ?? '');

describe('explore: bare model names, --verbose, --persona, feedback, --copy', () => {
  it('infers the provider of a bare model name', () => {
    expect(parseLlmSpec('claude-haiku-4-5')).toEqual({ provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(parseLlmSpec('gemini-2.5-flash')).toEqual({ provider: 'gemini', model: 'gemini-2.5-flash' });
    expect(parseLlmSpec('anthropic:claude-sonnet-4-5')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(() => parseLlmSpec('gpt-4o')).toThrow(/starting with claude- or gemini-/);
  });

  it('--model claude-haiku-4-5 talks to Anthropic, loads the persona last, and --verbose shows each call', async () => {
    server.reset();
    server.enqueue(updateCall({ verbosity: [{ pattern: 'tests/**', level: 0 }] }, 'tests are noise'), finalizeCall());
    const env = { ANTHROPIC_API_KEY: 'fake-key-0123456789abcdef', ANTHROPIC_BASE_URL: server.url };
    const r = await runCli([...common(), '--model', 'claude-haiku-4-5', '--verbose', '--json', '--session', 'bare-anthropic'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.map((q) => [q.provider, q.model])).toEqual([
      ['anthropic', 'claude-haiku-4-5'],
      ['anthropic', 'claude-haiku-4-5'],
    ]);
    const system = systemText(server.requests[0]!.body);
    expect(system).toContain('Style prior: Claude Shannon');
    expect(system.indexOf('Style prior')).toBeGreaterThan(system.indexOf('call exactly one tool'));
    expect(r.stderr).toContain('TURN REPORT - Step 1');
    expect(r.stderr).toContain('reasoning: tests are noise');
    expect(r.stderr).toMatch(/call 1: anthropic:claude-haiku-4-5 persona=shannon ok \| \d+ in \+ \d+ out tokens \| \$0\.\d{6} \| [\d.]+ ms/);
    expect(r.stderr).not.toContain('fake-key-0123456789abcdef');

    // Each call is a row of the ledger's LLM-call table, as tier 3's are: runs and audit show the explorer's cost.
    const ledger = path.join(dir, 'ledger.sqlite');
    const st = openExplorerStore(ledger, { create: false });
    let spent: number;
    try {
      spent = st.load('bare-anthropic')!.state.budget_config.current_spend_usd;
      const calls = st.calls('bare-anthropic');
      expect(calls.map((c) => [c.step, c.record.purpose, c.record.provider, c.record.model, c.record.persona, c.record.outcome])).toEqual([
        [1, 'explore', 'anthropic', 'claude-haiku-4-5', 'shannon', 'ok'],
        [2, 'explore', 'anthropic', 'claude-haiku-4-5', 'shannon', 'ok'],
      ]);
      for (const { record } of calls) {
        expect(record.prompt_hash).toMatch(/^[0-9a-f]{64}$/);
        expect(record.input_tokens).toBeGreaterThan(0);
        expect(record.latency_ms).toBeGreaterThanOrEqual(0);
      }
      expect(calls.reduce((n, c) => n + c.record.usd, 0)).toBeCloseTo(spent, 9);
    } finally {
      st.close();
    }
    const runs = await runCliHere(['runs', '--ledger', ledger]);
    expect(runs.code, runs.stderr).toBe(0);
    expect(runs.stdout).toMatch(new RegExp(`explore:bare-anthropic +2 +2 +${spent.toFixed(4).replace('.', '\\.')} .*anthropic:claude-haiku-4-5`));
    const audit = await runCliHere(['audit', 'explore:bare-anthropic', '--ledger', ledger, '--json']);
    expect(audit.code, audit.stderr).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ session_id: 'bare-anthropic', steps: 2, calls: 2, by_model: [{ provider: 'anthropic', model: 'claude-haiku-4-5', persona: 'shannon', calls: 2 }] });
    const verify = await runCliHere(['verify', '--ledger', ledger]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });

  it('--model gemini-2.5-flash talks to Gemini; --persona knuth replaces the automatic choice', async () => {
    server.reset();
    server.enqueue(finalizeCall());
    const env = { GEMINI_API_KEY: 'fake-gemini-key-0123456789', GOOGLE_GEMINI_BASE_URL: server.url };
    const r = await runCli([...common(), '--model', 'gemini-2.5-flash', '--persona', 'knuth', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.map((q) => [q.provider, q.model])).toEqual([['gemini', 'gemini-2.5-flash']]);
    expect(JSON.stringify(server.requests[0]!.body)).toContain('Style prior: Donald Knuth');
  });

  it('--no-llm with a bare model name makes no call; a bad --persona is an invalid configuration (exit 2)', async () => {
    server.reset();
    const r = await runCliHere([...common(), '--no-llm', '--model', 'claude-haiku-4-5', '--json'], NO_KEYS);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests).toHaveLength(0);
    const bad = await runCliHere([...common(), '--no-llm', '--persona', 'turing'], NO_KEYS);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--persona must be one of shannon, knuth, feynman, auto, none/);
  });

  it('interactive `feedback: TEXT` carries on and puts the text in the next prompt', async () => {
    expect(parseUserLine('feedback: zoom on src/cart')).toEqual({ kind: 'feedback', text: 'zoom on src/cart' });
    expect(parseUserLine('Feedback:   ').kind).toBe('invalid');
    server.reset();
    server.enqueue(updateCall({ verbosity: [{ pattern: 'tests/**', level: 0 }] }, 'tests are noise'), finalizeCall());
    const env = { ANTHROPIC_API_KEY: 'fake-key-0123456789abcdef', ANTHROPIC_BASE_URL: server.url };
    const c = startCli([...common(), '--model', 'claude-haiku-4-5', '--interactive', '--json', '--session', 'fb-1'], env);
    await c.stderrHas('Continue exploration? [y/N/feedback', 1);
    c.write('feedback: keep the discount rules at full text\n');
    expect(await c.done, c.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain('keep the discount rules');
    expect(JSON.stringify(server.requests[1]!.body)).toContain("the user's feedback for this step");
    expect(JSON.stringify(server.requests[1]!.body)).toContain('keep the discount rules at full text');
    // Saved on the step's log entry: a resumed session prompts with it too.
    const st = openExplorerStore(path.join(dir, 'ledger.sqlite'), { create: false });
    try {
      expect(st.load('fb-1')!.state.decision_log.map((e) => e.user_feedback ?? null)).toEqual(['keep the discount rules at full text', null]);
    } finally {
      st.close();
    }
  });

  it('--copy sends the context to the platform clipboard tool, and says so clearly when there is none', async () => {
    const bin = path.join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const clip = path.join(dir, 'clipboard.txt');
    writeFileSync(path.join(bin, 'xclip'), `#!/bin/sh\n[ "$1 $2" = "-selection clipboard" ] || exit 9\ncat > '${clip}'\n`);
    chmodSync(path.join(bin, 'xclip'), 0o755);
    const copied = await runCli([...common(), '--no-llm', '--copy'], { PATH: `${bin}:/bin:/usr/bin`, WAYLAND_DISPLAY: '' });
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stderr).toMatch(/copied the context \(\d+ tokens\) to the clipboard with xclip/);
    expect(readFileSync(clip, 'utf8')).toBe(copied.stdout);
    const empty = path.join(dir, 'empty-bin');
    mkdirSync(empty, { recursive: true });
    const none = await runCli([...common(), '--no-llm', '--copy'], { PATH: empty, WAYLAND_DISPLAY: '' });
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('--copy: no clipboard tool found on PATH (tried xclip, xsel, wl-copy, clip.exe); the context was not copied');
    expect(none.stdout.length).toBeGreaterThan(0);
  });
});
