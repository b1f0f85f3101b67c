// Frozen histories: runs recorded by an earlier navkernel, with the flows they ran on, must replay to the same
// decisions with today's code (scripts/frozen-histories.ts says how to re-record after a deliberate change).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_SCENARIO } from '../../src/demo/index.js';
import { HISTORIES_DIR, readHistory, recordHistory, replayHistory } from '../../scripts/frozen-histories.js';

const files = readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.jsonl')).sort();

describe('frozen histories', () => {
  it('are committed', () => {
    expect(files).toEqual(['demo.jsonl', 'harsh.jsonl']);
  });

  for (const name of files) {
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
    const history = readHistory(path.join(HISTORIES_DIR, 'demo.jsonl'));
    const flows = history.header.flows.map((f) => ({ ...f, steps: f.steps.map((s) => (s.loop ? { ...s, loop: { ...s.loop, max_iterations: 1 } } : s)) }));
    const r = await replayHistory({ ...history, header: { ...history.header, flows } });
    expect(r.divergences.length).toBeGreaterThan(0);
    expect(r.divergences[0]!.fields).toContain('decision');
  });

  it('recording is deterministic (a re-record of an unchanged kernel is byte-identical)', async () => {
    expect(await recordHistory(DEMO_SCENARIO)).toBe(await recordHistory(DEMO_SCENARIO));
  });
});
