import { cpSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, seededRandom, simulate } from '../../src/demo/index.js';
import { MemoryStore, createKernel, type FlowSet } from '../../src/kernel/index.js';
import { openLedger, verifyLedger } from '../../src/ledger/index.js';
import { listRuns, replayRun } from '../../src/runs/index.js';
import { CHILD_DIST_PARTS, childScript, parseAck, startChild } from '../../scripts/crash/harness.js';
import { CHARTERS, ROOT } from '../support/kernel-fixtures.js';
import { killUntilDone, referenceRun } from '../support/crash-runs.js';
import { sampleFlows, tmpDir } from './helpers.js';
import { longRunCharters } from '../support/long-run-charters.js';
import { ledgerSql } from '../../src/ledger/sqlite-ledger.js';

// Real child processes run the compiled child of the crash harness (scripts/crash/child.ts, shared with
// `npm run crash`; dist/ is built by `npm test`'s tsc step). They run from a snapshot of dist/ taken once, so a
// rebuild in the working tree while the test runs cannot break a child.
// The snapshot sits in runs/ (git-ignored) so that node_modules/ and schemas/ resolve as from dist/.
const SNAPSHOT = path.join(ROOT, 'runs', `.ledger-test-dist-${process.pid}`);
const CHILD = childScript(SNAPSHOT);

let flows: FlowSet;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  flows = await sampleFlows();
  for (const part of CHILD_DIST_PARTS) {
    cpSync(path.join(ROOT, 'dist', part), path.join(SNAPSHOT, part), { recursive: true });
  }
  cleanups.push(() => rmSync(SNAPSHOT, { recursive: true, force: true }));
});
afterAll(() => cleanups.forEach((c) => c()));
function tmp() {
  const t = tmpDir();
  cleanups.push(t.cleanup);
  return t;
}

function start(args: string[], charters = CHARTERS) {
  return startChild(CHILD, args, { cwd: ROOT, env: { ...process.env, NAVKERNEL_TEST_CHARTERS: charters } });
}

describe('several processes, one ledger', () => {
  it('lose nothing and never fail with SQLITE_BUSY when routing different runs at once', async () => {
    const { file } = tmp();
    const RUNS = 25;
    const children = ['p1', 'p2', 'p3', 'p4'].map((prefix) => ({ prefix, child: start(['simulate', file, prefix, String(RUNS)]) }));
    const results = await Promise.all(children.map(async ({ prefix, child }) => ({ prefix, child, exit: await child.exit })));
    let total = 0;
    for (const { child, exit } of results) {
      expect(child.stderr).toBe('');
      expect(exit.code).toBe(0);
      total += (JSON.parse(child.lines[0]!) as { routes: number }).routes;
    }
    // The same scenario routed in memory gives the routes each process must have recorded.
    const kernel = createKernel({ flows, store: new MemoryStore() });
    const expected = await simulate(kernel, { ...HARSH_SCENARIO, runs: RUNS }, { runPrefix: 'mem' });
    await kernel.close();
    expect(total).toBe(4 * expected.routes);

    const ledger = openLedger(file, { create: false });
    expect(ledgerSql(ledger).routeCount()).toBe(total);
    // The simulator routes each flow of its sequence as a run of its own.
    expect((await listRuns(ledger)).length).toBe(4 * expected.runIds.length);
    const report = await verifyLedger(ledger);
    expect(report.issues).toEqual([]);
    expect(report.routes).toBe(total);
    await ledger.close();
  }, 120_000);
});

describe('crash safety', () => {
  it('survives SIGKILL at random moments: no missing or duplicate seq, every acknowledged decision recorded, verify and replay pass', async () => {
    const { dir, file } = tmp();
    // A long run: the simulated runner goes through the SDLC flows many times under one run id (long enough for
    // ten kills even when a child answers many lines between the parent's kill decision and the kill).
    const { reference, requests } = await referenceRun(flows, 20);
    expect(reference.length).toBeGreaterThan(400);
    const requestsFile = path.join(dir, 'requests.json');
    writeFileSync(requestsFile, JSON.stringify(requests));

    const { acknowledged, kills, finished } = await killUntilDone(() => start(['resume', file, requestsFile]), seededRandom(20250101), { attempts: 200, maxKillAfter: 40 });
    expect(finished.stderr).toBe('');
    expect(kills).toBeGreaterThanOrEqual(10);

    const ledger = openLedger(file, { create: false });
    const runIds = [...new Set(reference.map((x) => x.request.run_id))];
    const rowsOf = (run: string) => ledgerSql(ledger).db.prepare('SELECT seq, decision_json FROM routes WHERE run_id = ? ORDER BY seq').all(run) as { seq: number; decision_json: string }[];
    // The restarted runs decided exactly what uninterrupted runs decide.
    const recorded = new Map<string, unknown>();
    for (const run of runIds) {
      const mine = reference.filter((x) => x.request.run_id === run);
      const rows = rowsOf(run);
      expect(rows.map((r) => r.seq)).toEqual(mine.map((_, i) => i + 1));
      rows.forEach((r, i) => expect(JSON.parse(r.decision_json), `${run} seq ${r.seq}`).toEqual(mine[i]!.decision));
      for (const r of rows) recorded.set(`${run}:${r.seq}`, JSON.parse(r.decision_json));
    }
    const runOfAck = new Map(requests.map((r) => [r.request_id, r.run_id]));
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const a of acknowledged) expect(recorded.get(`${runOfAck.get(a.id)}:${a.decision.seq}`)).toEqual(a.decision);

    const report = await verifyLedger(ledger);
    expect(report.issues).toEqual([]);
    let replayed = 0;
    for (const run of runIds) {
      const replay = await replayRun(ledger, run, flows);
      expect(replay.divergences).toEqual([]);
      replayed += replay.routes;
    }
    expect(replayed).toBe(reference.length);
    await ledger.close();
  }, 180_000);
});

describe('two processes on one run (issue 12 item 4)', () => {
  it('serialise their routes: no gap, no duplicate, decisions.jsonl in seq order; with SIGKILLs, verify --repair rebuilds and every acknowledged decision is present', async () => {
    const { file } = tmp();
    // A run per round (80 routes from two processes, the build steps in turn): past the shipped build flow's visit
    // caps, so the children load its charters with the bounds raised (longRunCharters).
    const RUN = 'shared-run';
    const charters = longRunCharters();
    const rand = seededRandom(7);
    const acked = new Map<string, Decision>();
    let kills = 0;
    for (let round = 0; round < 6; round++) {
      const kids = ['a', 'b'].map((p) => start(['hammer', file, `${RUN}-${round}`, `r${round}${p}`, '40'], charters));
      // Kill one of the two in most rounds, at a random moment.
      const victim = round % 3 === 2 ? undefined : kids[Math.floor(rand() * 2)]!;
      const after = 1 + Math.floor(rand() * 30);
      victim?.onLine((_line, n) => {
        if (n === after) victim.kill();
      });
      const exits = await Promise.all(kids.map((k) => k.exit));
      kids.forEach((k, i) => {
        for (const line of k.lines) {
          const ack = parseAck(line);
          if (ack) acked.set(ack.id, ack.decision);
        }
        if (exits[i]!.signal === 'SIGKILL') kills++;
        else {
          expect(k.stderr).toBe('');
          expect(exits[i]!.code).toBe(0);
        }
      });
    }
    expect(kills).toBeGreaterThanOrEqual(3);
    const ledger = openLedger(file, { create: false });
    const rows = ledgerSql(ledger).db.prepare("SELECT run_id, seq, request_id, decision_json FROM routes WHERE run_id LIKE 'shared-run-%' ORDER BY run_id, seq").all() as { run_id: string; seq: number; request_id: string; decision_json: string }[];
    for (let round = 0; round < 6; round++) {
      const mine = rows.filter((r) => r.run_id === `${RUN}-${round}`);
      expect(mine.map((r) => r.seq)).toEqual(mine.map((_, i) => i + 1));
    }
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(rows.length);
    const byId = new Map(rows.map((r) => [r.request_id, JSON.parse(r.decision_json) as Decision]));
    for (const [id, d] of acked) expect(byId.get(id), id).toEqual(d);
    expect(acked.size).toBeGreaterThan(100);
    // A killed writer may leave decisions.jsonl short (never reordered or duplicated): the repair rebuilds it.
    const strict = await verifyLedger(ledger, { repair: false });
    expect(strict.issues.filter((i) => i.kind !== 'jsonl_missing_line')).toEqual([]);
    const repaired = await verifyLedger(ledger, { repair: true });
    expect(repaired.issues).toEqual([]);
    await ledger.close();
  }, 180_000);
});

