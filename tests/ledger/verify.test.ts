import { appendFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import type { FlowSet } from '../../src/kernel/index.js';
import { UnknownRunError, openLedger, readJsonl, verifyLedger, type SqliteLedger } from '../../src/ledger/index.js';
import { resolveEscalation } from '../../src/runs/index.js';
import { ledgerKernel, sampleFlows, scriptedArbiter, tmpDir } from './helpers.js';
import { ledgerSql } from '../../src/ledger/sqlite-ledger.js';

let flows: FlowSet;
let golden: ReturnType<typeof tmpDir>;
/** The run with the most routes (set below): the simulator routes each flow of its sequence as a run of its own. */
let RUN = '';
let RUNS = 0;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  flows = await sampleFlows();
  golden = tmpDir();
  const { kernel } = ledgerKernel(golden.file, flows, { arbiter: scriptedArbiter() });
  const a = await simulate(kernel, HARSH_SCENARIO);
  await kernel.close();
  // Without tier 3, some routes escalate.
  const plain = ledgerKernel(golden.file, flows);
  const b = await simulate(plain.kernel, HARSH_SCENARIO, { runPrefix: 'plain' });
  await plain.kernel.close();
  RUNS = a.runIds.length + b.runIds.length;
  const db = new Database(golden.file, { readonly: true });
  RUN = db.prepare("SELECT run_id FROM routes WHERE run_id NOT LIKE 'plain%' GROUP BY run_id ORDER BY count(*) DESC, run_id LIMIT 1").pluck().get() as string;
  db.close();
});
afterAll(() => {
  golden.cleanup();
  for (const c of cleanups) c();
});

/** A copy of the recorded ledger (database and decisions.jsonl files) to tamper with. */
function copy(): { file: string; dir: string } {
  const t = tmpDir();
  cleanups.push(t.cleanup);
  cpSync(golden.dir, t.dir, { recursive: true });
  return t;
}

function tamper(file: string, sql: string, ...params: unknown[]): void {
  const db = new Database(file);
  db.prepare(sql).run(...params);
  db.close();
}

async function verify(file: string, options: Parameters<typeof verifyLedger>[1] = {}) {
  const ledger = openLedger(file, { create: false });
  try {
    return await verifyLedger(ledger, options);
  } finally {
    await ledger.close();
  }
}

function offroadSeqs(file: string, run: string): { seq: number; flow: string }[] {
  const db = new Database(file, { readonly: true });
  const rows = db.prepare("SELECT seq, flow FROM routes WHERE run_id = ? AND decision <> 'CONTINUE' ORDER BY seq").all(run) as { seq: number; flow: string }[];
  db.close();
  return rows;
}

describe('verify', () => {
  it('passes on an untouched ledger and checks every route and decisions.jsonl file', async () => {
    const { file } = copy();
    const report = await verify(file);
    expect(report.issues).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.runs).toBe(RUNS);
    expect(report.routes).toBeGreaterThan(100);
    expect(report.jsonl_files).toBeGreaterThan(HARSH_SCENARIO.runs);
    expect(report.repairs).toEqual([]);
  });

  it('names the first bad row when a row was edited', async () => {
    const { file } = copy();
    tamper(file, "UPDATE routes SET decision_json = replace(decision_json, '\"rule\":\"', '\"rule\":\"x') WHERE run_id = ? AND seq = 9", RUN);
    // An edit that leaves invalid JSON behind is reported too, and does not stop verify.
    tamper(file, "UPDATE routes SET decision_json = replace(decision_json, '\"confidence\":', '\"confidence\":0.0') WHERE run_id = ? AND seq = 14", RUN);
    const report = await verify(file);
    expect(report.ok).toBe(false);
    expect(report.issues[0]).toMatchObject({ run_id: RUN, seq: 9, kind: 'hash_mismatch' });
    expect(report.issues.filter((i) => i.kind === 'hash_mismatch').map((i) => i.seq)).toEqual([9, 14]);
  });

  it('catches an edit to a plain column such as latency or the rule', async () => {
    const { file } = copy();
    tamper(file, 'UPDATE routes SET latency_us = latency_us + 1 WHERE run_id = ? AND seq = 4', RUN);
    expect((await verify(file)).issues[0]).toMatchObject({ seq: 4, kind: 'hash_mismatch' });
  });

  it('names the missing row when a row was deleted', async () => {
    const { file } = copy();
    tamper(file, 'DELETE FROM routes WHERE run_id = ? AND seq = 7', RUN);
    const report = await verify(file);
    expect(report.issues[0]).toMatchObject({ run_id: RUN, seq: 7, kind: 'seq_gap' });
  });

  it('catches rows that were reordered', async () => {
    const { file } = copy();
    const db = new Database(file);
    db.transaction(() => {
      db.prepare('UPDATE routes SET seq = -1 WHERE run_id = ? AND seq = 5').run(RUN);
      db.prepare('UPDATE routes SET seq = 5 WHERE run_id = ? AND seq = 6').run(RUN);
      db.prepare('UPDATE routes SET seq = 6 WHERE run_id = ? AND seq = -1').run(RUN);
    })();
    db.close();
    const report = await verify(file);
    expect(report.ok).toBe(false);
    expect(report.issues[0]).toMatchObject({ run_id: RUN, seq: 5 });
  });

  it('catches deleted rows at the end of a run (the run head disagrees)', async () => {
    const { file } = copy();
    const db = new Database(file);
    const last = db.prepare('SELECT last_seq FROM runs WHERE run_id = ?').pluck().get(RUN) as number;
    db.prepare('DELETE FROM routes WHERE run_id = ? AND seq >= ?').run(RUN, last - 1);
    db.close();
    const report = await verify(file);
    expect(report.issues.find((i) => i.kind === 'head_mismatch')).toMatchObject({ run_id: RUN, seq: last - 1 });
  });

  it('catches an edited or deleted LLM call', async () => {
    const { file } = copy();
    const db = new Database(file);
    const call = db.prepare('SELECT run_id, seq FROM llm_calls ORDER BY run_id, seq LIMIT 2').all() as { run_id: string; seq: number }[];
    db.prepare("UPDATE llm_calls SET raw_answer = '{\"candidate_id\":\"terminate\"}' WHERE run_id = ? AND seq = ?").run(call[0]!.run_id, call[0]!.seq);
    db.prepare('DELETE FROM llm_calls WHERE run_id = ? AND seq = ?').run(call[1]!.run_id, call[1]!.seq);
    db.close();
    const issues = (await verify(file)).issues;
    expect(issues).toContainEqual(expect.objectContaining({ run_id: call[0]!.run_id, seq: call[0]!.seq, kind: 'llm_calls_mismatch' }));
    expect(issues).toContainEqual(expect.objectContaining({ run_id: call[1]!.run_id, seq: call[1]!.seq, kind: 'hash_mismatch' }));
  });

  it('catches a decisions.jsonl line that disagrees with the database, and an extra line', async () => {
    const { file, dir } = copy();
    const [first] = offroadSeqs(file, RUN);
    const jsonl = path.join(dir, 'runs', RUN, first!.flow, 'routing', 'decisions.jsonl');
    const text = readFileSync(jsonl, 'utf8');
    writeFileSync(jsonl, text.replace(/"reason":"[^"]*"/, '"reason":"nothing to see here"'));
    let report = await verify(file);
    expect(report.issues).toContainEqual(expect.objectContaining({ run_id: RUN, seq: first!.seq, kind: 'jsonl_mismatch', file: jsonl }));
    writeFileSync(jsonl, text + text.split('\n')[0] + '\n');
    report = await verify(file);
    expect(report.issues).toContainEqual(expect.objectContaining({ run_id: RUN, kind: 'jsonl_extra_line', file: jsonl }));
  });

  it('repairs a file that lacks its last lines and ends in a torn line, reporting the repair (not fatal)', async () => {
    const { file, dir } = copy();
    const rows = offroadSeqs(file, RUN);
    const flow = rows[rows.length - 1]!.flow;
    const jsonl = path.join(dir, 'runs', RUN, flow, 'routing', 'decisions.jsonl');
    const whole = readFileSync(jsonl, 'utf8');
    const lines = readJsonl(jsonl).lines;
    expect(lines.length).toBeGreaterThanOrEqual(2);
    // The last line was never written, and the one before was cut half-way by a crash.
    const keep = lines.slice(0, -2).join('');
    writeFileSync(jsonl, keep + lines[lines.length - 2]!.slice(0, 17));

    const strict = await verify(file, { repair: false });
    expect(strict.ok).toBe(false);
    expect(strict.issues[0]).toMatchObject({ kind: 'jsonl_missing_line', file: jsonl });

    const report = await verify(file);
    expect(report.ok).toBe(true);
    expect(report.repairs).toEqual([{ run_id: RUN, flow, file: jsonl, appended: 2, torn_line_removed: true }]);
    expect(readFileSync(jsonl, 'utf8')).toBe(whole);
  });

  it('repairs a run’s decisions.jsonl when a kernel loads the run again, before appending to it', async () => {
    const { file, dir } = copy();
    const rows = offroadSeqs(file, RUN);
    const flow = rows[rows.length - 1]!.flow;
    const jsonl = path.join(dir, 'runs', RUN, flow, 'routing', 'decisions.jsonl');
    const whole = readFileSync(jsonl, 'utf8');
    writeFileSync(jsonl, readJsonl(jsonl).lines.slice(0, -1).join(''));
    const { kernel, ledger } = ledgerKernel(file, flows);
    const d = await kernel.route({ run_id: RUN, flow, step_completed: 'no-such-step-but-valid-flow', status: 'VERIFIED' }).catch(() => undefined);
    expect(d).toBeUndefined();
    // Routing any request of the run makes the kernel load it (and the store repair its files).
    await ledger.loadRun(RUN);
    await ledger.mirror!.flush();
    expect(readFileSync(jsonl, 'utf8')).toBe(whole);
    appendFileSync(jsonl, '');
    expect((await verifyLedger(ledger, { run: RUN, repair: false })).ok).toBe(true);
    await kernel.close();
  });

  it('binds an escalation resolution to the chain', async () => {
    const { file } = copy();
    const ledger: SqliteLedger = openLedger(file, { create: false });
    const esc = ledgerSql(ledger).db.prepare("SELECT escalation_id FROM escalations WHERE status = 'open' LIMIT 1").pluck().get() as string;
    expect(esc).toBeTruthy();
    await resolveEscalation(ledger, flows, { escalation_id: esc, decision: 'TERMINATE', by: 'ada', reason: 'not worth it' });
    expect((await verifyLedger(ledger)).ok).toBe(true);
    ledgerSql(ledger).db.prepare("UPDATE escalations SET resolution = replace(resolution, 'TERMINATE', 'CONTINUE') WHERE escalation_id = ?").run(esc);
    expect((await verifyLedger(ledger)).issues).toContainEqual(expect.objectContaining({ kind: 'resolution_mismatch' }));
    await ledger.close();
  });

  it('refuses an unknown run', async () => {
    const { file } = copy();
    await expect(verify(file, { run: 'no-such-run' })).rejects.toThrow(UnknownRunError);
  });
});
