import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport, Escalation, ReplayReport, RunSummary, VerifyReport, WhyReport } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { resolveEscalation } from '../../src/runs/index.js';
import { runCliHere } from '../support/cli.js';
import { CHARTERS } from '../support/kernel-fixtures.js';
import { ledgerKernel, sampleFlows, tmpDir } from './helpers.js';

const t = tmpDir();
beforeAll(async () => {
  const flows = await sampleFlows();
  const { kernel, ledger } = ledgerKernel(t.file, flows);
  // One flow per work item: each run is harsh-run-N (the simulator routes each flow of a sequence as its own run);
  // a person lets each escalated run go on, except the first escalation outside harsh-run-1 (which replay uses).
  let leftOpen = false;
  await simulate(kernel, { ...HARSH_SCENARIO, sequence: ['build'] }, {
    resolve: async (r) => {
      if (!leftOpen && (await ledger.escalation(r.escalation_id))!.run_id !== 'harsh-run-1') return !(leftOpen = true);
      await resolveEscalation(ledger, flows, { ...r, by: 'ann', reason: 'go on' });
    },
  });
  await kernel.close();
});
afterAll(() => t.cleanup());

const cli = (...args: string[]) => runCliHere([...args, '--ledger', t.file]);

describe('ledger commands', () => {
  it('runs lists every run, as a table and as JSON lines', async () => {
    const table = await cli('runs');
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^RUN\s+FLOW\s+STEPS\s+OFF-ROAD\s+LLM\s+COST \$\s+OPEN ESC\s+NEEDS HUMAN\s+STATUS/);
    const json = await cli('runs', '--json');
    const runs = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as RunSummary);
    expect(runs.map((r) => r.run_id)).toEqual(Array.from({ length: HARSH_SCENARIO.runs }, (_, i) => `harsh-run-${i + 1}`));
  });

  it('audit explains a run and --why a step; the ledger can come from NAVKERNEL_LEDGER', async () => {
    const text = await runCliHere(['audit', 'harsh-run-1'], { NAVKERNEL_LEDGER: t.file });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Decisions by tier and rule:/);
    expect(text.stdout).toMatch(/Off-road decisions \(\d+\):/);
    const report = JSON.parse((await cli('audit', 'harsh-run-1', '--json')).stdout) as AuditReport;
    expect(report.run.run_id).toBe('harsh-run-1');
    const why = JSON.parse((await cli('audit', 'harsh-run-1', '--why', 'build-step-3', '--json')).stdout) as WhyReport;
    expect(why.entries.length).toBeGreaterThan(0);
    expect(why.entries.every((e) => e.step === 'build-step-3' || e.next_step_id === 'build-step-3' || e.return_to === 'build-step-3' || e.detour_target === 'build-step-3')).toBe(true);
  });

  it('audit of an unknown run is one clear error and exit 2 (input error)', async () => {
    const r = await cli('audit', 'no-such-run');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`navkernel: unknown run "no-such-run" in ${t.file}`);
  });

  it('verify exits 0 on an intact ledger and 1 naming the first bad row after an edit', async () => {
    const ok = await cli('verify');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ok: 6 run\(s\)/);
    const copy = tmpDir();
    try {
      cpSync(t.dir, copy.dir, { recursive: true });
      const db = new Database(copy.file);
      db.prepare("UPDATE routes SET request = replace(request, 'UNVERIFIED', 'VERIFIED') WHERE run_id = 'harsh-run-4' AND seq = (SELECT min(seq) FROM routes WHERE run_id = 'harsh-run-4' AND request LIKE '%UNVERIFIED%')").run();
      db.close();
      const bad = await runCliHere(['verify', '--ledger', copy.file]);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toMatch(/^BAD run harsh-run-4 seq \d+: hash_mismatch/m);
      const report = JSON.parse((await runCliHere(['verify', 'harsh-run-4', '--json', '--ledger', copy.file])).stdout) as VerifyReport;
      expect(report.ok).toBe(false);
      expect(report.issues[0]).toMatchObject({ run_id: 'harsh-run-4', kind: 'hash_mismatch' });
    } finally {
      copy.cleanup();
    }
  });

  it('replay exits 0 when identical and 1 with each divergence when the flows changed', async () => {
    const same = await cli('replay', 'harsh-run-1', '--flows', CHARTERS);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/identical: every decision reproduced/);
    const flowsDir = path.join(t.dir, 'edited-charters');
    cpSync(CHARTERS, flowsDir, { recursive: true });
    const build = path.join(flowsDir, 'build.yaml');
    writeFileSync(build, readFileSync(build, 'utf8').replace(/max_iterations: 3/g, 'max_iterations: 1'));
    const changed = await cli('replay', 'harsh-run-1', '--flows', flowsDir);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/^DIVERGED seq \d+ build\//m);
    const report = JSON.parse((await cli('replay', 'harsh-run-1', '--flows', flowsDir, '--json')).stdout) as ReplayReport;
    expect(report.identical).toBe(false);
    expect(report.divergences[0]!.flow).toBe('build');
    // --all: every run of the ledger, the CI check for a flow change.
    const all = await cli('replay', '--all', '--flows', CHARTERS);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(new RegExp(`^${HARSH_SCENARIO.runs} run\\(s\\), \\d+ routes replayed: every decision reproduced$`, 'm'));
    // Worker threads (the default) and this thread alone print the same reports, in run order.
    expect((await cli('replay', '--all', '--flows', CHARTERS, '--threads', '1')).stdout).toBe(all.stdout);
    const allChanged = await cli('replay', '--all', '--flows', flowsDir, '--json');
    expect(allChanged.code).toBe(1);
    const reports = allChanged.stdout.trim().split('\n').map((l) => JSON.parse(l) as ReplayReport);
    expect(reports.length).toBe(HARSH_SCENARIO.runs);
    expect(reports.some((r) => !r.identical)).toBe(true);
    expect((await cli('replay', '--all', '--flows', flowsDir, '--json', '--threads', '1')).stdout).toBe(allChanged.stdout);
    expect((await cli('replay', 'harsh-run-1', '--all')).code).toBe(2);
  });

  it('resolve records a validated resolution once', async () => {
    const open = (await cli('runs', '--json')).stdout.trim().split('\n').map((l) => JSON.parse(l) as RunSummary).find((r) => r.open_escalations > 0)!;
    const audit = JSON.parse((await cli('audit', open.run_id, '--json')).stdout) as AuditReport;
    const esc = audit.escalations.find((e) => e.status === 'open')!;
    const bad = await cli('resolve', esc.escalation_id, '--decision', 'CONTINUE', '--next', 'nowhere', '--by', 'ada', '--reason', 'x', '--flows', CHARTERS);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/step nowhere is not in flow/);
    const ok = await cli('resolve', esc.escalation_id, '--decision', 'TERMINATE', '--by', 'ada', '--reason', 'out of scope', '--flows', CHARTERS, '--json');
    expect(ok.code).toBe(0);
    expect((JSON.parse(ok.stdout) as Escalation).resolution).toMatchObject({ decision: 'TERMINATE', by: 'ada' });
    const again = await cli('resolve', esc.escalation_id, '--decision', 'TERMINATE', '--by', 'bob', '--reason', 'again', '--flows', CHARTERS);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already resolved by ada/);
    expect((await cli('verify')).code).toBe(0);
  });

  it('refuses a file that is not a ledger without touching it', async () => {
    const file = path.join(t.dir, 'notes.txt');
    writeFileSync(file, 'hello\n');
    const r = await runCliHere(['runs', '--ledger', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not a navkernel ledger/);
    expect(readFileSync(file, 'utf8')).toBe('hello\n');
  });
});
