import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { compileValidator, type Decision, type OffRoadRecord, type RouteRequest } from '../../src/contracts/index.js';
import { DEMO_SCENARIO, HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { MemoryStore, createKernel } from '../../src/kernel/index.js';
import {
  LEDGER_APPLICATION_ID,
  LEDGER_SCHEMA_VERSION,
  LedgerNotFoundError,
  LedgerTooNewError,
  NotALedgerError,
  decisionsJsonlPath,
  openLedger,
  readJsonl,
} from '../../src/ledger/index.js';
import { ledgerFixtures, ledgerKernel, scriptedArbiter, steppingClock, tmpDir, type Step } from './helpers.js';
import { ledgerSql } from '../../src/ledger/sqlite-ledger.js';
import { SeqConflict } from '../../src/ledger/sql.js';
import { storedToWrite } from '../../src/ledger/copy.js';

const fx = ledgerFixtures();
function tmp() {
  const t = tmpDir();
  fx.cleanups.push(t.cleanup);
  return t;
}

/** The requests and decisions of a scenario routed by an in-memory kernel: the reference a ledgered kernel must match. */
async function reference(scenario = HARSH_SCENARIO, withArbiter = false): Promise<Step[]> {
  const steps: Step[] = [];
  const kernel = createKernel({ flows: fx.flows, store: new MemoryStore(), clock: steppingClock(), ...(withArbiter ? { arbiter: scriptedArbiter() } : {}) });
  await simulate(kernel, scenario, { onStep: (s) => steps.push(structuredClone(s)) });
  await kernel.close();
  return steps;
}

describe('SQLite ledger as the kernel store', () => {
  it('records every route as a row and every off-road decision as a decisions.jsonl line in the seed shape', async () => {
    const { file, dir } = tmp();
    const { kernel } = ledgerKernel(file, fx.flows);
    const steps: Step[] = [];
    await simulate(kernel, DEMO_SCENARIO, { onStep: (s) => steps.push(structuredClone(s)) });
    await kernel.close();

    const db = new Database(file, { readonly: true });
    const rows = db.prepare('SELECT run_id, seq, flow, step, decision, tier, rule, decision_json, ts FROM routes ORDER BY run_id, seq').all() as {
      run_id: string; seq: number; flow: string; step: string; decision: string; tier: number; rule: string; decision_json: string; ts: string;
    }[];
    db.close();
    expect(rows.length).toBe(steps.length);
    const byRun = new Map<string, Step[]>();
    for (const s of steps) byRun.set(s.request.run_id, [...(byRun.get(s.request.run_id) ?? []), s]);
    for (const [run, list] of byRun) {
      const runRows = rows.filter((r) => r.run_id === run);
      expect(runRows.map((r) => r.seq)).toEqual(list.map((_, i) => i + 1));
      runRows.forEach((r, i) => {
        expect(JSON.parse(r.decision_json)).toEqual(list[i]!.decision);
        expect([r.flow, r.step, r.decision, r.tier, r.rule]).toEqual([list[i]!.request.flow, list[i]!.request.step_completed, list[i]!.decision.decision, list[i]!.decision.tier, list[i]!.decision.rule]);
      });
    }

    const validate = compileValidator<OffRoadRecord>('offroad-record');
    const offroad = steps.filter((s) => s.decision.decision !== 'CONTINUE');
    expect(offroad.length).toBeGreaterThan(10);
    let lines = 0;
    for (const [run, list] of byRun) {
      for (const flow of new Set(list.map((s) => s.request.flow))) {
        const want = list.filter((s) => s.request.flow === flow && s.decision.decision !== 'CONTINUE');
        // Run folders in runs/ beside the ledger (docs/ledger.md, "Run folders").
        const file = decisionsJsonlPath(path.join(dir, 'runs'), run, flow);
        expect(file).toBe(path.join(dir, 'runs', run, flow, 'routing', 'decisions.jsonl'));
        const got = readJsonl(file);
        expect(got.torn).toBeNull();
        expect(got.lines.length).toBe(want.length);
        got.lines.forEach((line, i) => {
          const rec = JSON.parse(line) as OffRoadRecord;
          expect(validate(rec).success).toBe(true);
          const d = want[i]!.decision;
          expect(rec).toMatchObject({ step_id: want[i]!.request.step_completed, decision: d.decision, reason: d.reason, seq: d.seq, tier: d.tier, rule: d.rule });
          expect(Object.keys(rec).slice(0, 2)).toEqual(['step_id', 'decision']);
          if (d.detour_target) expect(rec.detour_target).toBe(d.detour_target);
          if (d.inject_flow) expect(rec.inject_flow).toBe(d.inject_flow);
          lines++;
        });
      }
    }
    expect(lines).toBe(offroad.length);
  });

  it('a restarted kernel continues each run exactly where it stood (loop counters, signatures, return points)', async () => {
    const ref = await reference();
    const { file } = tmp();
    // Cut the recorded request stream at several points; a new kernel + store process each part.
    const cuts = [1, Math.floor(ref.length / 3), Math.floor(ref.length / 2) + 7, ref.length - 5];
    let at = 0;
    const clock = steppingClock();
    for (const end of [...cuts, ref.length]) {
      const { kernel } = ledgerKernel(file, fx.flows, { clock });
      for (; at < end; at++) {
        const d = await kernel.route(ref[at]!.request);
        expect(d, `route ${at} (${ref[at]!.request.run_id} ${ref[at]!.request.step_completed})`).toEqual(ref[at]!.decision);
      }
      await kernel.close();
    }
    const ledger = openLedger(file, { create: false });
    for (const run of new Set(ref.map((s) => s.request.run_id))) {
      const last = ref.filter((s) => s.request.run_id === run).length;
      expect((await ledger.loadRun(run))?.seq).toBe(last);
    }
    await ledger.close();
  });

  it('routing the same request_id twice returns the recorded decision and records nothing, also after a restart', async () => {
    const { file } = tmp();
    const request: RouteRequest = { run_id: 'idem', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED', request_id: 'req-1', forensics: { tests: { passed: 1, failed: 3 } } };
    let k = ledgerKernel(file, fx.flows);
    const first = await k.kernel.route(request);
    const again = await k.kernel.route(request);
    expect(again).toEqual(first);
    const next = await k.kernel.route({ ...request, request_id: 'req-2', step_completed: 'build-step-2', status: 'VERIFIED' });
    expect(next.seq).toBe(2);
    await k.kernel.close();
    k = ledgerKernel(file, fx.flows);
    expect(await k.kernel.route(request)).toEqual(first);
    expect(ledgerSql(k.ledger).routeCount()).toBe(2);
    expect((await k.ledger.findByRequestId('idem', 'req-2'))?.decision).toEqual(next);
    await k.kernel.close();
  });

  it('records LLM calls, cost and the run head with each route, and opens an escalation with its ESCALATE decision', async () => {
    const { file } = tmp();
    const { kernel, ledger } = ledgerKernel(file, fx.flows, { arbiter: scriptedArbiter() });
    const steps: Step[] = [];
    await simulate(kernel, HARSH_SCENARIO, { onStep: (s) => steps.push(structuredClone(s)) });
    const tier3 = steps.filter((s) => s.decision.tier === 3);
    expect(tier3.length).toBeGreaterThan(0);
    const db = ledgerSql(ledger).db;
    const calls = db.prepare('SELECT run_id, seq, provider, model, usd, raw_answer FROM llm_calls ORDER BY run_id, seq').all() as { run_id: string; seq: number; provider: string; usd: number; raw_answer: string }[];
    expect(calls.length).toBe(tier3.length);
    expect(calls.map((c) => `${c.run_id}#${c.seq}`).sort()).toEqual(tier3.map((s) => `${s.request.run_id}#${s.decision.seq}`).sort());
    const costs = db.prepare('SELECT run_id, cost_usd, llm_calls FROM runs').all() as { run_id: string; cost_usd: number; llm_calls: number }[];
    for (const r of costs) {
      const n = tier3.filter((s) => s.request.run_id === r.run_id).length;
      expect(r.llm_calls).toBe(n);
      expect(r.cost_usd).toBeCloseTo(n * 0.00051, 10);
    }
    const escalations = steps.filter((s) => s.decision.decision === 'ESCALATE');
    const open = db.prepare("SELECT escalation_id, run_id, seq, step, status FROM escalations ORDER BY run_id, seq").all() as { escalation_id: string; run_id: string; seq: number; step: string; status: string }[];
    expect(open.map((e) => e.escalation_id).sort()).toEqual(escalations.map((s) => s.decision.escalation_id!).sort());
    expect(open.every((e) => e.status === 'open')).toBe(true);
    await kernel.close();
  });
});

describe('the run head an append moves on', () => {
  it('refuses, recording nothing, an append whose seq does not follow the run head: a gap, or a later seq of a run with no head', async () => {
    const { file } = tmp();
    const { kernel, ledger } = ledgerKernel(file, fx.flows);
    await kernel.route({ run_id: 'r', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED', forensics: { tests: { passed: 1, failed: 0 } } });
    await kernel.route({ run_id: 'r', flow: 'build', step_completed: 'build-step-2', status: 'VERIFIED', forensics: { tests: { passed: 1, failed: 0 } } });
    const sql = ledgerSql(ledger);
    const [, second] = sql.routesPage('r', 0, 10);
    const stored = (run_id: string, seq: number) => storedToWrite({ ...second!, run_id, seq }, [], undefined);
    expect(() => sql.append(stored('r', 4))).toThrow(SeqConflict);
    // A run the ledger has never seen starts at seq 1: seq 2 of it would be a head out of nowhere.
    expect(() => sql.append(stored('ghost', 2))).toThrow(SeqConflict);
    expect(sql.run('ghost')).toBeUndefined();
    expect(sql.routeCount()).toBe(2);
    expect(sql.run('r')?.last_seq).toBe(2);
    // The next seq is taken as before.
    sql.append(stored('r', 3));
    expect(sql.run('r')?.last_seq).toBe(3);
    await kernel.close();
  });
});

describe('opening a ledger file', () => {
  it('creates a versioned schema in WAL mode with the chosen durability', async () => {
    const { file } = tmp();
    for (const durability of ['normal', 'full'] as const) {
      const ledger = openLedger(file, { durability });
      const db = ledgerSql(ledger).db;
      expect(db.pragma('user_version', { simple: true })).toBe(LEDGER_SCHEMA_VERSION);
      expect(db.pragma('application_id', { simple: true })).toBe(LEDGER_APPLICATION_ID);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(durability === 'full' ? 2 : 1);
      expect(Number(db.pragma('busy_timeout', { simple: true }))).toBeGreaterThan(0);
      await ledger.close();
    }
  });

  it('gives a schema-3 ledger (before the run listing index) index runs_created on open; its runs list as before', async () => {
    const { file } = tmp();
    const { kernel } = ledgerKernel(file, fx.flows, { arbiter: scriptedArbiter() });
    const sim = await simulate(kernel, HARSH_SCENARIO, {});
    await kernel.close();
    const listing = async (l: ReturnType<typeof openLedger>) => (await l.runPage({ limit: 500 })).runs.map((r) => r.run_id);
    const reopened = openLedger(file, { create: false });
    const expected = await listing(reopened);
    await reopened.close();
    expect(expected.length).toBe(sim.runIds.length);
    // Make the file what navkernel wrote before schema 4.
    const db = new Database(file);
    db.exec('DROP INDEX runs_created; PRAGMA user_version = 3;');
    db.close();
    const old = openLedger(file, { create: false });
    expect(ledgerSql(old).db.pragma('user_version', { simple: true })).toBe(LEDGER_SCHEMA_VERSION);
    expect(ledgerSql(old).db.pragma('index_info(runs_created)')).toEqual([expect.objectContaining({ name: 'created_ts' }), expect.objectContaining({ name: 'run_id' })]);
    expect(await listing(old)).toEqual(expected);
    expect(expected).toEqual((await old.runs()).map((r) => r.run_id));
    await old.close();
  });

  it('refuses a file that is not SQLite, and leaves it untouched', () => {
    const { dir } = tmp();
    const file = path.join(dir, 'notes.sqlite');
    writeFileSync(file, 'these are my notes, not a database\n'.repeat(200));
    const before = readFileSync(file);
    expect(() => openLedger(file)).toThrow(NotALedgerError);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it("refuses another application's SQLite database, and leaves it untouched", () => {
    const { dir } = tmp();
    const file = path.join(dir, 'other.db');
    const db = new Database(file);
    db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Ada')");
    db.close();
    const before = readFileSync(file);
    const err = (() => {
      try {
        openLedger(file);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(NotALedgerError);
    expect((err as NotALedgerError).code).toBe('NOT_A_LEDGER');
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('refuses a ledger written by a newer version, and never rewrites it', async () => {
    const { file } = tmp();
    const ledger = openLedger(file);
    ledgerSql(ledger).db.pragma(`user_version = ${LEDGER_SCHEMA_VERSION + 1}`);
    await ledger.close();
    const before = readFileSync(file);
    const err = (() => {
      try {
        openLedger(file);
      } catch (e) {
        return e;
      }
    })() as LedgerTooNewError;
    expect(err).toBeInstanceOf(LedgerTooNewError);
    expect(err.code).toBe('LEDGER_TOO_NEW');
    expect(err.version).toBe(LEDGER_SCHEMA_VERSION + 1);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('does not create a missing ledger when asked to open an existing one', () => {
    const { dir } = tmp();
    const file = path.join(dir, 'nope', 'ledger.sqlite');
    expect(() => openLedger(file, { create: false })).toThrow(LedgerNotFoundError);
    expect(existsSync(file)).toBe(false);
  });

  it('returns decisions whose recorded JSON equals what the kernel answered', async () => {
    const { file } = tmp();
    const { kernel, ledger } = ledgerKernel(file, fx.flows);
    const d: Decision = await kernel.route({ run_id: 'one', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' });
    expect(await ledger.findByRequestId('one', 'none')).toBeUndefined();
    expect(JSON.parse(ledgerSql(ledger).db.prepare('SELECT decision_json FROM routes').pluck().get() as string)).toEqual(d);
    await kernel.close();
  });
});
