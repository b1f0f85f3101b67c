// Replay compares the re-routed decision's JSON text with the stored one first and parses the stored one only when
// they differ: a recorded decision changed in one field must still come out as a divergence naming that field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision, RouteRequest } from '../../src/contracts/index.js';
import type { FlowSet } from '../../src/kernel/index.js';
import { openLedger, type SqliteLedger } from '../../src/ledger/index.js';
import { replayRun } from '../../src/runs/index.js';
import { ledgerKernel, sampleFlows, tmpDir } from './helpers.js';
import { ledgerSql } from '../../src/ledger/sqlite-ledger.js';

const t = tmpDir();
let flows: FlowSet;
let ledger: SqliteLedger;

const requests: RouteRequest[] = [
  { run_id: 'lint', flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', forensics: { lint: { errors: 3, fixable: 3 } } },
  { run_id: 'lint', flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', forensics: { lint: { errors: 3, fixable: 3 } } },
  { run_id: 'lint', flow: 'build', step_completed: 'auto-linter', status: 'DONE' },
  // A secret in free text: the ledger keeps it redacted, and the replay routes what the ledger keeps.
  { run_id: 'lint', flow: 'build', step_completed: 'build-step-3', status: 'VERIFIED', agent: 'builder', forensics: { note: 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789' } },
];

beforeAll(async () => {
  flows = await sampleFlows();
  const { kernel } = ledgerKernel(t.file, flows);
  for (const r of requests) await kernel.route(r);
  await kernel.close();
  ledger = openLedger(t.file, { create: false });
});
afterAll(async () => {
  await ledger.close();
  t.cleanup();
});

/** Rewrites the stored decision of `seq` (the replay reads decision_json as stored). */
function tamper(seq: number, edit: (d: Decision) => void): () => void {
  const db = ledgerSql(ledger).db;
  const before = db.prepare('SELECT decision_json FROM routes WHERE run_id = ? AND seq = ?').pluck().get('lint', seq) as string;
  const d = JSON.parse(before) as Decision;
  edit(d);
  db.prepare('UPDATE routes SET decision_json = ? WHERE run_id = ? AND seq = ?').run(JSON.stringify(d), 'lint', seq);
  return () => db.prepare('UPDATE routes SET decision_json = ? WHERE run_id = ? AND seq = ?').run(before, 'lint', seq);
}

describe('replay compares the stored decision field by field when its text differs', () => {
  it('reproduces the untouched run, the redacted request included', async () => {
    const stored = ledgerSql(ledger).db.prepare('SELECT request FROM routes WHERE run_id = ? AND seq = 4').pluck().get('lint') as string;
    expect(stored).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    const report = await replayRun(ledger, 'lint', flows);
    expect(report).toMatchObject({ routes: 4, identical: true, divergences: [] });
  });

  it.each([
    ['rule', (d: Decision): void => void (d.rule = `${d.rule}_changed`)],
    ['tier', (d: Decision): void => void (d.tier = d.tier === 1 ? 2 : 1)],
    ['next_step_id', (d: Decision): void => void (d.next_step_id = 'build-step-1')],
    ['needs_human', (d: Decision): void => void (d.needs_human = !d.needs_human)],
    ['detour_target', (d: Decision): void => void (d.detour_target = 'somewhere-else')],
  ] as const)('reports a stored decision whose %s differs as a divergence of that field alone', async (field, edit) => {
    const restore = tamper(2, edit);
    try {
      const report = await replayRun(ledger, 'lint', flows);
      expect(report.identical).toBe(false);
      expect(report.divergences).toHaveLength(1);
      expect(report.divergences[0]).toMatchObject({ seq: 2, flow: 'build', step: 'build-step-3', fields: [field] });
      expect(report.divergences[0]!.now).not.toBeNull();
    } finally {
      restore();
    }
    expect((await replayRun(ledger, 'lint', flows)).identical).toBe(true);
  });

  it('reports a stored decision with extra inject_nodes as an inject_nodes divergence', async () => {
    const restore = tamper(3, (d) => void (d.inject_nodes = [{ id: 'extra', agent: 'builder', purpose: 'x' }]));
    try {
      const report = await replayRun(ledger, 'lint', flows);
      expect(report.divergences.map((d) => [d.seq, d.fields])).toEqual([[3, ['inject_nodes']]]);
    } finally {
      restore();
    }
  });

  it('does not report a text that differs only in fields replay does not compare (reason, confidence)', async () => {
    const restore = tamper(2, (d) => {
      d.reason = `${d.reason} (reworded)`;
      d.confidence = 0.123;
    });
    try {
      const report = await replayRun(ledger, 'lint', flows);
      expect(report).toMatchObject({ identical: true, divergences: [] });
    } finally {
      restore();
    }
  });
});
