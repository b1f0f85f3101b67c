// Frozen histories: runs recorded by an earlier navkernel, with the flows they ran on, must replay to the same
// decisions with today's code (scripts/frozen-histories.ts says how to re-record after a deliberate change).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_SCENARIO } from '../../src/demo/index.js';
import { HISTORIES_DIR, readHistory, recordHistory, replayHistory } from '../../scripts/frozen-histories.js';

const files = readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.jsonl')).sort();

// Frozen before the kernel held whole runs (docs/run-states.md): their runner routed the next flow of its sequence in
// the run that had just ended. Kept as recorded; see scripts/frozen-histories.ts.
const BEFORE_RUN_STATES = ['demo.jsonl', 'harsh.jsonl'];

describe('frozen histories', () => {
  it('are committed', () => {
    expect(files).toEqual(['demo-2.jsonl', 'demo.jsonl', 'harsh-2.jsonl', 'harsh.jsonl']);
  });

  for (const name of BEFORE_RUN_STATES) {
    it(`${name} (frozen before run states) replays unchanged up to each run's first refused route, and every later route is refused`, async () => {
      const history = readHistory(path.join(HISTORIES_DIR, name));
      const r = await replayHistory(history);
      expect(r.flowsHashNow).toBe(history.header.flows_hash);
      const refusedFrom = new Map<string, number>();
      for (const d of r.divergences) {
        // A difference is a refusal by a run-time rule (the run had ended, or awaits a person), never a changed decision.
        expect(d.fields).toEqual(['error']);
        expect(['RUN_ENDED', 'ESCALATION_OPEN', 'STEP_MISMATCH']).toContain((d.now as { code?: string }).code);
        if (!refusedFrom.has(d.run_id)) refusedFrom.set(d.run_id, d.seq);
      }
      expect(refusedFrom.size).toBeGreaterThan(0);
      // Every route of a run after its first refusal is refused too; every route before it replays unchanged.
      for (const route of history.routes) {
        const from = refusedFrom.get(route.run_id);
        const refused = r.divergences.some((d) => d.run_id === route.run_id && d.seq === route.seq);
        expect(refused, `${route.run_id} seq ${route.seq}`).toBe(from !== undefined && route.seq >= from);
      }
    });
  }

  for (const name of files.filter((f) => !BEFORE_RUN_STATES.includes(f))) {
    it(`${name} replays to the same decisions`, async () => {
      const history = readHistory(path.join(HISTORIES_DIR, name));
      expect(history.routes.length).toBeGreaterThan(100);
      const r = await replayHistory(history);
      expect(r.flowsHashNow).toBe(history.header.flows_hash);
      expect(r.divergences.slice(0, 3)).toEqual([]);
      expect(r.routes).toBe(history.routes.length);
    });
  }

  it('would catch a change of routing: the same history on edited flows diverges', async () => {
    const history = readHistory(path.join(HISTORIES_DIR, 'demo-2.jsonl'));
    const flows = history.header.flows.map((f) => ({ ...f, steps: f.steps.map((s) => (s.loop ? { ...s, loop: { ...s.loop, max_iterations: 1 } } : s)) }));
    const r = await replayHistory({ ...history, lines: history.lines, header: { ...history.header, flows } });
    expect(r.divergences.length).toBeGreaterThan(0);
    expect(r.divergences[0]!.fields).toContain('decision');
  });

  it('recording is deterministic (a re-record of an unchanged kernel is byte-identical)', async () => {
    expect(await recordHistory(DEMO_SCENARIO)).toBe(await recordHistory(DEMO_SCENARIO));
  });
});
