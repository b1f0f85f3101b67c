import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { addLlmOptions, arbiterFromFlags, type LlmFlags } from '../../src/cli/llm-options.js';
import { compileValidator } from '../../src/contracts/index.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { arbiterInput } from './arbiter-fixture.js';
import { tempDir } from '../support/temp.js';

const dir = tempDir('navkernel-llm-');
const script = [{ when: '"status":"UNVERIFIED"', pick: ['loop:*'], reason: 'tests still fail' }, { pick: 'escalate' }];
const scriptFile = path.join(dir, 'answers.json');
writeFileSync(scriptFile, JSON.stringify({ model: 'claude-haiku-4-5', mode: 'rules', answers: script }));

function flags(argv: string[]): LlmFlags {
  const cmd = addLlmOptions(new Command('route').exitOverride());
  cmd.parse(argv, { from: 'user' });
  return cmd.opts<LlmFlags>();
}

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(async () => server.close());

describe('--llm / --budget-usd flags', () => {
  it('the scripted file the demo uses validates against the published schema', () => {
    const r = compileValidator('scripted-llm-script')({ model: 'claude-haiku-4-5', mode: 'rules', answers: script });
    expect(r.success).toBe(true);
    expect(compileValidator('scripted-llm-script')([{ pick: 1 }]).success).toBe(false);
  });

  it('scripted:FILE gives an arbiter that answers from the file, priced as the model it names', async () => {
    const nav = (await arbiterFromFlags(flags(['--llm', `scripted:${scriptFile}`, '--budget-usd', '0.5'])))!;
    const a = await nav(arbiterInput());
    expect(a.proposal).toEqual({ candidate_id: 'loop:implement', reason: 'tests still fail' });
    expect(a.cost_usd).toBeGreaterThan(0);
  });

  it('--budget-usd is enforced: a budget below one call skips tier 3', async () => {
    const nav = (await arbiterFromFlags(flags(['--llm', `scripted:${scriptFile}`, '--budget-usd', '0.000001'])))!;
    const a = await nav(arbiterInput());
    expect(a.skipped?.rule).toBe('budget_exceeded');
    expect(a.calls).toEqual([]);
  });

  it('anthropic:MODEL reaches ANTHROPIC_BASE_URL with the key from the environment; --pricing prices an unknown model', async () => {
    const pricing = path.join(dir, 'pricing.yaml');
    writeFileSync(pricing, 'models:\n  - model_name: claude-future-1\n    input_per_million: 2\n    output_per_million: 8\n');
    server.enqueue({ kind: 'object', value: { candidate_id: 'escalate', reason: 'HIGH concern' }, usage: { input_tokens: 1000, output_tokens: 100 } });
    const nav = (await arbiterFromFlags(flags(['--llm', 'anthropic:claude-future-1', '--pricing', pricing, '--llm-timeout-ms', '2000']), {
      ANTHROPIC_API_KEY: 'fake-key-cli-0000000000',
      ANTHROPIC_BASE_URL: server.url,
    }))!;
    const a = await nav(arbiterInput());
    expect(a.proposal?.candidate_id).toBe('escalate');
    expect(a.cost_usd).toBeCloseTo((1000 * 2 + 100 * 8) / 1e6, 12);
    expect(server.requests[0]!.model).toBe('claude-future-1');
  });

  it('bad flags are one clear error naming the flag', async () => {
    await expect(arbiterFromFlags(flags(['--llm', `scripted:${scriptFile}`, '--budget-usd', 'lots']))).rejects.toThrow(/--budget-usd must be a number > 0/);
    await expect(arbiterFromFlags(flags(['--llm', 'gpt4']))).rejects.toThrow(/expected anthropic\[:MODEL\]/);
    await expect(arbiterFromFlags(flags(['--llm', 'anthropic']), {})).rejects.toThrow(/ANTHROPIC_API_KEY is not set/);
    const badPricing = path.join(dir, 'bad.json');
    writeFileSync(badPricing, JSON.stringify({ models: [{ model_name: 'x', input_per_million: -1 }] }));
    await expect(arbiterFromFlags(flags(['--llm', `scripted:${scriptFile}`, '--pricing', badPricing]))).rejects.toThrow(/output_per_million/);
    expect(await arbiterFromFlags(flags([]))).toBeUndefined();
    await expect(arbiterFromFlags(flags(['--persona', 'dijkstra']))).rejects.toThrow(/dijkstra/);
  });
});
