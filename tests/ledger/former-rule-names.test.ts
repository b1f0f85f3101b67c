// Tier 3 is the arbiter: its rules are `arbiter`, `arbiter_unavailable`, `arbiter_error`. A ledger recorded before
// the rename names them `navigator…`; it must still verify, replay identically, audit as a new one does, and keep
// its recorded bytes (hash-chained: never rewritten).
import { afterAll, describe, expect, it } from 'vitest';
import { FORMER_RULE_NAMES, currentRuleCounts, currentRuleName, withCurrentRuleNames } from '../../src/contracts/arbiter-rules.js';
import type { Decision, RouteRecord, RunState } from '../../src/contracts/index.js';
import { createKernel, type FlowSet } from '../../src/kernel/index.js';
import { openLedger, verifyLedger } from '../../src/ledger/index.js';
import { auditRun, replayRun } from '../../src/runs/index.js';
import { ledgerStats } from '../../src/service/ledger-reader.js';
import { sampleFlows, scriptedArbiter, steppingClock, tmpDir, capturingStore } from './helpers.js';

const t = tmpDir();
afterAll(() => t.cleanup());

const TODAY_TO_FORMER = Object.fromEntries(Object.entries(FORMER_RULE_NAMES).map(([former, now]) => [now, former]));
const former = (rule: string) => TODAY_TO_FORMER[rule] ?? rule;

/** A decision as a navkernel before the rename recorded it. */
function asRecordedBefore(d: Decision): Decision {
  return {
    ...d,
    rule: former(d.rule),
    rejected: d.rejected.map((r) => ({ ...r, rule: former(r.rule) })),
    ...(d.skipped ? { skipped: d.skipped.map((s) => ({ ...s, rule: former(s.rule) })) } : {}),
  };
}

const unverified = (run_id: string) => [
  { run_id, flow: 'build', step_completed: 'build-step-1', status: 'DONE' },
  { run_id, flow: 'build', step_completed: 'build-step-2', status: 'VERIFIED' },
  { run_id, flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED' },
  { run_id, flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED' },
];

/** Routes two runs in memory (one with an arbiter, one without) and returns what the store was given. */
async function routedRecords(flows: FlowSet): Promise<[RouteRecord, RunState][]> {
  const { store: capture, given } = capturingStore();
  const withArbiter = createKernel({ flows, store: capture, clock: steppingClock(), arbiter: scriptedArbiter() });
  for (const r of unverified('with-arbiter')) await withArbiter.route(r);
  const without = createKernel({ flows, store: capture, clock: steppingClock(Date.UTC(2025, 1, 1)) });
  // Without an arbiter an unverified step escalates to a person: the run waits there (later routes are refused).
  for (const r of unverified('no-arbiter')) if ((await without.route(r)).decision === 'ESCALATE') break;
  return given;
}

async function writeLedger(file: string, records: [RouteRecord, RunState][], map: (d: Decision) => Decision): Promise<void> {
  const ledger = openLedger(file);
  for (const [record, state] of records) await ledger.append({ ...record, decision: map(record.decision) }, state);
  await ledger.close();
}

describe('rule names recorded before tier 3 was the arbiter', () => {
  it('today the kernel names them arbiter…; the mapping reads each former name as today’s', async () => {
    const records = await routedRecords(await sampleFlows());
    const rules = records.flatMap(([r]) => [r.decision.rule, ...(r.decision.skipped ?? []).map((s) => s.rule)]);
    expect(rules).toContain('arbiter');
    expect(rules).toContain('arbiter_unavailable');
    expect(rules.filter((r) => r.startsWith('navigator'))).toEqual([]);
    expect(currentRuleName('navigator_error')).toBe('arbiter_error');
    expect(currentRuleName('signature_escalate')).toBe('signature_escalate');
    expect(currentRuleName('toString')).toBe('toString');
    const d = records.find(([r]) => r.decision.rule === 'arbiter')![0].decision;
    expect(withCurrentRuleNames(asRecordedBefore(d))).toEqual(d);
    expect(currentRuleCounts([{ tier: 3, rule: 'navigator', decision: 'LOOP', count: 2 }, { tier: 3, rule: 'arbiter', decision: 'LOOP', count: 1 }])).toEqual([{ tier: 3, rule: 'arbiter', decision: 'LOOP', count: 3 }]);
  });

  it('an old ledger verifies, replays identically, and audits exactly as the same runs recorded today', async () => {
    const flows = await sampleFlows();
    const records = await routedRecords(flows);
    const oldFile = `${t.dir}/old/ledger.sqlite`;
    const newFile = `${t.dir}/new/ledger.sqlite`;
    await writeLedger(oldFile, records, asRecordedBefore);
    await writeLedger(newFile, records, (d) => d);
    const old = openLedger(oldFile, { create: false });
    const now = openLedger(newFile, { create: false });
    try {
      // Recorded as it was: the former names are in the hashed rows.
      const rows = await old.routes('with-arbiter', 0, 100);
      expect(rows.some((r) => r.rule === 'navigator')).toBe(true);
      expect((await old.routes('no-arbiter', 0, 100)).some((r) => r.decision_json.includes('"navigator_unavailable"'))).toBe(true);
      expect((await verifyLedger(old)).ok).toBe(true);
      // Whether tier 3 ran is read through either name.
      expect(await old.arbiterFootprint('with-arbiter')).toBe(true);
      expect(await old.arbiterFootprint('no-arbiter')).toBe(false);
      expect(await now.arbiterFootprint('no-arbiter')).toBe(false);
      for (const run of ['with-arbiter', 'no-arbiter']) {
        const replay = await replayRun(old, run, flows);
        expect(replay.divergences, run).toEqual([]);
        expect(replay.routes).toBe(records.filter(([r]) => r.run_id === run).length);
        // The audit reads the former names as today's: the same report as the ledger written today.
        expect(await auditRun(old, run), run).toEqual(await auditRun(now, run));
      }
      expect((await auditRun(old, 'with-arbiter')).by_tier_rule.map((r) => r.rule)).toContain('arbiter');
      expect(await ledgerStats(old)).toEqual(await ledgerStats(now));
    } finally {
      await old.close();
      await now.close();
    }
  });
});
