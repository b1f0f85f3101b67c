// The fault suite's disk half (issue 12 item 3): a decisions.jsonl write that fails after the commit (a full
// disk: /dev/full) is a warning, never an error and never a lost decision; the file is rebuilt from the
// database by `navkernel verify --repair` (and on the run's next load).
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/contracts/index.js';
import { createKernel } from '../../src/kernel/index.js';
import { decisionsJsonlPath, openLedger, readJsonl, verifyLedger } from '../../src/ledger/index.js';
import type { MirrorWarning } from '../../src/ledger/jsonl-mirror.js';
import { runCli } from '../support/cli.js';
import { ledgerFixtures, steppingClock, tmpDir } from './helpers.js';

const fx = ledgerFixtures();

const RUN = 'disk-full-run';
// The runner re-runs build-step-3 (restart): its microloop LOOPs (off-road, a decisions.jsonl line) and continues at its
// cap to build-review, until build-review's max_visits (5) is reached: route 12 ESCALATEs (visit_cap) and the run waits
// for a person, so these tests route at most 12 times.
const ROUTES = 12;
const request = (i: number) => ({ run_id: RUN, flow: 'build', step_completed: 'build-step-3', status: i % 4 === 3 ? 'VERIFIED' : 'UNVERIFIED', request_id: `q${i}`, forensics: { tests: { passed: i, failed: 2 } }, restart: { reason: 're-run' } });

describe.skipIf(!existsSync('/dev/full'))('a full disk under decisions.jsonl', () => {
  it('warns, loses no decision, and verify --repair rebuilds the file once the disk has room', async () => {
    const t = tmpDir();
    fx.cleanups.push(t.cleanup);
    const runs = path.join(t.dir, 'runs');
    const file = path.join(runs, 'ledger.sqlite');
    const jsonl = decisionsJsonlPath(runs, RUN, 'build');
    mkdirSync(path.dirname(jsonl), { recursive: true });
    symlinkSync('/dev/full', jsonl);
    const warnings: MirrorWarning[] = [];
    const ledger = openLedger(file, { runBase: runs, onWarning: (w) => warnings.push(w) });
    const kernel = createKernel({ flows: fx.flows, store: ledger, clock: steppingClock() });
    const decisions: Decision[] = [];
    for (let i = 0; i < ROUTES; i++) decisions.push(await kernel.route(request(i)));
    await kernel.close();
    expect(decisions.filter((d) => d.decision !== 'CONTINUE').length).toBeGreaterThan(5);
    expect(decisions[ROUTES - 1]).toMatchObject({ decision: 'ESCALATE', rule: 'visit_cap' });
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatchObject({ code: 'JSONL_WRITE_FAILED', run_id: RUN, flow: 'build', file: jsonl });

    // Every decision is in the database; verify names the unreadable file (and does not hang reading /dev/full).
    const check = openLedger(file, { create: false, runBase: runs });
    expect((await check.routes(RUN, 0, 100)).map((r) => JSON.parse(r.decision_json))).toEqual(decisions);
    const report = await verifyLedger(check, { repair: false });
    expect(report.ok).toBe(false);
    expect(report.issues).toContainEqual(expect.objectContaining({ run_id: RUN, kind: 'jsonl_mismatch', file: jsonl }));
    await check.close();

    // The disk has room again: the CLI rebuilds the file from the database.
    rmSync(jsonl);
    const r = runCli(['verify', '--ledger', file, '--repair']);
    expect(r.stderr).toContain('repaired');
    expect(r.code).toBe(0);
    const lines = readJsonl(jsonl).lines.map((l) => JSON.parse(l) as { seq: number });
    expect(lines.map((l) => l.seq)).toEqual(decisions.filter((d) => d.decision !== 'CONTINUE').map((d) => d.seq));
    expect(readFileSync(jsonl, 'utf8').endsWith('\n')).toBe(true);
  });

  it('a kernel that loads the run again repairs its file by itself', async () => {
    const t = tmpDir();
    fx.cleanups.push(t.cleanup);
    const file = path.join(t.dir, 'ledger.sqlite');
    const jsonl = decisionsJsonlPath(path.join(t.dir, 'runs'), RUN, 'build');
    mkdirSync(path.dirname(jsonl), { recursive: true });
    symlinkSync('/dev/full', jsonl);
    let kernel = createKernel({ flows: fx.flows, store: openLedger(file, { onWarning: () => undefined }), clock: steppingClock() });
    for (let i = 0; i < ROUTES / 2; i++) await kernel.route(request(i));
    await kernel.close();
    rmSync(jsonl);
    kernel = createKernel({ flows: fx.flows, store: openLedger(file), clock: steppingClock() });
    for (let i = ROUTES / 2; i < ROUTES; i++) await kernel.route(request(i));
    await kernel.close();
    const ledger = openLedger(file, { create: false });
    expect((await verifyLedger(ledger, { repair: false })).issues).toEqual([]);
    await ledger.close();
  });
});

describe('run folders from any valid run id (issue 12 item 2)', () => {
  it('routes, writes decisions.jsonl inside RUN_BASE and verifies for long, multi-byte, dotted and reserved ids', async () => {
    const t = tmpDir();
    fx.cleanups.push(t.cleanup);
    const file = path.join(t.dir, 'ledger.sqlite');
    const ids = ['ü'.repeat(200), '🚀'.repeat(100), '../../escape', '.hidden', 'CON', 'a/b\\c', 'x'.repeat(200), 'plain-id_1.2'];
    const kernel = createKernel({ flows: fx.flows, store: openLedger(file), clock: steppingClock() });
    for (const run_id of ids) {
      for (let i = 0; i < 4; i++) await kernel.route({ ...request(i), run_id, request_id: undefined });
    }
    await kernel.close();
    const ledger = openLedger(file, { create: false });
    const report = await verifyLedger(ledger, { repair: false });
    expect(report.issues).toEqual([]);
    expect(report.jsonl_files).toBe(ids.length);
    for (const run_id of ids) {
      const f = decisionsJsonlPath(path.join(t.dir, 'runs'), run_id, 'build');
      expect(path.relative(t.dir, f).startsWith('..')).toBe(false);
      expect(Buffer.byteLength(path.basename(path.dirname(path.dirname(path.dirname(f)))))).toBeLessThanOrEqual(64);
      expect(existsSync(f)).toBe(true);
    }
    expect(path.basename(path.dirname(path.dirname(path.dirname(decisionsJsonlPath(t.dir, 'plain-id_1.2', 'build')))))).toBe('plain-id_1.2');
    await ledger.close();
  });
});
