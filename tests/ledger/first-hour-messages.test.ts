// Issue 28 items 8-10: a lone surrogate in free text is repaired (ids still refused), `audit --why` with a
// misspelt step and the sightings behind "seen N times", and what replay's text says about a divergence.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowInput, RouteRequest, WhyReport } from '../../src/contracts/index.js';
import { createKernel, defineFlows } from '../../src/kernel/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { runCliHere } from '../support/cli.js';
import { FIXBUG_FLOW } from '../support/kernel-fixtures.js';

let dir = '';
let file = '';
let FLOWS = '';
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A folder holding the flow (edited by `edit`), for the CLI's --flows. */
function flowsDir(name: string, edit: (f: FlowInput) => FlowInput = (f) => f): string {
  const d = path.join(dir, name);
  mkdirSync(d, { recursive: true });
  writeFileSync(path.join(d, 'fixbug.json'), JSON.stringify(edit(structuredClone(FIXBUG_FLOW))));
  return d;
}

const LINT = { lint: { errors: 3, output: 'eslint: 3 errors' } };
const r = (step: string, status: string, extra: Partial<RouteRequest> = {}): RouteRequest => ({ run_id: 'fb', flow: 'fixbug', step_completed: step, status, ...extra });
// The run of examples/first-flow: a lint failure seen twice detours to fix-lint; the reviewer bounces once.
const RUN: RouteRequest[] = [
  r('reproduce', 'VERIFIED'),
  r('implement', 'FAILED', { forensics: LINT }),
  r('implement', 'FAILED', { forensics: LINT }),
  r('fix-lint', 'DONE'),
  r('implement', 'VERIFIED'),
  r('review', 'BOUNCE'),
  r('implement', 'VERIFIED'),
  r('review', 'APPROVED'),
  r('done', 'DONE'),
];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'nk-fh-messages-'));
  file = path.join(dir, 'ledger.sqlite');
  FLOWS = flowsDir('flows');
  const kernel = createKernel({ flows: defineFlows([FIXBUG_FLOW]), store: openLedger(file) });
  for (const q of RUN) await kernel.route(q);
  await kernel.close();
});

describe('a lone surrogate (28.8)', () => {
  it('in free-text forensics is replaced with U+FFFD and routed with a warning; the caller\'s object is untouched', async () => {
    const kernel = createKernel({ flows: defineFlows([FIXBUG_FLOW]) });
    const forensics = { error_output: 'make: *** [test] Error 1 \udcff', concerns: [{ severity: 'LOW' as const, description: 'odd \ud800 byte' }] };
    const d = await kernel.route({ run_id: 's', flow: 'fixbug', step_completed: 'implement', status: 'FAILED', forensics });
    expect(d.decision).toBe('LOOP');
    expect(d.warnings).toEqual([
      '$.forensics.error_output held a lone surrogate (ill-formed Unicode); it was replaced with U+FFFD',
      '$.forensics.concerns[0].description held a lone surrogate (ill-formed Unicode); it was replaced with U+FFFD',
    ]);
    expect(forensics.error_output.endsWith('\udcff')).toBe(true);
    await kernel.close();
  });

  it('is still refused in ids: run_id (INVALID_REQUEST) and failure_signature (INVALID_FORENSICS); the ledger keeps the repaired text', async () => {
    const kernel = createKernel({ flows: defineFlows([FIXBUG_FLOW]) });
    await expect(kernel.route({ run_id: 'a\ud800', flow: 'fixbug', step_completed: 'implement', status: 'FAILED' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(kernel.route({ run_id: 's2', flow: 'fixbug', step_completed: 'implement', status: 'FAILED', forensics: { failure_signature: 'x\ud800' } })).rejects.toMatchObject({ code: 'INVALID_FORENSICS' });
    await kernel.close();
    const copy = path.join(dir, 'surrogate.sqlite');
    const k = createKernel({ flows: defineFlows([FIXBUG_FLOW]), store: openLedger(copy) });
    await k.route({ run_id: 's3', flow: 'fixbug', step_completed: 'implement', status: 'FAILED', forensics: { error_output: 'x\udcff' } });
    await k.close();
    const ledger = openLedger(copy);
    const [row] = await ledger.routes('s3', 0, 10);
    expect(JSON.parse(row!.request).forensics.error_output).toBe('x\ufffd');
    await ledger.close();
    expect((await runCliHere(['verify', '--ledger', copy])).code).toBe(0);
  });
});

describe('audit --why (28.9)', () => {
  it('a misspelt step: it does not exist in the run\'s flows, with the nearest one (exit 2)', async () => {
    const w = await runCliHere(['audit', 'fb', '--ledger', file, '--flows', FLOWS, '--why', 'implment']);
    expect(w.code).toBe(2);
    expect(w.stderr.trim()).toBe('navkernel: step "implment" does not exist in the flows of run fb; did you mean "implement"? (steps: done, fix-lint, implement, reproduce, review)');
    const json = JSON.parse((await runCliHere(['audit', 'fb', '--ledger', file, '--flows', FLOWS, '--why', 'implment', '--json'])).stdout) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('UNKNOWN_STEP');
    expect(json.error.message).toContain('did you mean "implement"?');
  });

  it('a step of the flow no decision touched is not called misspelt', async () => {
    // fix-lint is touched; a flow step never reached in this run is reported as untouched, not unknown.
    const extra = flowsDir('flows-extra', (f) => ({ ...f, steps: [...f.steps, { id: 'docs', agent: 'writer', returns: true }], detours: { ...f.detours, type_mismatch: 'docs' } }));
    const w = await runCliHere(['audit', 'fb', '--ledger', file, '--flows', extra, '--why', 'docs']);
    expect(w.stderr.trim()).toBe('navkernel: no decision of run fb touched step "docs"');
  });

  it('shows the sightings behind "seen N times"', async () => {
    const w = await runCliHere(['audit', 'fb', '--ledger', file, '--why', 'implement']);
    expect(w.code).toBe(0);
    expect(w.stdout).toMatch(/#3\s+fixbug\/implement\s+DETOUR\s+fix-lint \(return to implement\)\s+tier 2\s+signature_detour: failure signature lint_errors seen 2 times at implement/);
    expect(w.stdout).toContain('  #3 lint_errors: seen at #2, #3');
    const json = JSON.parse((await runCliHere(['audit', 'fb', '--ledger', file, '--why', 'implement', '--json'])).stdout) as WhyReport;
    expect(json.entries.find((e) => e.seq === 3)?.sightings).toEqual([2, 3]);
    expect(json.unknown_step).toBeUndefined();
  });
});

describe('replay text (28.10)', () => {
  it('shows the new reason, and says the recorded requests after the first divergence would not have happened as recorded', async () => {
    const edited = flowsDir('flows-edited', (f) => ({ ...f, steps: f.steps.map((st) => (st.id === 'review' ? { ...st, branches: { APPROVED: 'done', BOUNCE: 'done' } } : st)) }));
    const same = await runCliHere(['replay', 'fb', '--ledger', file, '--flows', FLOWS]);
    expect(same.stdout).toContain('identical: every decision reproduced');
    expect(same.stdout).not.toContain('note:');
    const out = await runCliHere(['replay', 'fb', '--ledger', file, '--flows', edited]);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(
      [
        'DIVERGED seq 6 fixbug/review [next_step_id]',
        '  recorded: CONTINUE implement (tier 1 branch)',
        '            status BOUNCE selects branch implement',
        '  now:      CONTINUE done (tier 1 branch)',
        '            status BOUNCE selects branch done',
      ].join('\n'),
    );
    expect(out.stdout).toContain("note: from seq 6 on, today's flows would have sent the run elsewhere (CONTINUE done (tier 1 branch)): the recorded requests after seq 6 would not have happened as recorded");
  });
});
