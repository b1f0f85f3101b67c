// Every example in examples/ runs as its README says (the Python runner over the co-process and over HTTP is run
// by tests/service/python.test.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';

const NAVKERNEL = `${process.execPath} ${BIN}`;
const run = (cmd: string, args: string[], timeout = 120_000) => {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout, env: { ...process.env, NAVKERNEL } });
  return { code: r.status, stdout: r.stdout, out: `${r.stdout}${r.stderr}` };
};

describe('examples', () => {
  it('embed-kernel: a TypeScript runner compiles against the package exports and routes a build run into a ledger', () => {
    const tsc = run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'examples/tsconfig.json']);
    expect(tsc.out).toBe('');
    const ledger = path.join(mkdtempSync(path.join(tmpdir(), 'nk-ex-')), 'ledger.sqlite');
    const r = run(process.execPath, ['dist-examples/embed-kernel/runner.js', ledger]);
    expect(r.code, r.out).toBe(0);
    expect(r.stdout).toMatch(/build-step-3\s+→ LOOP\s+build-step-3 \(tier 2 microloop\)/);
    expect(r.stdout).toContain(`run example-run-1: 7 decisions recorded in ${ledger}`);
  });

  it('custom-flow: a microloop, a detour and a branch routed from a shell', () => {
    const r = run('bash', ['examples/custom-flow/route.sh']);
    expect(r.code, r.out).toBe(0);
    const moves = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { decision: string; next_step_id: string | null; rule: string });
    expect(moves.map((d) => `${d.decision} ${d.next_step_id ?? '-'} ${d.rule}`)).toEqual([
      'CONTINUE check success',
      'LOOP check microloop',
      'DETOUR fix-lint signature_detour',
      'CONTINUE check utility_return',
      'CONTINUE review loop_exit',
      'CONTINUE package branch',
      'CONTINUE check success',
      'CONTINUE review loop_exit',
      'CONTINUE publish branch',
      'TERMINATE - terminal_step',
    ]);
  });

  it('first-flow: a flow of your own driven from Python over the co-process and serve, the mistakes a runner makes, an open concern at the cap, audit', () => {
    const r = run('python3', ['examples/first-flow/runner.py'], 240_000);
    expect(r.code, r.out).toBe(0);
    expect(r.stdout).toMatch(/^implement\s+FAILED\s+-> DETOUR\s+fix-lint\s+signature_detour\s+\| DETOUR fix-lint signature_detour$/m);
    expect(r.stdout).toMatch(/^review\s+BOUNCE\s+-> CONTINUE\s+implement\s+branch/m);
    expect(r.stdout).toContain('a misspelt step: INVALID_REQUEST | INVALID_REQUEST: $.step_completed: expected a step of flow fixbug (reproduce, implement, review, fix-lint, done), got "implment"; did you mean "implement"?');
    expect(r.stdout).toContain('bytes that are not UTF-8: INVALID_JSON | INVALID_JSON; the co-process still echoes run_id bad-1');
    expect(r.stdout).toContain('implement FAILED (iteration 3) -> ESCALATE iteration_cap_open_concern');
    expect(r.stdout.trim().split('\n').at(-1)).toBe('first-flow: every check held');
  });

  it('replay-ci: recorded runs replay identically, then an edited flow fails the build with each divergence', () => {
    const r = run('bash', ['examples/replay-ci/replay-ci.sh'], 240_000);
    expect(r.code, r.out).toBe(1);
    expect(r.stdout).toMatch(/identical: every decision reproduced/);
    expect(r.stdout).toMatch(/^DIVERGED seq \d+ /m);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('the flow change alters recorded decisions: failing the build');
  });
});
