import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { FlightPlan, NavigatorOutput } from '../../src/contracts/index.js';
import { openExplorerStore } from '../../src/ledger/index.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { BIN, runCliHere } from '../support/cli.js';
import { NO_KEYS, finalize, makeRepo, runCli, startCli, tmpDir, update } from './helpers.js';

const TASK = 'fix the discount calculation in the cart total';

let repo: string;
let dir: string;
let server: FakeLlmServer;
beforeAll(async () => {
  repo = makeRepo();
  dir = tmpDir('nk-explore-cli-');
  server = await startFakeLlmServer();
});
afterAll(async () => server.close());

function script(name: string, answers: unknown[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(answers));
  return file;
}
const common = () => ['explore', '--repo', repo, '--goal', TASK, '--no-cache', '--tokens', '4000', '--ledger', path.join(dir, 'ledger.sqlite')];

describe('navkernel explore', () => {
  it('--no-llm writes the context and the plan, prints NavigatorOutput as JSON, exit 0', async () => {
    const out = path.join(dir, 'ctx.md');
    const plan = path.join(dir, 'plan.yaml');
    const r = await runCliHere([...common(), '--no-llm', '-o', out, '-f', plan, '--json'], NO_KEYS);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(NavigatorOutput.safeParse(doc).success).toBe(true);
    expect(doc).toMatchObject({ completion_reason: 'no_llm', total_iterations: 0, total_cost: 0, exit_code: 0 });
    const md = readFileSync(out, 'utf8');
    expect(md).toMatch(/^# Repository Context: nk-explorer-repo-/);
    expect(md).toContain(`**Goal**: ${TASK}`);
    expect(md).toContain('applyDiscount');
    const parsed = FlightPlan.safeParse(YAML.parse(readFileSync(plan, 'utf8')));
    expect(parsed.success).toBe(true);
    expect(readFileSync(plan, 'utf8')).toContain(`# Goal: ${TASK}`);
  });

  it('exit codes: no model and no key → 2 with a clear message; missing repo → 2 (REPO_NOT_FOUND); bad number → 2', async () => {
    const noKey = await runCliHere(common(), NO_KEYS);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/no model available: set GEMINI_API_KEY .* or ANTHROPIC_API_KEY, pass --llm .*--no-llm/);
    const noRepo = await runCliHere(['explore', '--repo', path.join(dir, 'nope'), '--goal', 'x', '--no-llm', '--ledger', path.join(dir, 'ledger.sqlite')], NO_KEYS);
    expect(noRepo.code).toBe(2);
    expect(noRepo.stderr).toBe(`navkernel: repository not found: ${path.join(dir, 'nope')}\n`);
    const badTokens = await runCliHere([...common(), '--no-llm', '--tokens', 'many'], NO_KEYS);
    expect(badTokens.code).toBe(2);
    expect(badTokens.stderr).toMatch(/--budget-tokens must be a positive integer/);
  });

  it('with --json every error is the JSON error line on stdout (the CLI convention), exit 2', async () => {
    const ledger = ['--ledger', path.join(dir, 'ledger.sqlite')];
    const cases: [string[], string][] = [
      [['explore', '--json', ...ledger], 'USAGE'],
      [['explore', '--repo', path.join(dir, 'nope'), '--goal', 'x', '--json', ...ledger], 'REPO_NOT_FOUND'],
      [['explore', '--cost-limit', 'bad', '--repo', repo, '--goal', 'x', '--no-llm', '--json', ...ledger], 'INVALID_OPTION'],
      [[...common(), '--json'], 'LLM_KEY_MISSING'],
    ];
    for (const [args, code] of cases) {
      const r = await runCliHere(args, NO_KEYS);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({ error: { code, message: expect.any(String) } });
    }
  });

  it('reads the configuration file\'s "llm" and "budget_usd" (flags win)', () => {
    const cwd = tmpDir('nk-explore-config-');
    const file = script('config-s.json', [finalize()]);
    writeFileSync(path.join(cwd, 'navkernel.config.json'), JSON.stringify({ llm: `scripted:${file}`, budget_usd: 0.5 }));
    const ledger = path.join(cwd, 'ledger.sqlite');
    const run = (args: string[]) => spawnSync(process.execPath, [BIN, 'explore', '--repo', repo, '--goal', TASK, '--no-cache', '--ledger', ledger, '--json', ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...NO_KEYS } });
    const fromFile = run(['--session', 'cfg-1']);
    expect(fromFile.status, fromFile.stderr + fromFile.stdout).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ completion_reason: 'agent_done' });
    const flags = run(['--session', 'cfg-2', '--cost-limit', '0.25', '--no-llm']);
    expect(flags.status, flags.stderr).toBe(0);
    expect(JSON.parse(flags.stdout)).toMatchObject({ completion_reason: 'no_llm' });
    const st = openExplorerStore(ledger, { create: false });
    try {
      const one = st.load('cfg-1')!;
      expect(one.config.model).toBe(`scripted:${file}`);
      expect(one.state.budget_config.max_spend_usd).toBe(0.5);
      expect(st.load('cfg-2')!.state.budget_config.max_spend_usd).toBe(0.25);
    } finally {
      st.close();
    }
  });

  it('a scripted session runs to finalize; the context goes to stdout', async () => {
    const file = script('s1.json', [update({ verbosity: [{ pattern: 'src/cart/**', level: 4 }] }), finalize()]);
    const r = await runCliHere([...common(), '--model', `scripted:${file}`, '--session', 'cli-s1'], NO_KEYS);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('export function applyDiscount');
    expect(r.stderr).toMatch(/explore: agent_done after 2 step\(s\)/);
    const st = openExplorerStore(path.join(dir, 'ledger.sqlite'), { create: false });
    try {
      expect(st.load('cli-s1')!.state.decision_log).toHaveLength(2);
    } finally {
      st.close();
    }
  });

  it('--interactive: the TurnReport is shown, answers on stdin change the token budget, continue, then abort (exit 5, no output)', async () => {
    const file = script('s2.json', [update({ verbosity: [{ pattern: 'tests/**', level: 0 }] }, 'tests are noise'), update({ verbosity: [{ pattern: 'docs/**', level: 0 }] }, 'docs too'), finalize()]);
    const out = path.join(dir, 'cancelled.md');
    const c = startCli([...common(), '--model', `scripted:${file}`, '--interactive', '-o', out, '--session', 'cli-s2']);
    await c.stderrHas('Continue exploration?', 1);
    expect(c.stderr).toContain('TURN REPORT - Step 1');
    expect(c.stderr).toContain('Reason: tests are noise');
    c.write('tokens 300\n');
    await c.stderrHas('Continue exploration?', 2);
    expect(c.stderr).toMatch(/Size: +\d+ tokens \(\d+% of 300\)/);
    c.write('y\n');
    await c.stderrHas('Continue exploration?', 3);
    expect(c.stderr).toContain('TURN REPORT - Step 2');
    c.write('q\n');
    expect(await c.done).toBe(5);
    expect(existsSync(out)).toBe(false);
    const st = openExplorerStore(path.join(dir, 'ledger.sqlite'), { create: false });
    try {
      const s = st.load('cli-s2')!.state;
      expect(s).toMatchObject({ completion_reason: 'user_cancelled', execution_mode: 'interactive' });
      expect(s.flight_plan.budget).toBe(300);
      expect(s.decision_log).toHaveLength(2);
    } finally {
      st.close();
    }
  });

  it('a SIGKILL during a model call loses only that step; --resume carries on to the end', async () => {
    const ledger = path.join(dir, 'crash.sqlite');
    const env = { ANTHROPIC_API_KEY: 'fake-key-CRASH-0123456789', ANTHROPIC_BASE_URL: server.url };
    const args = ['explore', '--repo', repo, '--goal', TASK, '--no-cache', '--tokens', '4000', '--ledger', ledger, '--model', 'anthropic:claude-haiku-4-5', '--timeout-ms', '600000'];
    let third!: () => void;
    const thirdArrived = new Promise<void>((resolve) => (third = resolve));
    server.enqueue(
      { kind: 'tool_calls', calls: [{ name: 'update_flight_plan', input: { config_diff: { verbosity: [{ pattern: 'tests/**', level: 0 }] }, reasoning: 'tests are noise' } }] },
      { kind: 'tool_calls', calls: [{ name: 'update_flight_plan', input: { config_diff: { verbosity: [{ pattern: 'src/cart/**', level: 4 }] }, reasoning: 'zoom on the cart' } }] },
      () => {
        third();
        return { kind: 'hang' };
      },
    );
    const c = startCli([...args, '--session', 'crash-1'], env);
    const exited = await Promise.race([thirdArrived.then(() => false), c.done.then(() => true)]);
    expect(exited, `the child ended before its third call:\n${c.stderr}\n${c.stdout}`).toBe(false);
    c.kill();
    expect(await c.done).toBeNull();

    const st = openExplorerStore(ledger, { create: false });
    try {
      const saved = st.load('crash-1')!;
      expect(saved.state.exploration_complete).toBe(false);
      expect(saved.state.decision_log.map((e) => e.reasoning)).toEqual(['tests are noise', 'zoom on the cart']);
      expect(saved.config.model).toBe('anthropic:claude-haiku-4-5');
    } finally {
      st.close();
    }

    server.reset();
    server.enqueue({ kind: 'tool_calls', calls: [{ name: 'finalize_context', input: { reasoning: 'cart at full text, tests hidden' } }] });
    const r = await runCli(['explore', '--resume', 'crash-1', '--ledger', ledger, '--no-cache', '--json'], env);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ session_id: 'crash-1', completion_reason: 'agent_done', total_iterations: 3, reasoning_summary: 'cart at full text, tests hidden' });
    expect(server.requests).toHaveLength(1);
    const body = JSON.stringify(server.requests[0]!.body);
    expect(body).toContain('step_2');
  });
});
