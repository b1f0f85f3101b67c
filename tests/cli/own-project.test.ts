// A flow of one's own, from one's own folder (issue 37): where route and serve write (one start-up line), one rule
// for run folders beside a ledger in the CLI and the library, replay without --flows says what is missing, resolve
// and audit --why suggest, and the words of a clean run (0 off-road) and of the demo.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKernel, loadFlows } from '../../src/kernel/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { runCli, runCliHere } from '../support/cli.js';
import { CHARTERS, ROOT } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

const OWN_FLOWS = path.join(ROOT, 'examples', 'first-flow');
const line = (o: object) => JSON.stringify(o) + '\n';
const fixbug = (run_id: string, step: string, status: string, extra: object = {}) => line({ run_id, flow: 'fixbug', step_completed: step, status, ...extra });
const LINT = { forensics: { lint: { errors: 3, output: 'eslint: 3 errors (no-unused-vars)' } } };

describe('route and serve say where they write', () => {
  it('route prints one stderr line naming the ledger (absolute), its run folders and the flows; -q leaves it out', () => {
    const dir = tempDir('nk-where-');
    const ledger = path.join(dir, 'x', 'ledger.sqlite');
    const r = runCli(['route', '--flows', OWN_FLOWS, '--ledger', ledger], fixbug('w-1', 'reproduce', 'REPRODUCED'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      `navkernel route: ledger ${ledger} (run folders in ${path.join(dir, 'x', 'runs')}); flows from ${OWN_FLOWS}: 1 flow(s) (fixbug)`,
    ]);
    const quiet = runCli(['route', '-q', '--flows', OWN_FLOWS, '--ledger', ledger], fixbug('w-2', 'reproduce', 'REPRODUCED'));
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    const none = runCli(['route', '--flows', OWN_FLOWS, '--no-ledger'], fixbug('w-3', 'reproduce', 'REPRODUCED'));
    expect(none.stderr).toContain('navkernel route: no ledger (--no-ledger: nothing recorded); flows from');
  });
});

describe('run folders beside a ledger: one rule for the CLI and the library', () => {
  it('the CLI with --ledger X/ledger.sqlite puts run folders in X/runs/', () => {
    const dir = tempDir('nk-runs-cli-');
    const ledger = path.join(dir, 'ledger.sqlite');
    const input = fixbug('r-cli', 'reproduce', 'REPRODUCED') + fixbug('r-cli', 'implement', 'FAILED', LINT);
    expect(runCli(['route', '-q', '--flows', OWN_FLOWS, '--ledger', ledger], input).code).toBe(0);
    expect(existsSync(path.join(dir, 'runs', 'r-cli', 'fixbug', 'routing', 'decisions.jsonl'))).toBe(true);
    expect(existsSync(path.join(dir, 'r-cli'))).toBe(false);
  });

  it("the library's openLedger('X/ledger.sqlite') puts them in X/runs/ too, and the CLI reads them there", async () => {
    const dir = tempDir('nk-runs-lib-');
    const file = path.join(dir, 'ledger.sqlite');
    const ledger = openLedger(file);
    expect(ledger.runBase).toBe(path.join(dir, 'runs'));
    const kernel = createKernel({ flows: await loadFlows(OWN_FLOWS), store: ledger });
    await kernel.route({ run_id: 'r-lib', flow: 'fixbug', step_completed: 'reproduce', status: 'REPRODUCED' });
    await kernel.route({ run_id: 'r-lib', flow: 'fixbug', step_completed: 'implement', status: 'FAILED', ...LINT });
    await kernel.close();
    expect(existsSync(path.join(dir, 'runs', 'r-lib', 'fixbug', 'routing', 'decisions.jsonl'))).toBe(true);
    expect(existsSync(path.join(dir, 'r-lib'))).toBe(false);
    // verify reads the same folders: nothing to repair.
    const v = await runCliHere(['verify', '--ledger', file, '--json']);
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });

  it('the default runs/ledger.sqlite keeps its run folders in runs/ itself', () => {
    expect(openLedger(':memory:').runBase).not.toContain(`${path.sep}runs${path.sep}runs`);
    const dir = tempDir('nk-runs-default-');
    mkdirSync(path.join(dir, 'runs'));
    const l = openLedger(path.join(dir, 'runs', 'ledger.sqlite'));
    expect(l.runBase).toBe(path.join(dir, 'runs'));
    return l.close();
  });

  it("an old library layout (run folders straight in the ledger's folder) is still read there", () => {
    const dir = tempDir('nk-runs-old-');
    writeFileSync(path.join(dir, '.decisions-jsonl.lock'), '');
    const l = openLedger(path.join(dir, 'ledger.sqlite'));
    expect(l.runBase).toBe(dir);
    return l.close();
  });
});

describe('replay of a flow of your own without --flows', () => {
  it('says the run\'s flow is not loaded and to pass --flows DIR (FLOW_NOT_LOADED), instead of false divergences', async () => {
    const dir = tempDir('nk-replay-own-');
    const ledger = path.join(dir, 'ledger.sqlite');
    const input = fixbug('own-1', 'reproduce', 'REPRODUCED') + fixbug('own-1', 'implement', 'VERIFIED');
    expect(runCli(['route', '-q', '--flows', OWN_FLOWS, '--ledger', ledger], input).code).toBe(0);
    const r = await runCliHere(['replay', 'own-1', '--ledger', ledger, '--flows', CHARTERS]);
    expect(r.stdout).not.toContain('DIVERGED');
    expect(r.stderr).toContain('run "own-1" was routed with flow "fixbug", which is not among the loaded flows');
    expect(r.stderr).toContain('pass --flows DIR');
    expect(r.code).toBe(2);
    const json = await runCliHere(['replay', 'own-1', '--ledger', ledger, '--flows', CHARTERS, '--json']);
    expect(JSON.parse(json.stdout.trim().split('\n').at(-1)!)).toMatchObject({ error: { code: 'FLOW_NOT_LOADED' } });
    const ok = await runCliHere(['replay', 'own-1', '--ledger', ledger, '--flows', OWN_FLOWS]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('identical: every decision reproduced');
  });
});

describe('suggestions and words', () => {
  it('resolve --next with a misspelt step suggests the nearest one', async () => {
    const dir = tempDir('nk-resolve-');
    const ledger = path.join(dir, 'ledger.sqlite');
    // NOT_REPRODUCED is a failure with no branch: the route escalates.
    const r = runCli(['route', '-q', '--flows', OWN_FLOWS, '--ledger', ledger], fixbug('esc-1', 'reproduce', 'NOT_REPRODUCED'));
    const d = JSON.parse(r.stdout) as { decision: string; escalation_id: string };
    expect(d.decision).toBe('ESCALATE');
    const bad = await runCliHere(['resolve', d.escalation_id, '--decision', 'CONTINUE', '--next', 'implment', '--by', 'ana', '--reason', 'r', '--flows', OWN_FLOWS, '--ledger', ledger]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('step implment is not in flow fixbug; did you mean "implement"?');
  });

  it('a clean run shows 0 off-road: TERMINATE at its terminal step is the normal end', async () => {
    const dir = tempDir('nk-clean-');
    const ledger = path.join(dir, 'ledger.sqlite');
    const input = [
      fixbug('clean-1', 'reproduce', 'REPRODUCED'),
      fixbug('clean-1', 'implement', 'VERIFIED'),
      fixbug('clean-1', 'review', 'APPROVED'),
      fixbug('clean-1', 'done', 'DONE'),
    ].join('');
    const r = runCli(['route', '-q', '--flows', OWN_FLOWS, '--ledger', ledger], input);
    expect(r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { decision: string }).decision).at(-1)).toBe('TERMINATE');
    const runs = (await runCliHere(['runs', '--ledger', ledger, '--json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { run_id: string; offroad: number; status: string });
    expect(runs.find((x) => x.run_id === 'clean-1')).toMatchObject({ offroad: 0, status: 'terminated' });
    const audit = JSON.parse((await runCliHere(['audit', 'clean-1', '--ledger', ledger, '--json'])).stdout) as { offroad: unknown[] };
    expect(audit.offroad).toEqual([]);
    // verify agrees with the stored count.
    expect((await runCliHere(['verify', '--ledger', ledger])).code).toBe(0);
  });

  it('audit --why explains the tags it shows', async () => {
    const dir = tempDir('nk-why-');
    const ledger = path.join(dir, 'ledger.sqlite');
    runCli(['route', '-q', '--flows', OWN_FLOWS, '--ledger', ledger], fixbug('why-1', 'reproduce', 'REPRODUCED') + fixbug('why-1', 'implement', 'VERIFIED'));
    const r = await runCliHere(['audit', 'why-1', '--ledger', ledger, '--flows', OWN_FLOWS, '--why', 'implement']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('[next]');
    expect(r.stdout).toContain('[completed]');
    expect(r.stdout).toContain('([next]: routed to the step; [completed]: the step finished here)');
  });

  it('the demo says its tier-3 model is scripted, calls tier 3 the arbiter, and ends with a command that works in a clone', async () => {
    const dir = tempDir('nk-demo-words-');
    const r = await runCliHere(['demo', '-q', '--ledger', path.join(dir, 'ledger.sqlite')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('tier-3 (LLM)');
    expect(r.stdout).toMatch(/tier 3, the arbiter: a scripted model \(recorded answers, no model called\)[^\n]*\$\d+\.\d{4}/);
    expect(r.stdout).toMatch(/^next: npx navkernel runs audit /m);
    // The command it names works as printed (with the built binary in place of npx).
    const next = /^next: npx navkernel (.*)$/m.exec(r.stdout)![1]!.split(' ');
    expect((await runCliHere(next)).code).toBe(0);
  });
});
