// WAL checkpoints off the commit path (issue 27, serve p99): a worker thread checkpoints, the routing connection only
// checkpoints the short tail it leaves, or past the cap when the thread is not running. The thread runs the compiled
// worker, so its tests drive the ledger built into dist/ (`npm test` builds it first); the cap and the lazy start
// are the routing thread's own and are tested from the sources too.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKernel, type Kernel } from '../../src/kernel/index.js';
import { openLedger as openSrcLedger, verifyLedger, type SqliteLedger } from '../../src/ledger/index.js';
import { ledgerFixtures, steppingClock, tmpDir } from './helpers.js';
import { longRunFlows } from '../support/long-run-charters.js';
import type { FlowSet } from '../../src/kernel/index.js';
import { ledgerSql } from '../../src/ledger/sqlite-ledger.js';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/src/ledger/index.js');
type DistLedger = typeof import('../../src/ledger/index.js');

const fx = ledgerFixtures();
// The sample flows with the build flow's bounds raised: a run here takes 20 routes, past build-review's max_visits.
let flows: FlowSet;
beforeAll(async () => {
  flows = await longRunFlows();
});

// About 3 KB of forensics per route, so that a few thousand routes write tens of MB of WAL frames.
const NOTES = 'x'.repeat(3000);
// The runner goes round build-step-1 to -3 whatever the kernel says (restart), 20 routes per run (inside the bounds
// of longRunFlows; the shipped build flow would escalate at build-review's 6th visit).
const request = (run_id: string, i: number) => ({
  run_id,
  flow: 'build',
  step_completed: `build-step-${(i % 3) + 1}`,
  status: 'VERIFIED',
  request_id: `q${i}`,
  forensics: { notes: `${i}:${NOTES}` },
  restart: { reason: 'the test goes round three steps' },
});

/** The WAL header's checkpoint sequence number: how many times the WAL restarted from its beginning. */
function walRestarts(file: string): number {
  const fd = openSync(`${file}-wal`, 'r');
  try {
    const head = Buffer.alloc(16);
    readSync(fd, head, 0, 16, 0);
    return head.readUInt32BE(12);
  } finally {
    closeSync(fd);
  }
}

const walBytes = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);

/** Routes one round (16 runs side by side, one route each); returns the WAL file's size after it. */
async function round(kernel: Kernel, file: string, n: number): Promise<number> {
  await Promise.all(Array.from({ length: 16 }, (_, r) => kernel.route(request(`run-${r}-${Math.floor(n / 20)}`, n))));
  return walBytes(file);
}

/** Reopens the ledger: every route is there and the hash chains verify. */
async function expectIntact(file: string, routes: number): Promise<void> {
  const ledger = openSrcLedger(file, { create: false, jsonl: false });
  expect(ledgerSql(ledger).routeCount()).toBe(routes);
  const report = await verifyLedger(ledger, { repair: false });
  await ledger.close();
  expect(report.issues).toEqual([]);
}

describe('the routing connection without the thread', () => {
  it('a short use never takes over: SQLite autocheckpoints as before and no thread starts', async () => {
    const t = tmpDir();
    fx.cleanups.push(t.cleanup);
    const ledger = openSrcLedger(t.file, { jsonl: false, walCheckpoint: 'thread' });
    const kernel = createKernel({ flows, store: ledger, clock: steppingClock() });
    for (let i = 0; i < 10; i++) await round(kernel, t.file, i);
    expect(await ledger.walCheckpointStats()).toEqual({ active: false, thread: false, threadPasses: 0, threadFrames: 0, tailCheckpoints: 0, capCheckpoints: 0 });
    expect(ledgerSql(ledger).db.pragma('wal_autocheckpoint', { simple: true })).toBe(8000);
    await kernel.close();
    await expectIntact(t.file, 160);
  });

  it('past the cap, with no checkpointer thread running, checkpoints itself: the WAL stays near the cap and nothing is lost', async () => {
    const t = tmpDir();
    fx.cleanups.push(t.cleanup);
    const cap = 2 * 1024 * 1024;
    // From the sources there is no compiled worker: `thread` takes over at startBytes and only the cap is left.
    const ledger = openSrcLedger(t.file, { jsonl: false, walCheckpoint: 'thread', walCheckpointLimits: { startBytes: 256 * 1024, capBytes: cap, checkEvery: 2 } });
    const kernel = createKernel({ flows, store: ledger, clock: steppingClock() });
    let largest = 0;
    const rounds = 400; // 6,400 routes of ~3 KB: over 20 MB of frames without checkpoints
    for (let i = 0; i < rounds; i++) largest = Math.max(largest, await round(kernel, t.file, i));
    const stats = await ledger.walCheckpointStats();
    expect(stats).toMatchObject({ active: true, thread: false, threadPasses: 0, tailCheckpoints: 0 });
    expect(stats!.capCheckpoints).toBeGreaterThan(0);
    expect(ledgerSql(ledger).db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    // At most two checks' worth of routes past the cap (a check every 2 commits, the checkpoint at the next turn).
    expect(largest).toBeLessThan(cap + 1024 * 1024);
    await kernel.close();
    expect(existsSync(`${t.file}-wal`)).toBe(false); // the last connection's close checkpointed it away, as before
    await expectIntact(t.file, rounds * 16);
  });

  it('`inline` keeps SQLite autocheckpoint and has no checkpointer', async () => {
    const t = tmpDir();
    fx.cleanups.push(t.cleanup);
    const ledger = openSrcLedger(t.file, { jsonl: false, walCheckpoint: 'inline', walCheckpointLimits: { startBytes: 1, checkEvery: 1 } });
    const kernel = createKernel({ flows, store: ledger, clock: steppingClock() });
    for (let i = 0; i < 4; i++) await round(kernel, t.file, i);
    expect(ledger.walCheckpointStats()).toBeUndefined();
    expect(ledgerSql(ledger).db.pragma('wal_autocheckpoint', { simple: true })).toBe(8000);
    await kernel.close();
  });
});

describe.skipIf(!existsSync(DIST))('the checkpointer thread (compiled)', () => {
  let dist: DistLedger;
  // The compiled ledger's own ledgerSql: a private field is reachable only through the class that declares it.
  let distLedgerSql: typeof ledgerSql;
  beforeAll(async () => {
    dist = (await import(DIST)) as DistLedger;
    distLedgerSql = ((await import(DIST.replace(/index\.js$/, 'sqlite-ledger.js'))) as { ledgerSql: typeof ledgerSql }).ledgerSql;
  });

  it('is the default from compiled code: the thread copies the WAL, the routing connection only its tail, the WAL restarts, nothing is lost', async () => {
    const t = tmpDir();
    fx.cleanups.push(t.cleanup);
    const ledger = dist.openLedger(t.file, { jsonl: false, walCheckpointLimits: { startBytes: 256 * 1024, resetFrames: 300, checkEvery: 2 } }) as SqliteLedger;
    const kernel = createKernel({ flows, store: ledger, clock: steppingClock() });
    let n = 0;
    // Rounds until the routing connection has completed three tail checkpoints (the thread caught up each time), at most 3,000.
    for (; n < 3000 && ((await ledger.walCheckpointStats())?.tailCheckpoints ?? 0) < 3; n++) await round(kernel, t.file, n);
    const stats = (await ledger.walCheckpointStats())!;
    expect(stats).toMatchObject({ active: true, thread: true });
    expect(stats.tailCheckpoints).toBeGreaterThanOrEqual(3);
    expect(stats.threadPasses).toBeGreaterThan(0);
    expect(stats.threadFrames).toBeGreaterThan(300);
    expect(distLedgerSql(ledger).db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    // The WAL restarts from its beginning instead of growing with the routes: its header's checkpoint sequence number
    // (bytes 12-15, incremented by SQLite at each restart) moves on while routes keep coming, three times at least.
    const restarts = walRestarts(t.file);
    for (const end = n + 3000; n < end && walRestarts(t.file) < restarts + 3; n++) await round(kernel, t.file, n);
    expect(walRestarts(t.file)).toBeGreaterThanOrEqual(restarts + 3);
    await kernel.close();
    expect(existsSync(`${t.file}-wal`)).toBe(false);
    await expectIntact(t.file, n * 16);
  });

  it('a thread stopped half-way leaves the cap: the routing connection checkpoints past it and nothing is lost', async () => {
    const t = tmpDir();
    fx.cleanups.push(t.cleanup);
    const cap = 2 * 1024 * 1024;
    const ledger = dist.openLedger(t.file, { jsonl: false, walCheckpointLimits: { startBytes: 256 * 1024, capBytes: cap, checkEvery: 2 } }) as SqliteLedger;
    const kernel = createKernel({ flows, store: ledger, clock: steppingClock() });
    let n = 0;
    for (; n < 3000 && !(await ledger.walCheckpointStats())?.thread; n++) await round(kernel, t.file, n);
    expect((await ledger.walCheckpointStats())?.thread).toBe(true);
    await ledger.stopWalCheckpointThread();
    const before = (await ledger.walCheckpointStats())!.capCheckpoints;
    let largest = 0;
    for (const end = n + 400; n < end; n++) largest = Math.max(largest, await round(kernel, t.file, n));
    const stats = (await ledger.walCheckpointStats())!;
    expect(stats.thread).toBe(false);
    expect(stats.capCheckpoints).toBeGreaterThan(before);
    expect(largest).toBeLessThan(cap + 1024 * 1024);
    await kernel.close();
    await expectIntact(t.file, n * 16);
  });
});
