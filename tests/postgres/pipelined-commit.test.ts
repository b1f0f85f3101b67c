// The PostgreSQL ledger's pipelined group commit (several batches in flight, each on its own connection), on the
// real server the test setup starts: concurrent runs come out whole; a commit that fails (a deferred trigger making
// COMMIT itself fail, or the backend terminated mid-statement) fails exactly its routes, acknowledges nothing that
// was not committed, loses nothing that was, and the same runs' later routes chain on what the database holds.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Decision, RouteRequest } from '../../src/contracts/index.js';
import { StoreUnavailableError } from '../../src/contracts/store-errors.js';
import { createKernel, type FlowSet } from '../../src/kernel/index.js';
import { PostgresLedger, verifyLedger } from '../../src/ledger/index.js';
import { steppingClock } from '../ledger/helpers.js';
import { longRunFlows } from '../support/long-run-charters.js';
import { DATABASE_URL, adminQuery, describePostgres, freshSchemaUrl, schemaOf } from '../support/postgres.js';

let flows: FlowSet;
const schemas: string[] = [];
beforeAll(async () => {
  // Up to 30 routes a run, the build steps in turn: past the shipped build flow's visit caps, so its bounds are raised.
  flows = await longRunFlows();
});
afterAll(async () => {
  if (!DATABASE_URL) return;
  for (const s of schemas) await adminQuery(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
});

function url(): string {
  const u = freshSchemaUrl('pc');
  schemas.push(schemaOf(u));
  return u;
}

// The build steps in turn, each passing (restart: docs/run-states.md).
const STEPS = [['build-step-1', 'VERIFIED'], ['build-step-2', 'VERIFIED'], ['build-step-3', 'VERIFIED'], ['build-review', 'APPROVED']] as const;
function request(run_id: string, i: number): RouteRequest {
  return {
    run_id, flow: 'build', step_completed: STEPS[i % 4]![0], status: STEPS[i % 4]![1], request_id: `${run_id}-q${i}`,
    forensics: { tests: { passed: 1, failed: 0 } }, restart: { reason: 'the test goes round the build steps' },
  } as RouteRequest;
}

/** Every stored route of `runs`: seq 1..n in order, each request_id once, and the whole ledger verifies. */
async function checkWhole(location: string, runs: readonly string[], acked: Map<string, Decision>): Promise<number> {
  const check = await PostgresLedger.open(location, { readOnly: true });
  try {
    let stored = 0;
    for (const run_id of runs) {
      const rows = await check.routes(run_id, 0, 100_000);
      expect(rows.map((r) => r.seq)).toEqual(rows.map((_, k) => k + 1));
      for (const row of rows) {
        // Nothing is in the database that the kernel did not acknowledge (the caller retried every failure with the
        // same request_id until it was answered, so an unknown outcome that had committed is acknowledged too)...
        const answer = acked.get(row.request_id!);
        expect(answer, `stored ${row.request_id} was acknowledged`).toBeDefined();
        expect(JSON.parse(row.decision_json)).toEqual(answer);
      }
      stored += rows.length;
    }
    // ...and everything acknowledged is there, once.
    expect(stored).toBe(acked.size);
    const report = await verifyLedger(check, { repair: false });
    expect(report.issues).toEqual([]);
    expect(report.routes).toBe(acked.size);
    expect((await check.runRegister()).map((e) => e.run_id).sort()).toEqual([...runs].sort());
    return stored;
  } finally {
    await check.close();
  }
}

/**
 * Routes `perRun` requests on each run, all runs at once; a failed route is retried with the same request_id (the
 * caller's contract) after `onFailure` has seen it. Returns what the kernel acknowledged, by request_id.
 */
async function load(kernel: ReturnType<typeof createKernel>, runs: readonly string[], perRun: number, onFailure: (run_id: string, i: number, err: unknown) => void): Promise<Map<string, Decision>> {
  const acked = new Map<string, Decision>();
  await Promise.all(
    runs.map(async (run_id) => {
      for (let i = 0; i < perRun; i++) {
        for (let attempt = 0; ; attempt++) {
          try {
            acked.set(`${run_id}-q${i}`, await kernel.route(request(run_id, i)));
            break;
          } catch (err) {
            onFailure(run_id, i, err);
            if (attempt > 20) throw err;
            await new Promise((res) => setTimeout(res, 5));
          }
        }
      }
    }),
  );
  return acked;
}

describePostgres('pipelined group commit (PostgreSQL)', () => {
  it('16 concurrent runs through several batches in flight come out whole: no gap, no duplicate, chains intact', async () => {
    const location = url();
    const store = await PostgresLedger.open(location, { maxInFlight: 4 });
    const kernel = createKernel({ flows, store, clock: steppingClock() });
    const runs = Array.from({ length: 16 }, (_, i) => `pc-run-${i}`);
    const failures: unknown[] = [];
    const acked = await load(kernel, runs, 25, (_r, _i, err) => failures.push(err));
    const stats = store.commitStats;
    await kernel.close();
    expect(failures).toEqual([]);
    expect(acked.size).toBe(16 * 25);
    // Grouped (fewer commits than routes) and pipelined (more than one batch in flight at some moment).
    expect(stats.routes).toBe(16 * 25);
    expect(stats.batches).toBeLessThan(stats.routes);
    expect(stats.peakInFlight).toBeGreaterThan(1);
    expect(stats.peakInFlight).toBeLessThanOrEqual(4);
    await checkWhole(location, runs, acked);
  });

  it('a COMMIT that fails (deferred trigger) fails exactly its routes, while other batches commit; the run then chains on', async () => {
    const location = url();
    const schema = schemaOf(location);
    const store = await PostgresLedger.open(location, { maxInFlight: 4 });
    // Route seq 5 of two runs fails at COMMIT (a deferred constraint trigger) on its first two tries, after a pause
    // long enough for other batches to be sent and committed meanwhile; a sequence per run counts the tries
    // (sequences are not rolled back with the failed transaction).
    const target = new Set(['pc-fail-3', 'pc-fail-9']);
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(
      `CREATE SEQUENCE ${schema}.tries_3; CREATE SEQUENCE ${schema}.tries_9;
       CREATE FUNCTION ${schema}.fail_commit() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE n bigint;
       BEGIN
         IF NEW.seq <> 5 THEN RETURN NULL; END IF;
         IF NEW.run_id = 'pc-fail-3' THEN n := nextval('${schema}.tries_3');
         ELSIF NEW.run_id = 'pc-fail-9' THEN n := nextval('${schema}.tries_9');
         ELSE RETURN NULL;
         END IF;
         IF n <= 2 THEN
           PERFORM pg_sleep(0.05);
           RAISE EXCEPTION 'forced commit failure of % seq %', NEW.run_id, NEW.seq USING ERRCODE = 'P0001';
         END IF;
         RETURN NULL;
       END $$;
       CREATE CONSTRAINT TRIGGER fail_commit AFTER INSERT ON ${schema}.routes DEFERRABLE INITIALLY DEFERRED
         FOR EACH ROW EXECUTE FUNCTION ${schema}.fail_commit();`,
    );
    await admin.end();
    const kernel = createKernel({ flows, store, clock: steppingClock() });
    const runs = Array.from({ length: 12 }, (_, i) => `pc-fail-${i}`);
    const failed: { run_id: string; i: number; message: string }[] = [];
    const acked = await load(kernel, runs, 12, (run_id, i, err) => failed.push({ run_id, i, message: String((err as Error).message) }));
    const stats = store.commitStats;
    await kernel.close();
    // Only the targeted routes failed, with the server's error, and nothing else: each run's seq 5 once or twice (its
    // batch failed, then the route alone, retried by the ledger when the batch held other routes; or the caller's try
    // failed twice), then the caller's next try committed.
    expect(new Set(failed.map((f) => f.run_id))).toEqual(target);
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(failed.length).toBeLessThanOrEqual(4);
    for (const f of failed) {
      expect(target.has(f.run_id)).toBe(true);
      expect(f.i).toBe(4); // the fifth request: seq 5
      expect(f.message).toContain('forced commit failure');
    }
    expect(stats.peakInFlight).toBeGreaterThan(1);
    expect(acked.size).toBe(12 * 12);
    expect((await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.routes`))[0]!.n).toBe(12 * 12);
    await checkWhole(location, runs, acked);
  });

  it('a backend terminated during an append loses nothing acknowledged, acknowledges nothing uncommitted, and later routes chain', async () => {
    const location = url();
    const app = `nk_pc_${randomBytes(4).toString('hex')}`;
    const store = await PostgresLedger.open(location, { maxInFlight: 4, applicationName: app, connectTimeoutMs: 3_000 });
    const kernel = createKernel({ flows, store, clock: steppingClock() });
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    const runs = Array.from({ length: 16 }, (_, i) => `pc-kill-${i}`);
    let unavailable = 0;
    const other: unknown[] = [];
    let done = false;
    let kills = 0;
    // The operator: terminates this ledger's backends while they run an append statement, until eight were hit.
    const operator = (async () => {
      while (!done && kills < 8) {
        const r = await admin.query<{ n: number }>(
          "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state = 'active' AND query LIKE '%INSERT INTO runs%'",
          [app],
        );
        kills += r.rows[0]!.n;
        await new Promise((res) => setTimeout(res, r.rows[0]!.n > 0 ? 30 : 1));
      }
    })();
    const acked = await load(kernel, runs, 30, (_r, _i, err) => {
      if (err instanceof StoreUnavailableError) unavailable++;
      else other.push(err);
    }).finally(() => (done = true));
    await operator;
    await admin.end();
    await kernel.close();
    expect(other, String(other[0])).toEqual([]);
    expect(kills).toBeGreaterThan(0);
    expect(acked.size).toBe(16 * 30);
    await checkWhole(location, runs, acked);
    console.log(`pipelined commit: ${kills} append backends terminated mid-statement, STORE_UNAVAILABLE seen ${unavailable} times, ${acked.size} routes whole`);
  });
});
