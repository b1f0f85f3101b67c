// decisions.jsonl on its own thread (issue 27 item 2). The writer thread runs the compiled worker, so this file
// drives the ledger built into dist/ (`npm test` builds it first) against the flows of the TypeScript tests.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKernel, type FlowSet } from '../../src/kernel/index.js';
import { decisionsJsonlPath, openLedger as openSrcLedger, readJsonl } from '../../src/ledger/index.js';
import { expectedLines } from '../../src/ledger/jsonl-mirror.js';
import { steppingClock, tmpDir } from './helpers.js';
import { longRunFlows } from '../support/long-run-charters.js';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/src/ledger/index.js');
type DistLedger = typeof import('../../src/ledger/index.js');

let flows: FlowSet;
let dist: DistLedger;
beforeAll(async () => {
  // A run here takes up to 40 routes re-running build-step-3: past the shipped build flow's bounds (visit_cap).
  flows = await longRunFlows();
  dist = (await import(DIST)) as DistLedger;
});
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

// The runner re-runs build-step-3 (restart): its microloop LOOPs (off-road, a decisions.jsonl line) and continues at its cap.
const request = (run_id: string, i: number) => ({ run_id, flow: 'build', step_completed: 'build-step-3', status: i % 4 === 3 ? 'VERIFIED' : 'UNVERIFIED', request_id: `q${i}`, forensics: { tests: { passed: i, failed: 2 } }, restart: { reason: 're-run' } });

/** Every run's files hold exactly the database's off-road lines, in seq order. */
async function expectFilesMatch(file: string, runBase: string, runIds: string[]): Promise<number> {
  const ledger = openSrcLedger(file, { create: false, runBase, jsonl: false });
  let lines = 0;
  for (const run_id of runIds) {
    for (const [flow, want] of expectedLines(await ledger.offroadRows(run_id))) {
      expect(readJsonl(decisionsJsonlPath(runBase, run_id, flow))).toEqual({ lines: want, torn: null });
      lines += want.length;
    }
  }
  await ledger.close();
  return lines;
}

describe.skipIf(!existsSync(DIST))('decisions.jsonl written on a worker thread', () => {
  it('is the default from compiled code: 64 runs routed side by side leave every file equal to the database, in seq order', async () => {
    const t = tmpDir();
    cleanups.push(t.cleanup);
    const ledger = dist.openLedger(t.file);
    expect(ledger.mirror?.constructor.name).toBe('ThreadedMirror');
    const kernel = createKernel({ flows, store: ledger, clock: steppingClock() });
    const runIds = Array.from({ length: 64 }, (_, r) => `run-${r}`);
    await Promise.all(runIds.map(async (run_id) => {
      for (let i = 0; i < 12; i++) await kernel.route(request(run_id, i));
    }));
    await kernel.close();
    expect(await expectFilesMatch(t.file, path.join(t.dir, 'runs'), runIds)).toBeGreaterThan(64);
    expect(existsSync(path.join(t.dir, 'runs', '.decisions-jsonl.lock'))).toBe(true);
  });

  it('a writer thread and a routing-thread writer take turns on one run: the file stays the database prefix, and a file cut short is rebuilt on load', async () => {
    const t = tmpDir();
    cleanups.push(t.cleanup);
    const clock = steppingClock();
    const RUN = 'shared-run';
    let i = 0;
    for (const jsonlThread of [true, false, true, false]) {
      const ledger = dist.openLedger(t.file, { jsonlThread });
      expect(ledger.mirror?.constructor.name).toBe(jsonlThread ? 'ThreadedMirror' : 'JsonlMirror');
      const kernel = createKernel({ flows, store: ledger, clock });
      for (const end = i + 8; i < end; i++) await kernel.route(request(RUN, i));
      await kernel.close();
      await expectFilesMatch(t.file, path.join(t.dir, 'runs'), [RUN]);
      if (jsonlThread) {
        // A crash after the commit, before the write: the last lines are missing; the next load brings them back.
        const jsonl = decisionsJsonlPath(path.join(t.dir, 'runs'), RUN, 'build');
        const { lines } = readJsonl(jsonl);
        writeFileSync(jsonl, lines.slice(0, Math.max(0, lines.length - 2)).join('') + '{"torn');
      }
    }
    const verify = dist.openLedger(t.file, { create: false });
    const report = await dist.verifyLedger(verify, { repair: false });
    await verify.close();
    expect(report.issues).toEqual([]);
    expect(report.jsonl_files).toBe(1);
  });

  it('hands the lines of commits a few ms apart to the thread in one message, and close() sends what is still waiting', async () => {
    const t = tmpDir();
    cleanups.push(t.cleanup);
    const ledger = dist.openLedger(t.file);
    const mirror = ledger.mirror as unknown as { enqueue(run: string, flow: string, line: string, seq: number): void; batch: number };
    // The hand-over timer only: each line below is queued in a turn of its own, as after separate commits.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      for (let run = 0; run < 5; run++) {
        mirror.enqueue(`r${run}`, 'build', `{"seq":1,"run":${run}}\n`, 1);
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(mirror.batch).toBe(0);
      vi.advanceTimersByTime(2);
      expect(mirror.batch).toBe(1);
      mirror.enqueue('r5', 'build', '{"seq":1,"run":5}\n', 1);
    } finally {
      vi.useRealTimers();
    }
    await ledger.close();
    // Two messages: the five lines together, then the last one sent by close().
    expect(mirror.batch).toBe(2);
    for (let run = 0; run < 6; run++) {
      expect(readJsonl(decisionsJsonlPath(path.join(t.dir, 'runs'), `r${run}`, 'build')).lines).toEqual([`{"seq":1,"run":${run}}\n`]);
    }
  });

  it('verify --repair through the writer thread rebuilds a deleted file and reports what it appended', async () => {
    const t = tmpDir();
    cleanups.push(t.cleanup);
    const kernel = createKernel({ flows, store: dist.openLedger(t.file), clock: steppingClock() });
    for (let i = 0; i < 20; i++) await kernel.route(request('r', i));
    await kernel.close();
    const jsonl = decisionsJsonlPath(path.join(t.dir, 'runs'), 'r', 'build');
    const want = readJsonl(jsonl).lines;
    rmSync(jsonl);
    const ledger = dist.openLedger(t.file, { create: false });
    const report = await dist.verifyLedger(ledger, { repair: true });
    await ledger.close();
    expect(report.repairs).toEqual([{ run_id: 'r', flow: 'build', file: jsonl, appended: want.length, torn_line_removed: false }]);
    expect(report.issues).toEqual([]);
    expect(readJsonl(jsonl).lines).toEqual(want);
  });
});

describe('a line that arrives after a rebuild already wrote it', () => {
  it('is not written twice (the writer thread receives lines after their commit, when a rebuild may have read their rows)', async () => {
    const t = tmpDir();
    cleanups.push(t.cleanup);
    const ledger = openSrcLedger(t.file, { jsonlThread: false });
    const kernel = createKernel({ flows, store: ledger, clock: steppingClock() });
    for (let i = 0; i < 12; i++) await kernel.route(request('r', i));
    await kernel.close();
    const reader = openSrcLedger(t.file, { create: false, jsonl: false });
    const rows = await reader.offroadRows('r');
    await reader.close();
    const jsonl = decisionsJsonlPath(path.join(t.dir, 'runs'), 'r', 'build');
    const want = readJsonl(jsonl).lines;
    expect(want.length).toBeGreaterThan(2);
    // A fresh mirror rebuilds the file (the run loaded again), then receives the last two lines late.
    const again = openSrcLedger(t.file, { create: false, jsonlThread: false });
    const mirror = again.mirror as import('../../src/ledger/jsonl-mirror.js').JsonlMirror;
    writeFileSync(jsonl, want.slice(0, -2).join(''));
    mirror.check('r');
    mirror.flushSync();
    expect(readJsonl(jsonl).lines).toEqual(want);
    for (const row of rows.slice(-2)) mirror.enqueue('r', row.flow, want[rows.indexOf(row)]!, row.seq);
    await again.close();
    expect(readJsonl(jsonl).lines).toEqual(want);
  });
});
