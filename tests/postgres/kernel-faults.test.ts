// The kernel, not only the ledger, on PostgreSQL while its connections are killed (pg_terminate_backend) in the middle
// of a load: every decision the kernel acknowledged is in the database afterwards, verify passes, the kernel keeps
// routing once its pool has reconnected, and every failure a caller saw was a typed STORE_UNAVAILABLE.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Decision } from '../../src/contracts/index.js';
import { NavkernelError } from '../../src/contracts/errors.js';
import { StoreUnavailableError } from '../../src/contracts/store-errors.js';
import { createKernel, type FlowSet } from '../../src/kernel/index.js';
import { PostgresLedger, verifyLedger } from '../../src/ledger/index.js';
import { steppingClock } from '../ledger/helpers.js';
import { longRunFlows } from '../support/long-run-charters.js';
import { DATABASE_URL, adminQuery, describePostgres, freshSchemaUrl, schemaOf } from '../support/postgres.js';

const STEPS = [['build-step-1', 'VERIFIED'], ['build-step-2', 'VERIFIED'], ['build-step-3', 'VERIFIED'], ['build-review', 'APPROVED']] as const;

// A role of its own, so that killing "the kernel's connections" (WHERE usename = role) touches no other test's.
const role = `kf_${randomBytes(5).toString('hex')}`;
let url = '';
let flows: FlowSet;
beforeAll(async () => {
  // 60 routes a run, the build steps in turn: past the shipped build flow's visit caps (a run would escalate and wait
  // for a person), so the build flow's bounds are raised here.
  flows = await longRunFlows();
  if (!DATABASE_URL) return;
  const u = new URL(freshSchemaUrl('kf'));
  await adminQuery(`CREATE ROLE ${role} LOGIN PASSWORD 'kf-secret'; CREATE SCHEMA ${schemaOf(u.toString())} AUTHORIZATION ${role}`);
  u.username = role;
  u.password = 'kf-secret';
  url = u.toString();
});
afterAll(async () => {
  if (!DATABASE_URL) return;
  await adminQuery('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
  await adminQuery(`DROP SCHEMA IF EXISTS ${schemaOf(url)} CASCADE; DROP OWNED BY ${role}; DROP ROLE ${role}`);
});

/**
 * Terminates every backend of the kernel's role, but only at a moment when at least one of them is running a statement
 * (a read, or a commit whose outcome the kernel then does not know): how many there were, how many were busy.
 */
async function killConnections(admin: pg.Client, busyOnly = true): Promise<{ killed: number; active: number }> {
  for (;;) {
    const rows = await admin.query<{ killed: number; active: number }>(
      `WITH a AS (SELECT pid, state FROM pg_stat_activity WHERE usename = $1)
       SELECT count(pg_terminate_backend(pid))::int AS killed, (count(*) FILTER (WHERE state <> 'idle'))::int AS active
         FROM a WHERE $2::boolean = false OR EXISTS (SELECT 1 FROM a WHERE state <> 'idle')`,
      [role, busyOnly],
    );
    if (rows.rows[0]!.killed > 0) return rows.rows[0]!;
    await new Promise((res) => setImmediate(res));
  }
}

describePostgres('a kernel on PostgreSQL whose connections are killed mid-load', () => {
  it('loses no acknowledged decision, verifies, keeps routing after reconnecting, and fails only with STORE_UNAVAILABLE', async () => {
    const store = await PostgresLedger.open(url, { poolSize: 4, connectTimeoutMs: 3_000 });
    const kernel = createKernel({ flows, store, clock: steppingClock() });
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    const runs = Array.from({ length: 8 }, (_, i) => `kf-run-${i}`);
    const acked = new Map<string, { run_id: string; decision: Decision }>(); // request_id -> what the kernel answered
    const untyped: unknown[] = [];
    let unavailable = 0;
    const kills: { atAcked: number; killed: number; active: number }[] = [];
    const target = 480;
    const killAt = [60, 160, 260, 360];

    // The operator: at set points of the load, kill every connection of the kernel while routes are in flight. It
    // stops when the routers stop (one that met an error stops early: the assertions below say which).
    let routing = runs.length;
    const operator = (async () => {
      while (killAt.length > 0 && acked.size < target && routing > 0) {
        if (acked.size >= killAt[0]!) {
          killAt.shift();
          kills.push({ atAcked: acked.size, ...(await killConnections(admin)) });
        } else await new Promise((res) => setTimeout(res, 1));
      }
    })();
    await Promise.all([
      operator,
      ...runs.map(async (run_id) => {
        try {
          await routeRun(run_id);
        } finally {
          routing--;
        }
      }),
    ]);
    async function routeRun(run_id: string): Promise<void> {
      for (let i = 0; acked.size < target; i++) {
        const request_id = `${run_id}-q${i}`;
        const request = {
          // The build steps in turn, each passing (restart).
          run_id, flow: 'build', step_completed: STEPS[i % 4]![0], status: STEPS[i % 4]![1], request_id,
          forensics: { tests: { passed: 1, failed: 0 } }, restart: { reason: 'the test goes round the build steps' },
        };
        // The caller's contract: on STORE_UNAVAILABLE, retry the same request (same request_id) until answered.
        for (;;) {
          try {
            const decision = await kernel.route(structuredClone(request));
            acked.set(request_id, { run_id, decision });
            break;
          } catch (err) {
            if (err instanceof StoreUnavailableError && (err as NavkernelError).code === 'STORE_UNAVAILABLE') {
              unavailable++;
              await new Promise((res) => setTimeout(res, 20));
              continue;
            }
            untyped.push(err);
            return;
          }
        }
      }
    }
    expect(untyped, String(untyped[0])).toEqual([]);
    expect(kills.length).toBe(4);
    for (const k of kills) expect(k.killed, 'a kill found connections to terminate').toBeGreaterThan(0);
    for (const k of kills) expect(k.active, 'a kill hit a statement in flight').toBeGreaterThan(0);
    // The kernel went on routing after the last kill (its pool opened new connections)...
    expect(acked.size).toBeGreaterThan(kills.at(-1)!.atAcked);
    // ...and still does, for a run it had not seen and for one it had.
    await killConnections(admin, false);
    await admin.end();
    const fresh = await kernel.route({ run_id: 'kf-after', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED', request_id: 'kf-after-1' });
    acked.set('kf-after-1', { run_id: 'kf-after', decision: fresh });
    const again = await kernel.route({ run_id: runs[1]!, flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED', request_id: 'kf-again-1', restart: { reason: 'again' } });
    acked.set('kf-again-1', { run_id: runs[1]!, decision: again });
    await kernel.close();

    // Every acknowledged decision is in the database, at its seq, exactly as the kernel answered it.
    const check = await PostgresLedger.open(url, { readOnly: true });
    let stored = 0;
    for (const run_id of [...runs, 'kf-after']) {
      const rows = await check.routes(run_id, 0, 100_000);
      stored += rows.length;
      const byRequest = new Map(rows.map((x) => [x.request_id, x]));
      for (const [request_id, a] of acked) {
        if (a.run_id !== run_id) continue;
        const row = byRequest.get(request_id);
        expect(row, `acknowledged ${request_id} is in the ledger`).toBeDefined();
        expect(row!.seq).toBe(a.decision.seq);
        expect(JSON.parse(row!.decision_json)).toEqual(a.decision);
      }
    }
    // Retries with the same request_id never recorded a route twice: one stored route per acknowledged request.
    expect(stored).toBe(acked.size);
    const report = await verifyLedger(check, { repair: false });
    expect(report.issues).toEqual([]);
    expect(report.routes).toBe(acked.size);
    expect((await check.runRegister()).length).toBe(runs.length + 1);
    await check.close();
    // Reported for the log: how often a caller was told STORE_UNAVAILABLE (0 is fine: the ledger re-asked and retried).
    console.log(`kernel faults: ${acked.size} decisions, kills ${JSON.stringify(kills)}, STORE_UNAVAILABLE seen ${unavailable} times`);
  });
});
