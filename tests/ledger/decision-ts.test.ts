import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/contracts/index.js';
import { createKernel } from '../../src/kernel/index.js';
import { openLedger, verifyLedger } from '../../src/ledger/index.js';
import { replayRun } from '../../src/runs/index.js';
import { decisionsJsonlPath } from '../../src/ledger/paths.js';
import { ledgerKernel, sampleFlows, steppingClock, tmpDir, capturingStore } from './helpers.js';

const t = tmpDir();
afterAll(() => t.cleanup());

// A build run with a lint detour (off-road lines in decisions.jsonl) and a microloop.
const lint = { run_id: 'ts-1', flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', forensics: { lint: { errors: 3 } } };
const steps = [lint, lint, { run_id: 'ts-1', flow: 'build', step_completed: 'auto-linter', status: 'DONE' }, { run_id: 'ts-1', flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED' }];

describe('decision timestamps (seed 003 log format)', () => {
  it('stamps the decision, its ledger row and its decisions.jsonl line with the same ISO-8601 UTC ts', async () => {
    const flows = await sampleFlows();
    const { ledger, kernel } = ledgerKernel(t.file, flows, { clock: steppingClock(Date.UTC(2026, 4, 6, 7, 8, 9)) });
    const decisions: Decision[] = [];
    for (const r of steps) decisions.push(await kernel.route(r));
    await kernel.close();
    expect(decisions.map((d) => d.ts)).toEqual(['2026-05-06T07:08:09.000Z', '2026-05-06T07:08:10.000Z', '2026-05-06T07:08:11.000Z', '2026-05-06T07:08:12.000Z']);
    const reader = openLedger(t.file, { create: false });
    try {
      const rows = await reader.routes('ts-1', 0, 100);
      expect(rows.map((r) => r.ts)).toEqual(decisions.map((d) => d.ts));
      expect(rows.map((r) => (JSON.parse(r.decision_json) as Decision).ts)).toEqual(decisions.map((d) => d.ts));
      const lines = readFileSync(decisionsJsonlPath(ledger.runBase, 'ts-1', 'build'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { seq: number; ts: string });
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines) expect(l.ts).toBe(decisions[l.seq - 1]!.ts);
      // Replay re-routes at the recorded times and compares decisions: identical, and the chain verifies.
      expect((await replayRun(reader, 'ts-1', flows)).identical).toBe(true);
      expect((await verifyLedger(reader)).ok).toBe(true);
    } finally {
      await reader.close();
    }
  });

  it('keeps a ledger recorded before decisions carried ts verifiable and replayable', async () => {
    const flows = await sampleFlows();
    // Route in memory, keep what a store was given, then write it to a ledger with ts removed from each decision,
    // as an earlier navkernel recorded it.
    const { store: capture, given } = capturingStore();
    const k = createKernel({ flows, store: capture, clock: steppingClock() });
    for (const r of steps) await k.route({ ...r, run_id: 'old-1' });
    await k.close();
    const file = `${t.dir}/old.sqlite`;
    const old = openLedger(file);
    for (const [record, state] of given) {
      const { ts: _ts, ...decision } = record.decision;
      await old.append({ ...record, decision }, state);
    }
    await old.close();
    const reader = openLedger(file, { create: false });
    try {
      const rows = await reader.routes('old-1', 0, 100);
      expect(rows.every((r) => (JSON.parse(r.decision_json) as Decision).ts === undefined)).toBe(true);
      expect((await verifyLedger(reader)).ok).toBe(true);
      const replay = await replayRun(reader, 'old-1', flows);
      expect(replay.divergences).toEqual([]);
    } finally {
      await reader.close();
    }
  });
});
