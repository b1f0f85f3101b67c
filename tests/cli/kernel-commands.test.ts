import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { coProcess, runCli, runCliHere } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const line = (o: object) => JSON.stringify(o);
const step = (step_completed: string, status: string, extra: object = {}) => line({ run_id: 'cli-1', flow: 'build', step_completed, status, ...extra });

describe('navkernel route', () => {
  it('prints one decision per JSONL line; pretty-printed documents only with --multiline', async () => {
    const pretty = JSON.stringify({ run_id: 'cli-1', flow: 'build', step_completed: 'build-step-2', status: 'UNVERIFIED' }, null, 2);
    const r = runCli(['route', '-q', '--flows', 'charters', '--no-ledger', '--multiline'], `${step('build-step-1', 'VERIFIED')}\n\n${pretty}\n`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const decisions = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(decisions.map((d) => `${d.decision}:${d.next_step_id}`)).toEqual(['CONTINUE:build-step-2', 'LOOP:build-step-1']);
    // Without the flag each line of a pretty-printed document is its own (bad) line, each answered.
    const strict = runCli(['route', '--no-ledger'], `${pretty}\n`);
    expect(strict.stdout.trim().split('\n')).toHaveLength(pretty.split('\n').length);
    expect(strict.code).toBe(1);
  });

  it('answers each line before the next is written (co-process), echoing run_id and request_id', async () => {
    const co = coProcess(['route', '--flows', 'charters', '--no-ledger']);
    const first = JSON.parse(await co.ask(step('build-step-3', 'UNVERIFIED', { request_id: 'q-1' })));
    expect(first).toMatchObject({ decision: 'LOOP', iteration: 1, run_id: 'cli-1', request_id: 'q-1' });
    const bad = JSON.parse(await co.ask('{"run_id": "cli-1", "flow": '));
    // Even a truncated line echoes the ids it still shows.
    expect(bad).toEqual({ error: { code: 'INVALID_JSON', message: 'line 2: not valid JSON: Unexpected end of JSON input', line: 2 }, run_id: 'cli-1' });
    const second = JSON.parse(await co.ask(step('build-step-3', 'UNVERIFIED')));
    expect(second).toMatchObject({ decision: 'LOOP', iteration: 2, seq: 2 });
    expect(await co.close()).toBe(1);
  });

  it('on SIGTERM answers what it read, closes the ledger and exits 143; verify passes afterwards', async () => {
    const dir = tempDir('nk-term-');
    const ledger = path.join(dir, 'ledger.sqlite');
    const co = coProcess(['route', '--flows', 'charters', '--ledger', ledger]);
    expect(JSON.parse(await co.ask(step('build-step-3', 'UNVERIFIED')))).toMatchObject({ decision: 'LOOP', seq: 1 });
    const code = await co.terminate();
    expect(code).toBe(143);
    const v = await runCliHere(['verify', '--ledger', ledger]);
    expect(v.code).toBe(0);
  });

  it('answers a bad line with an error line naming its line, path and code, and keeps serving; exit 1 at the end', async () => {
    // The refused line 2 is not routed: the run is still at build-step-2, which line 3 reports.
    const r = runCli(['route', '-q', '--no-ledger'], [step('build-step-1', 'VERIFIED'), step('build-step-2', 'VERIFIED', { iteration: { current: 0 }, request_id: 'q-2' }), step('build-step-2', 'VERIFIED')].join('\n'));
    expect(r.code).toBe(1);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(answers).toHaveLength(3);
    expect(answers[1]).toEqual({ error: { code: 'INVALID_REQUEST', message: '$.iteration.current: expected a number >= 1', path: ['iteration', 'current'], line: 2 }, request_id: 'q-2', run_id: 'cli-1' });
    expect(answers[2]).toMatchObject({ decision: 'CONTINUE', run_id: 'cli-1' });
    expect(r.stderr.trim()).toBe('navkernel route: line 2: $.iteration.current: expected a number >= 1');
  });

  it('--fail-fast stops at the first bad line (exit 2); earlier lines stay routed', async () => {
    const r = runCli(['route', '--no-ledger', '--fail-fast'], [step('build-step-1', 'VERIFIED'), step('build-step-2', 'VERIFIED', { iteration: { current: 0 } }), step('build-step-3', 'VERIFIED')].join('\n'));
    expect(r.code).toBe(2);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(answers.map((a) => a.decision ?? a.error.code)).toEqual(['CONTINUE', 'INVALID_REQUEST']);
  });

  it('never glues a truncated line onto the next one', async () => {
    const r = runCli(['route', '--no-ledger'], `${step('build-step-1', 'VERIFIED')}\n{"run_id": "cli-1",\n  "flow": "build"}\n${step('build-step-2', 'VERIFIED')}`);
    expect(r.code).toBe(1);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(answers.map((a) => a.decision ?? a.error.code)).toEqual(['CONTINUE', 'INVALID_JSON', 'INVALID_JSON', 'CONTINUE']);
    expect(answers[1].error.line).toBe(2);
    const half = runCli(['route', '--no-ledger', '--multiline'], `${step('build-step-1', 'VERIFIED')}\n{"run_id": "cli-1",\n  "flow": "build"`);
    expect(half.stdout.trim().split('\n').map((l) => JSON.parse(l).decision ?? JSON.parse(l).error.code)).toEqual(['CONTINUE', 'INVALID_JSON']);
    expect(half.stderr).toMatch(/line 2: the input ended in the middle of a JSON document/);
  });

  it('reports an unknown flow directory clearly', async () => {
    const r = runCli(['route', '--no-ledger', '--flows', 'no-such-dir'], step('build-step-1', 'VERIFIED'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no-such-dir.*no such file or folder/);
  });
});

describe('navkernel validate', () => {
  it('accepts the sample charters and valid requests', async () => {
    const dir = tempDir('nk-val-');
    writeFileSync(path.join(dir, 'req.json'), step('build-step-1', 'VERIFIED'));
    writeFileSync(path.join(dir, 'reqs.jsonl'), `${step('build-step-2', 'b')}\n${step('build-review', 'APPROVED')}\n`);
    const r = await runCliHere(['validate', 'charters', path.join(dir, 'req.json'), path.join(dir, 'reqs.jsonl')]);
    expect(r.stdout).toBe('ok: 7 flows, 3 requests\n');
    expect(r.code).toBe(0);
  });

  it('checks a request exactly as route does: a step that is not in the flow is a problem in both', async () => {
    const dir = tempDir('nk-val-');
    const req = step('no-such-step', 'VERIFIED');
    writeFileSync(path.join(dir, 'req.json'), req);
    const v = (await runCliHere(['validate', path.join(dir, 'req.json')])); // flows from --flows' default, ./charters
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(/req\.json: \$\.step_completed: expected a step of flow build \(build-step-1, [^)]*\), got "no-such-step"/);
    const r = runCli(['route', '--no-ledger'], req);
    expect(r.stderr).toMatch(/\$\.step_completed: expected a step of flow build \(build-step-1, [^)]*\), got "no-such-step"/);
    expect((await runCliHere(['validate', path.join(dir, 'req.json'), '--no-flows'])).stdout).toMatch(/^ok: 1 request \(against the schema only/);
  });

  it('lists every problem of bad flow and request files', async () => {
    const dir = tempDir('nk-val-');
    writeFileSync(path.join(dir, 'flow.yaml'), 'flow: f\ncharter: { goal: g, key_question: q }\nsteps:\n  - { id: a, agent: x, next: b }\n');
    writeFileSync(path.join(dir, 'reqs.jsonl'), `${step('a', 'b')}\n{"run_id": 1}\n`);
    const r = await runCliHere(['validate', path.join(dir, 'flow.yaml'), path.join(dir, 'reqs.jsonl')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/flow\.yaml: \$\.steps\[0\]\.next: next step "b" does not exist/);
    expect(r.stderr).toMatch(/flow\.yaml: \$\.steps: flow f has no terminal step/);
    expect(r.stderr).toMatch(/reqs\.jsonl: line 2: \$\.run_id: expected string/);
    expect(r.stderr).toMatch(/reqs\.jsonl: line 2: \$\.flow: is required/);
  });
});

describe('navkernel demo and help', () => {
  it('routes a few hundred simulated steps and summarises by tier', async () => {
    const ledger = path.join(tempDir('nk-demo-'), 'ledger.sqlite');
    const r = await runCliHere(['demo', '--json', '--ledger', ledger]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.by_tier[3]).toBeGreaterThan(0); // the scripted arbiter (no key, no network)
    expect(s.llm_cost_usd).toBeGreaterThan(0); // its calls are priced as Claude Haiku
    expect((s.by_tier[1] + s.by_tier[2]) / s.routes).toBeGreaterThan(0.9);
    const runs = await runCliHere(['runs', '--ledger', ledger, '--json']);
    expect(runs.code).toBe(0);
    const listed = runs.stdout.trim().split('\n').map((l) => JSON.parse(l) as { run_id: string; cost_usd: number });
    expect(listed.map((l) => l.run_id).sort()).toEqual([...s.run_ids].sort());
    expect(s.llm_cost_usd).toBeCloseTo(listed.reduce((a, l) => a + l.cost_usd, 0), 9);
    expect(s).toMatchObject({ ledger, runs_folder: path.join(path.dirname(ledger), 'runs') });
    expect(s.routes).toBeGreaterThan(150);
    expect(s.by_tier[1] + s.by_tier[2] + s.by_tier[3] + s.by_tier[4] + s.by_tier[5]).toBe(s.routes);
    expect(s.by_decision.DETOUR).toBeGreaterThan(0);
    expect(s.by_decision.INJECT_FLOW).toBe(1);
    expect(s.by_decision.LOOP).toBeGreaterThan(0);
  });

  it('simulates runs of flows of your own (--flows), starting from the flows nothing else injects', async () => {
    const ledger = path.join(tempDir('nk-demo-custom-'), 'ledger.sqlite');
    const r = await runCliHere(['demo', '--json', '--ledger', ledger, '--flows', 'examples/custom-flow']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.run_ids).toHaveLength(6);
    expect(s.routes).toBeGreaterThan(6);
    const audit = JSON.parse((await runCliHere(['audit', s.run_ids[0], '--ledger', ledger, '--json'])).stdout);
    expect(audit.run.flows).toEqual(['release']);
    expect(audit.run.last_decision).toBe('TERMINATE');
  });

  it('keeps its live table aligned, inject-flow targets included', async () => {
    const r = await runCliHere(['demo', '--no-ledger', '--run-prefix', 'aligned'], { NO_COLOR: '1', FORCE_COLOR: '0' });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.replace(/\x1b\[[0-9;]*m/g, '').split('\n').filter((l) => /^\s*\d+ aligned-run-/.test(l));
    expect(rows.some((l) => l.includes('INJECT_FLOW flow rebase'))).toBe(true);
    expect(new Set(rows.map((l) => [...l].join('').indexOf(' tier ')))).toHaveProperty('size', 1);
  });

  it('has --help on every command', async () => {
    for (const cmd of ['route', 'flows validate', 'demo', 'runs replay', 'ledger verify']) {
      const r = await runCliHere([...cmd.split(' '), '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`Usage: navkernel ${cmd}`));
    }
  });
});
