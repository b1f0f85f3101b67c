// Issue 35 item 5: report amplification. A route request naming one big report 16 times read it 16 times; a
// request's reports had no budget together; and a request that timed out was recorded later anyway. Now each
// distinct file is read once, all the reports of a request share one byte budget, and a route whose client was
// told TIMEOUT is never recorded.
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../support/cli.js';
import { openLedger } from '../../src/ledger/index.js';
import { serviceLedger, type ServiceLedger } from '../../src/service/index.js';
import { GATE_RUN, post, routeAll, startServer } from './helpers.js';

const ESLINT = [
  {
    filePath: '/src/a.ts',
    messages: [
      { ruleId: 'no-unused-vars', severity: 2, message: 'x is unused', line: 1 },
      { ruleId: 'no-undef', severity: 2, message: 'y is not defined', line: 2 },
      { ruleId: 'eqeqeq', severity: 1, message: 'use ===', line: 3 },
    ],
  },
];
const route = (run_id: string, files: string[]) => ({ run_id, flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', iteration: { current: 1 }, reports: { files } });

/** Writes `bytes` of ESLint JSON (valid, one entry padded with an unused `source`). */
function bigEslint(file: string, bytes: number): void {
  const head = JSON.stringify([{ ...ESLINT[0], source: '' }]);
  writeFileSync(file, head.replace('"source":""', `"source":"${'x'.repeat(bytes - head.length)}"`));
}

/** Writes about `bytes` of tsc output, streamed to disk. */
async function bigTsc(file: string, bytes: number): Promise<void> {
  const out = createWriteStream(file);
  const line = (i: number) => `src/m${i % 997}.ts(${i},1): error TS2322: Type 'string' is not assignable to type 'number'.\n`;
  const block = Array.from({ length: 10_000 }, (_, i) => line(i)).join('');
  for (let written = 0; written < bytes; written += block.length) if (!out.write(block)) await new Promise<void>((r) => out.once('drain', () => r()));
  await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));
}

describe('a request’s reports, together (issue 35 item 5)', () => {
  let dir: string;
  let root: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'nk-budget-'));
    root = path.join(dir, 'root');
    mkdirSync(path.join(root, 'reports'), { recursive: true });
    writeFileSync(path.join(root, 'reports', 'eslint.json'), JSON.stringify(ESLINT));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const recorded = (file: string, run: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare('select seq, request from routes where run_id = ? order by seq').all(run) as { seq: number; request: string }[];
    } finally {
      db.close();
    }
  };

  it('a report named 16 times (and spelled three ways) is read once: its findings count once', async () => {
    const t = await startServer({ reportsRoot: root });
    try {
      const names = [...Array.from({ length: 14 }, () => 'reports/eslint.json'), './reports/eslint.json', 'reports/../reports/eslint.json'];
      const res = await post(t.base, '/v1/route', route('once-1', names));
      expect(res.status).toBe(200);
      const [row] = recorded(t.file, 'once-1');
      const forensics = (JSON.parse(row!.request) as { forensics: { lint: { errors: number; warnings: number }; read_from: unknown[] } }).forensics;
      expect(forensics.lint).toMatchObject({ errors: 2, warnings: 1 });
      expect(forensics.read_from).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('the JSON reports of one request share one budget (32 MiB): three of 12 MB are refused, naming the third, and nothing is recorded', async () => {
    for (const n of [1, 2, 3]) bigEslint(path.join(root, 'reports', `big-${n}.json`), 12 * 1024 * 1024);
    const t = await startServer({ reportsRoot: root });
    try {
      // Each alone is within the per-file limit.
      expect((await post(t.base, '/v1/route', route('budget-0', ['reports/big-1.json']))).status).toBe(200);
      const res = await post(t.base, '/v1/route', route('budget-1', ['reports/big-1.json', 'reports/big-2.json', 'reports/big-3.json']));
      expect(res.status).toBe(422);
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code).toBe('INVALID_REPORT');
      expect(body.detail).toContain('reports/big-3.json');
      expect(body.detail).toMatch(/together/);
      expect(recorded(t.file, 'budget-1')).toEqual([]);
    } finally {
      await t.close();
    }
  }, 120_000);

  it('a route whose request timed out reading its reports is never recorded; its work stops; the run routes on from seq 1', async () => {
    await bigTsc(path.join(root, 'reports', 'huge-tsc.txt'), 160 * 1024 * 1024);
    const t = await startServer({ reportsRoot: root, requestTimeoutMs: 100 });
    try {
      const res = await post(t.base, '/v1/route', route('late-1', ['reports/huge-tsc.txt']));
      expect(res.status).toBe(503);
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code).toBe('TIMEOUT');
      expect(body.detail).toContain('nothing was recorded');
      // Wait for the timed-out work to end (it stops at its next chunk), then look: nothing of it was recorded.
      await vi.waitFor(() => expect(t.service.pendingWork).toBe(0), { timeout: 120_000, interval: 50 });
      expect(recorded(t.file, 'late-1')).toEqual([]);
      // Retried with one request_id: under this 100 ms limit a loaded machine may time a route out (nothing recorded).
      let next: Response | undefined;
      for (let i = 0; i < 20 && next?.status !== 200; i++) next = await post(t.base, '/v1/route', { run_id: 'late-1', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED', request_id: 'late-1-a' });
      expect(next!.status).toBe(200);
      expect(((await next!.json()) as { seq: number }).seq).toBe(1);
    } finally {
      await t.close();
    }
  }, 180_000);

  it('serve refuses a --reports-root that is not a folder at start-up (it answered 500 to every request naming reports)', () => {
    for (const root of [path.join(dir, 'missing'), path.join(dir, 'root', 'reports', 'eslint.json')]) {
      const r = runCli(['serve', '--port', '0', '--ledger', ':memory:', '--reports-root', root]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is not a folder');
    }
  });
});

describe('a resolution whose client was told TIMEOUT (issue 35 item 5, the same ordering)', () => {
  it('is never recorded when it timed out waiting; once it is being recorded it is answered, not timed out', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nk-resolve-late-'));
    const file = path.join(dir, 'ledger.sqlite');
    const real = serviceLedger(openLedger(file));
    // The real ledger, its resolve held until the test lets it go (the only way to place a timer exactly).
    let release!: () => void;
    let held = new Promise<void>((r) => (release = r));
    let started = 0;
    const ledger: ServiceLedger = { ...real, resolve: async (flows, input) => (started++, await held, real.resolve(flows, input)) };
    const s = await startServer({ file, ledger, requestTimeoutMs: 1000 });
    try {
      const decisions = await routeAll(s.base, [...GATE_RUN, { ...GATE_RUN[0]!, run_id: 'gate-2' }, { ...GATE_RUN[1]!, run_id: 'gate-2' }, { ...GATE_RUN[2]!, run_id: 'gate-2' }, { ...GATE_RUN[3]!, run_id: 'gate-2' }]);
      const [esc1, esc2] = [decisions[3]!.escalation_id as string, decisions[7]!.escalation_id as string];
      // First: its recording began (held) when the limit passed: it is answered once recorded, with 200.
      const first = post(s.base, `/v1/escalations/${esc1}/resolve`, { decision: 'TERMINATE', by: 'ana', reason: 'first' });
      await vi.waitFor(() => expect(started).toBe(1));
      // Second, same run: waits behind the first in the run's queue and times out there: never recorded.
      const second = await post(s.base, `/v1/escalations/${esc1}/resolve`, { decision: 'TERMINATE', by: 'bo', reason: 'second' });
      expect(second.status).toBe(503);
      release();
      expect((await first).status).toBe(200);
      await vi.waitFor(() => expect(s.service.pendingWork).toBe(0));
      // The second never reached the ledger: given up in the queue, it was not run after its client heard TIMEOUT.
      expect(started).toBe(1);
      const run = (await (await fetch(`${s.base}/v1/runs/gate-1`)).json()) as { escalations: { resolution: { by: string; reason: string } | null }[] };
      expect(run.escalations[0]!.resolution).toMatchObject({ by: 'ana', reason: 'first' });
      // Another run's escalation, resolved while nothing is held: recorded as usual.
      held = Promise.resolve();
      expect((await post(s.base, `/v1/escalations/${esc2}/resolve`, { decision: 'TERMINATE', by: 'cy', reason: 'third' })).status).toBe(200);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
