// Every example in examples/ runs as its README says (the Python runner over the co-process and over HTTP is run
// by tests/service/python.test.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

const NAVKERNEL = `${process.execPath} ${BIN}`;
const run = (cmd: string, args: string[], timeout = 120_000) => {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout, env: { ...process.env, NAVKERNEL } });
  return { code: r.status, stdout: r.stdout, out: `${r.stdout}${r.stderr}` };
};

describe('examples', () => {
  it('embed-kernel: a TypeScript runner compiles against the package exports and routes a build run into a ledger', () => {
    const tsc = run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'examples/tsconfig.json']);
    expect(tsc.out).toBe('');
    const ledger = path.join(tempDir('nk-ex-'), 'ledger.sqlite');
    const r = run(process.execPath, ['dist-examples/embed-kernel/runner.js', ledger]);
    expect(r.code, r.out).toBe(0);
    expect(r.stdout).toMatch(/build-step-3\s+→ LOOP\s+build-step-3 \(tier 2 microloop\)/);
    expect(r.stdout).toContain(`run example-run-1: 7 decisions recorded in ${ledger}`);
  });

  it('langgraph: a StateGraph generated from the release flow, routed by the kernel, resumed after an escalation; audit and replay read the run', () => {
    const tsc = run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'examples/tsconfig.json']);
    expect(tsc.out).toBe('');
    const dir = mkdtempSync(path.join(tmpdir(), 'nk-ex-lg-'));
    try {
      const r = run(process.execPath, ['dist-examples/langgraph/release-graph.js', dir]);
      expect(r.code, r.out).toBe(0);
      expect(r.stdout.trim().split('\n')).toEqual([
        'package: VERIFIED',
        'check: FAILED',
        'check: FAILED',
        'fix-lint: DONE',
        'check: PASSED',
        'review: CHANGES',
        'package: FAILED',
        'escalated at package: no tier could decide for package with status FAILED',
        'review: APPROVED',
        'publish: DONE',
        `run release-1 routed by navkernel; ledger ${path.join(dir, 'ledger.sqlite')}`,
      ]);
      const ledger = ['--ledger', path.join(dir, 'ledger.sqlite')];
      const audit = run(process.execPath, [BIN, 'audit', 'release-1', '--json', ...ledger]);
      expect(JSON.parse(audit.stdout)).toMatchObject({ run: { steps: 9, status: 'terminated', open_escalations: 0 } });
      const replay = run(process.execPath, [BIN, 'replay', 'release-1', '--flows', 'examples/custom-flow', ...ledger]);
      expect(replay.code, replay.out).toBe(0);
      expect(replay.stdout).toContain('identical: every decision reproduced');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('mcp: a script drives navkernel mcp over stdio with the MCP SDK client: navigate, route, a tool error, audit', () => {
    const tsc = run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'examples/tsconfig.json']);
    expect(tsc.out).toBe('');
    const dir = mkdtempSync(path.join(tmpdir(), 'nk-ex-mcp-'));
    try {
      const r = run(process.execPath, ['dist-examples/mcp/ask-navkernel.js', path.join(dir, 'ledger.sqlite')]);
      expect(r.code, r.out).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines[0]).toBe('tools: navigate, route, list_runs, audit, why, verify, replay');
      expect(lines[1]).toBe('navigate: PASS');
      expect(lines).toContainEqual(expect.stringMatching(/^ {2}replay-ci\/replay-ci\.sh lines \d+/));
      expect(lines.slice(-4)).toEqual([
        'route package VERIFIED: CONTINUE check (tier 1 success)',
        'route check FAILED: LOOP check (tier 2 microloop)',
        'a bad request is a tool error: INVALID_REQUEST',
        'audit: 2 routes, 1 off-road, active',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('langgraph-python.py compiles, and says what it needs where LangGraph for Python is not installed (PyPI is unreachable here)', () => {
    // compile() without writing a __pycache__ into examples/ (which the package ships).
    expect(run('python3', ['-c', 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")', 'examples/langgraph-python.py']).code).toBe(0);
    const has = run('python3', ['-c', 'import langgraph']);
    if (has.code === 0) return; // installed: nothing to say about its absence
    const r = run('python3', ['examples/langgraph-python.py']);
    expect(r.code).toBe(2);
    expect(r.out).toContain('needs the langgraph package for Python: pip install langgraph');
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
