// Several real processes on one PostgreSQL ledger: different runs at once, the same run at once, and a runner
// killed with SIGKILL at random moments and restarted. Children run the compiled child of the crash
// harness (scripts/crash/child.ts, shared with `npm run crash`) from a snapshot of dist/, pointed at a postgres:// URL.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HARSH_SCENARIO, seededRandom, simulate } from '../../src/demo/index.js';
import { MemoryStore, createKernel, type FlowSet } from '../../src/kernel/index.js';
import { PostgresLedger, verifyLedger } from '../../src/ledger/index.js';
import { listRuns, replayRun } from '../../src/runs/index.js';
import { killUntilDone, referenceRun } from '../support/crash-runs.js';
import { sampleFlows } from '../ledger/helpers.js';
import { CHARTERS, ROOT } from '../support/kernel-fixtures.js';
import { longRunCharters } from '../support/long-run-charters.js';
import { CHILD_DIST_PARTS, childScript, parseAck, startChild } from '../../scripts/crash/harness.js';
import { DATABASE_URL, adminQuery, describePostgres, freshSchemaUrl, schemaOf } from '../support/postgres.js';

const SNAPSHOT = path.join(ROOT, 'runs', `.pg-test-dist-${process.pid}`);
const CHILD = childScript(SNAPSHOT);
let flows: FlowSet;
const urls: string[] = [];
let dir: string;
beforeAll(async () => {
  if (!DATABASE_URL) return;
  flows = await sampleFlows();
  for (const part of CHILD_DIST_PARTS) cpSync(path.join(ROOT, 'dist', part), path.join(SNAPSHOT, part), { recursive: true });
  dir = mkdtempSync(path.join(tmpdir(), 'navkernel-pg-proc-'));
});
afterAll(async () => {
  rmSync(SNAPSHOT, { recursive: true, force: true });
  if (dir) rmSync(dir, { recursive: true, force: true });
  for (const u of urls) await adminQuery(`DROP SCHEMA IF EXISTS ${schemaOf(u)} CASCADE`);
});
function fresh(): string {
  const u = freshSchemaUrl('proc');
  urls.push(u);
  return u;
}

function start(args: string[], charters = CHARTERS) {
  return startChild(CHILD, args, { cwd: ROOT, env: { ...process.env, NAVKERNEL_TEST_CHARTERS: charters } });
}

describePostgres('several processes, one PostgreSQL ledger', () => {
  it('routes different runs from three processes at once, losing nothing', async () => {
    const url = fresh();
    const RUNS = 6;
    const kids = ['p1', 'p2', 'p3'].map((p) => start(['simulate', url, p, String(RUNS)]));
    let total = 0;
    for (const k of kids) {
      const exit = await k.exit;
      expect(exit.code, k.stderr).toBe(0);
      total += (JSON.parse(k.lines[0]!) as { routes: number }).routes;
    }
    const mem = createKernel({ flows, store: new MemoryStore() });
    const expected = await simulate(mem, { ...HARSH_SCENARIO, runs: RUNS }, { runPrefix: 'mem' });
    await mem.close();
    expect(total).toBe(3 * expected.routes);
    const ledger = await PostgresLedger.open(url, { readOnly: true });
    // The simulator routes each flow of its sequence as a run of its own.
    expect((await listRuns(ledger)).length).toBe(3 * expected.runIds.length);
    const report = await verifyLedger(ledger);
    expect(report.issues).toEqual([]);
    expect(report.routes).toBe(total);
    await ledger.close();
  });

  it('routes ONE run from four processes at once: every acknowledged request recorded once, no gap, chain intact', async () => {
    const url = fresh();
    // 80 routes on one run, the build steps in turn: past the shipped build flow's visit caps, so the children load
    // its charters with the bounds raised.
    const charters = longRunCharters();
    const kids = ['a', 'b', 'c', 'd'].map((p) => start(['hammer', url, 'shared', p, '20'], charters));
    const acked: string[] = [];
    for (const k of kids) {
      const exit = await k.exit;
      expect(exit.code, k.stderr).toBe(0);
      for (const l of k.lines) {
        const ack = parseAck(l);
        if (ack) acked.push(ack.id);
      }
    }
    expect(acked.length).toBe(80);
    const ledger = await PostgresLedger.open(url, { readOnly: true });
    const rows = await ledger.routes('shared', 0, 1000);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    expect(rows.map((r) => r.request_id).sort()).toEqual([...acked].sort());
    expect((await verifyLedger(ledger)).issues).toEqual([]);
    await ledger.close();
  });

  it('survives SIGKILL of the runner at random moments: every acknowledged decision recorded, verify and replay pass', async () => {
    const url = fresh();
    const { reference, requests } = await referenceRun(flows, 3);
    const requestsFile = path.join(dir, 'requests.json');
    writeFileSync(requestsFile, JSON.stringify(requests));
    const { acknowledged, kills } = await killUntilDone(() => start(['resume', url, requestsFile]), seededRandom(20260101), { attempts: 100, maxKillAfter: 30 });
    expect(kills).toBeGreaterThanOrEqual(3);
    const ledger = await PostgresLedger.open(url, { readOnly: true });
    const recorded = new Map<string, unknown>();
    const runIds = [...new Set(reference.map((x) => x.request.run_id))];
    for (const run of runIds) {
      const mine = reference.filter((x) => x.request.run_id === run);
      const rows = await ledger.routes(run, 0, 100_000);
      expect(rows.map((r) => r.seq)).toEqual(mine.map((_, i) => i + 1));
      rows.forEach((r, i) => expect(JSON.parse(r.decision_json), `${run} seq ${r.seq}`).toEqual(mine[i]!.decision));
      for (const r of rows) recorded.set(`${run}:${r.seq}`, JSON.parse(r.decision_json));
    }
    const runOfAck = new Map(requests.map((r) => [r.request_id, r.run_id]));
    for (const a of acknowledged) expect(recorded.get(`${runOfAck.get(a.id)}:${a.decision.seq}`)).toEqual(a.decision);
    expect((await verifyLedger(ledger)).issues).toEqual([]);
    for (const run of runIds) expect((await replayRun(ledger, run, flows)).divergences).toEqual([]);
    await ledger.close();
  });
});
