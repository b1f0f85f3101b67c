// Failover: a PostgreSQL primary and a streaming standby on this machine, kernels routing through a multi-host URL
// (`host1,host2` + target_session_attrs=read-write, src/ledger/postgres/failover-pool.ts), the primary killed mid-load,
// the standby promoted. Synchronous replication loses no acknowledged decision; asynchronous replication loses what the
// standby had not received, and this shows it.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { Decision, RouteRequest } from '../../src/contracts/index.js';
import { createKernel, type FlowSet, type Kernel } from '../../src/kernel/index.js';
import { PostgresLedger, verifyLedger } from '../../src/ledger/index.js';
import { parsePostgresUrl as parsePostgresUrlForTests } from '../../src/ledger/postgres/url.js';
import { startPostgresPair, type PostgresPair } from '../../scripts/postgres-pair.js';
import { steppingClock } from '../ledger/helpers.js';
import { longRunFlows } from '../support/long-run-charters.js';
import { describePostgres } from '../support/postgres.js';

let flows: FlowSet;
beforeAll(async () => {
  // Runs of 35 routes and more, the build steps in turn: past the shipped build flow's visit caps (a run would
  // escalate and wait for a person), so its bounds are raised.
  flows = await longRunFlows();
});

// The build steps in turn, each passing (restart: docs/run-states.md).
const STEPS = [['build-step-1', 'VERIFIED'], ['build-step-2', 'VERIFIED'], ['build-step-3', 'VERIFIED'], ['build-review', 'APPROVED']] as const;
const request = (run_id: string, i: number): RouteRequest => ({
  run_id,
  flow: 'build',
  step_completed: STEPS[i % 4]![0],
  status: STEPS[i % 4]![1],
  request_id: `${run_id}-${i}`,
  forensics: { tests: { passed: i, failed: 0 } },
  restart: { reason: 'the test goes round the build steps' },
});

interface Ack {
  run_id: string;
  request_id: string;
  seq: number;
  at: number;
}

/** Routes until it is acknowledged, retrying the same request (same request_id) while the store is unavailable. */
async function routeUntilAcked(k: Kernel, req: RouteRequest, stats: { retries: number }): Promise<Decision> {
  for (;;) {
    try {
      return await k.route(req);
    } catch (e) {
      if ((e as { code?: string }).code !== 'STORE_UNAVAILABLE') throw e;
      stats.retries++;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

async function rowsOn(url: string): Promise<{ run_id: string; seq: number; request_id: string }[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query('SELECT run_id, seq, request_id FROM routes ORDER BY run_id, seq')).rows;
  } finally {
    await c.end();
  }
}

describePostgres('failover to a promoted standby through a multi-host URL', () => {
  let pair: PostgresPair | undefined;
  const ledgers: PostgresLedger[] = [];
  afterEach(async () => {
    for (const l of ledgers.splice(0)) await l.close().catch(() => undefined);
    pair?.stop();
    pair = undefined;
  });

  it('parses host lists as libpq does', () => {
    const t = parsePostgresUrlForTests('postgres://u:pw@a:5432,b:5433/db?target_session_attrs=read-write&schema=x');
    expect(t.hosts).toEqual([{ host: 'a', port: 5432 }, { host: 'b', port: 5433 }]);
    expect(t.targetSessionAttrs).toBe('read-write');
    expect(t.display).toMatch(/^postgres:\/\/u:\*\*\*@a:5432,b:5433\/db\?/);
    expect(parsePostgresUrlForTests('postgres://u@localhost/db?host=a,b&port=1,2').hosts).toEqual([{ host: 'a', port: 1 }, { host: 'b', port: 2 }]);
    expect(() => parsePostgresUrlForTests('postgres://u@a:1,/db')).toThrow(/empty host/);
  });

  it('synchronous standby: kernels under load carry on after the primary is killed and the standby promoted; no acknowledged decision lost, none twice', async () => {
    pair = await startPostgresPair({ sync: true });
    const kernels = await Promise.all(
      [0, 1, 2].map(async () => {
        const l = await PostgresLedger.open(pair!.url, { poolSize: 4, connectTimeoutMs: 3000 });
        ledgers.push(l);
        return createKernel({ flows, store: l, clock: steppingClock() });
      }),
    );
    const acks: Ack[] = [];
    const stats = { retries: 0 };
    let killedAt = 0;
    let promotedAt = 0;
    let stop = false;
    const runsPerKernel = 3;
    const failures: unknown[] = [];
    const workers = kernels.flatMap((k, ki) =>
      Array.from({ length: runsPerKernel }, async (_, r) => {
        const run_id = `fo-k${ki}-r${r}`;
        try {
          for (let i = 1; !stop; i++) {
            const d = await routeUntilAcked(k, request(run_id, i), stats);
            acks.push({ run_id, request_id: `${run_id}-${i}`, seq: d.seq!, at: Date.now() });
          }
        } catch (e) {
          failures.push(e);
        }
      }),
    );
    // Waits for the load to reach a point; a worker that failed (any error but STORE_UNAVAILABLE) fails the test here
    // instead of leaving it waiting for routes that never come.
    const until = async (cond: () => boolean) => {
      while (!cond()) {
        if (failures.length > 0) throw failures[0];
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await until(() => acks.length >= 120);
    killedAt = Date.now();
    pair.killPrimary();
    await new Promise((r) => setTimeout(r, 300)); // the time a watchdog would take to notice
    pair.promoteStandby();
    promotedAt = Date.now();
    const before = acks.length;
    await until(() => acks.length >= before + 120);
    stop = true;
    await Promise.all(workers);
    for (const k of kernels) await k.close();

    // On the new primary: every acknowledged decision, once, and each run's chain whole.
    const rows = await rowsOn(pair.standbyUrl);
    const byRequest = new Map(rows.map((r) => [r.request_id, r]));
    expect(byRequest.size).toBe(rows.length);
    const lost = acks.filter((a) => byRequest.get(a.request_id)?.seq !== a.seq);
    expect(lost).toEqual([]);
    const ledger = await PostgresLedger.open(pair.standbyUrl);
    ledgers.push(ledger);
    expect((await verifyLedger(ledger, { repair: false })).issues).toEqual([]);
    const during = acks.filter((a) => a.at >= killedAt && a.at <= promotedAt).length;
    const resumed = Math.min(...acks.filter((a) => a.at > promotedAt).map((a) => a.at)) - promotedAt;
    console.log(`failover (sync): ${acks.length} routes acknowledged, ${before} before the kill, ${during} answered between the kill and the promotion (committed before the kill); ${stats.retries} retries; kill to promoted ${promotedAt - killedAt} ms, first acknowledged route ${resumed} ms after the promotion; lost 0`);
  });

  it('asynchronous standby: what the standby had not received when the primary died is lost (and the docs say so)', async () => {
    pair = await startPostgresPair({ sync: false });
    const l = await PostgresLedger.open(pair.url, { poolSize: 2 });
    ledgers.push(l);
    const k = createKernel({ flows, store: l, clock: steppingClock() });
    const stats = { retries: 0 };
    for (let i = 1; i <= 20; i++) await routeUntilAcked(k, request('async', i), stats);
    pair.waitCaughtUp();
    // The standby falls behind (here: stopped; in life: a slow link, a busy disk): the primary keeps acknowledging.
    pair.stopStandby();
    for (let i = 21; i <= 35; i++) await routeUntilAcked(k, request('async', i), stats);
    await k.close();
    pair.killPrimary();
    pair.startStandby();
    pair.promoteStandby();
    const rows = await rowsOn(pair.standbyUrl);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // 15 acknowledged decisions are gone, and the promoted ledger verifies: nothing tells it they ever existed.
    const promoted = await PostgresLedger.open(pair.standbyUrl);
    ledgers.push(promoted);
    expect((await verifyLedger(promoted, { repair: false })).ok).toBe(true);
  });
});
