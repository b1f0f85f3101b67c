// Attack class: terminal escape sequences through the ledger. Run ids, signatures, resolution reasons and names are
// free text recorded from requests and people; printed raw they drive the reader's terminal (OSC 0 sets the title,
// OSC 8 hides a link's target, CSI 2J clears the screen, C1 CSI does the same in one byte, a bare CR or BS
// overwrites what was printed, a bidi override reorders it). Every CLI text output must show them escaped, and
// JSON output must stay JSON that parses back to the same values. Driven through the real binary.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport, RunSummary } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { ledgerKernel, sampleFlows, tmpDir } from '../ledger/helpers.js';
import { runCli } from '../support/cli.js';
import { CHARTERS } from '../support/kernel-fixtures.js';

/** Every kind of sequence at once. */
const HOSTILE = '\u001b]0;pwned\u0007r\u001b[2J\u001b[31mred\r\u0008\u009b2J\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\\u202egnp.exe';
// Run ids refuse C0 and C1 controls at input (route-request.ts) but may hold bidirectional marks: the ids here carry
// those; the full sequence rides in the signature, the resolution's words and the ids named on the command line.
const HOSTILE_ID = 'id\u202egnp.exe\u2066x';
/** What must never reach a terminal raw: C0 controls but LF and TAB, DEL, C1 controls, bidi overrides. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const t = tmpDir();
let run: string;
let other: string;
let escalation: string;
// The escalated step of `run`: each flow of the simulated sequence is a run of its own, so audit --why asks about a
// step of the run's own flow.
let escalatedStep: string;

beforeAll(async () => {
  const { kernel } = ledgerKernel(t.file, await sampleFlows());
  await simulate(kernel, HARSH_SCENARIO, { runPrefix: HOSTILE_ID });
  // A failure signature of the runner's choosing, seen twice at a step.
  for (const current of [1, 2]) {
    await kernel.route({ run_id: `${HOSTILE_ID}-sig`, flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', iteration: { current }, forensics: { failure_signature: `${HOSTILE}sig` } });
  }
  await kernel.close();
  const runs = runCli(['runs', '--json', '--ledger', t.file]).stdout.trim().split('\n').map((l) => JSON.parse(l) as RunSummary);
  const withEscalation = runs.find((r) => r.open_escalations > 0)!;
  run = withEscalation.run_id;
  other = runs.find((r) => r.run_id !== run && r.run_id.startsWith(HOSTILE_ID) && !r.run_id.endsWith('-sig'))!.run_id;
  expect(run.startsWith(HOSTILE_ID)).toBe(true);
  const audit = JSON.parse(runCli(['audit', run, '--json', '--ledger', t.file]).stdout) as AuditReport;
  const open = audit.escalations.find((e) => !e.resolution)!;
  escalation = open.escalation_id;
  escalatedStep = open.step;
}, 120_000);
afterAll(() => t.cleanup());

const cli = (...args: string[]) => runCli([...args, '--ledger', t.file]);

function expectSafe(out: { stdout: string; stderr: string }, what: string): void {
  expect(RAW.test(out.stdout), `${what}: stdout holds a raw control character: ${JSON.stringify(out.stdout.slice(0, 400))}`).toBe(false);
  expect(RAW.test(out.stderr), `${what}: stderr holds a raw control character: ${JSON.stringify(out.stderr.slice(0, 400))}`).toBe(false);
}

describe('hostile ledger text printed by the CLI', () => {
  it('runs, audit, audit --why, replay: escaped, and still readable (the escapes are visible)', () => {
    for (const args of [['runs'], ['audit', run], ['audit', run, '--why', escalatedStep], ['audit', `${HOSTILE_ID}-sig`], ['replay', run, '--flows', CHARTERS], ['replay', '--all', '--flows', CHARTERS]]) {
      const out = cli(...args);
      expect(out.code, `${args[0]}: ${out.stderr}`).toBeLessThanOrEqual(1);
      expectSafe(out, args.join(' '));
    }
    const audit = cli('audit', run);
    expect(audit.stdout).toContain('id\\u202egnp.exe\\u2066x');
    expect(cli('audit', `${HOSTILE_ID}-sig`).stdout).toContain('\\x1b[31mred\\r\\b');
  });

  it('resolve with a hostile --by and --reason, then audit shows them escaped', () => {
    const out = cli('resolve', escalation, '--decision', 'TERMINATE', '--by', `${HOSTILE}by`, '--reason', `${HOSTILE}\nBAD run forged: line`, '--flows', CHARTERS);
    expect(out.code, out.stderr).toBe(0);
    expectSafe(out, 'resolve');
    const audit = cli('audit', run);
    expectSafe(audit, 'audit after resolve');
    // The reason's line break is shown, not obeyed: no printed line starts with the forged text.
    expect(audit.stdout.split('\n').some((l) => l.startsWith('BAD run forged'))).toBe(false);
  });

  it('verify prints issues naming a hostile run escaped', () => {
    const db = new Database(t.file);
    db.prepare('UPDATE runs SET cost_usd = cost_usd + 1 WHERE run_id = ?').run(run);
    db.close();
    const out = cli('verify');
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/BAD run id\\u202egnp\.exe\\u2066x/);
    expectSafe(out, 'verify');
  });

  it('archive, verify --archive and restore name hostile runs escaped', () => {
    const to = path.join(t.dir, 'bundles');
    const archived = cli('archive', other, '--to', to, '--include-active');
    expect(archived.code, archived.stderr).toBe(0);
    expectSafe(archived, 'archive');
    expectSafe(cli('verify', '--archive', to), 'verify --archive');
    const bundle = readdirSync(to).find((f) => f.endsWith('.gz'))!;
    const restored = cli('restore', path.join(to, bundle));
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('restored run id\\u202egnp.exe\\u2066x');
    expectSafe(restored, 'restore');
  });

  it('errors that quote a hostile id are escaped too (text on stderr, JSON on stdout)', () => {
    const text = cli('audit', `${HOSTILE}-missing`);
    expect(text.code).toBe(2);
    expectSafe(text, 'audit of an unknown run');
    const json = cli('audit', `${HOSTILE}-missing`, '--json');
    expectSafe(json, 'audit --json of an unknown run');
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'UNKNOWN_RUN' });
  });

  it('JSON output stays JSON, parsing back to the very same values', () => {
    for (const args of [['runs', '--json'], ['audit', run, '--json'], ['verify', '--json']]) {
      const out = cli(...args);
      expectSafe(out, args.join(' '));
      const values = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown);
      expect(JSON.stringify(values)).toContain(JSON.stringify(HOSTILE_ID).slice(1, -1));
    }
    const runs = cli('runs', '--json').stdout.trim().split('\n').map((l) => (JSON.parse(l) as RunSummary).run_id);
    expect(runs).toContain(run);
  });
});
