// The CLI on a PostgreSQL ledger, against the same run on SQLite: migrate copies and verifies, export gives the
// decisions.jsonl files byte for byte, every read command answers the same, and two `navkernel route`
// co-processes routing one run alternately leave a chain that verifies.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { createKernel } from '../../src/kernel/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { sampleFlows, scriptedArbiter, steppingClock } from '../ledger/helpers.js';
import { coProcess, runCliHere } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { DATABASE_URL, adminQuery, describePostgres, freshSchemaUrl, schemaOf } from '../support/postgres.js';

let dir: string;
let sqliteFile: string;
let runIds: string[] = [];
const urls: string[] = [];
function freshUrl(): string {
  const u = freshSchemaUrl('cli');
  urls.push(u);
  return u;
}

beforeAll(async () => {
  if (!DATABASE_URL) return;
  dir = mkdtempSync(path.join(tmpdir(), 'navkernel-pg-cli-'));
  sqliteFile = path.join(dir, 'runs', 'ledger.sqlite');
  const ledger = openLedger(sqliteFile);
  const kernel = createKernel({ flows: await sampleFlows(), store: ledger, clock: steppingClock(), arbiter: scriptedArbiter() });
  const summary = await simulate(kernel, { ...HARSH_SCENARIO, runs: 3 }, { runPrefix: 'cli' });
  runIds = summary.runIds;
  await kernel.close();
});
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  for (const u of urls) await adminQuery(`DROP SCHEMA IF EXISTS ${schemaOf(u)} CASCADE`);
});

function files(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name === 'decisions.jsonl') out.set(path.relative(root, path.join(e.parentPath, e.name)), readFileSync(path.join(e.parentPath, e.name), 'utf8'));
  }
  return out;
}

describePostgres('the CLI on a PostgreSQL ledger', () => {
  it('migrates a SQLite ledger to PostgreSQL and back, verified, and every read command answers the same', async () => {
    const url = freshUrl();
    const m = await runCliHere(['migrate', '--from', sqliteFile, '--to', url]);
    expect(m.code, m.stderr + m.stdout).toBe(0);
    // The simulator routes each flow of its sequence as a run of its own.
    expect(m.stdout).toMatch(new RegExp(`copied ${runIds.length} run\\(s\\)`));
    expect(m.stdout).toMatch(/verify: ok/);
    expect(m.stdout + m.stderr).not.toMatch(/password/i);
    expect((await runCliHere(['verify', '--ledger', url])).code).toBe(0);
    for (const args of [['runs', '--json'], ...runIds.flatMap((r) => [['audit', r, '--json'], ['audit', r, '--why', 'build-step-3', '--json'], ['replay', r, '--flows', 'charters', '--json']])]) {
      const a = await runCliHere([...args, '--ledger', sqliteFile]);
      const b = await runCliHere([...args, '--ledger', url]);
      expect(b.code, `${args.join(' ')}: ${b.stderr}`).toBe(a.code);
      expect(b.stdout, args.join(' ')).toBe(a.stdout);
    }
    // NAVKERNEL_LEDGER selects it too
    expect((await runCliHere(['runs', '--json'], { NAVKERNEL_LEDGER: url })).stdout).toBe((await runCliHere(['runs', '--json', '--ledger', sqliteFile])).stdout);
    // and back to a new SQLite file
    const back = path.join(dir, 'back', 'ledger.sqlite');
    const m2 = await runCliHere(['migrate', '--from', url, '--to', back]);
    expect(m2.code, m2.stderr + m2.stdout).toBe(0);
    expect((await runCliHere(['runs', '--json', '--ledger', back])).stdout).toBe((await runCliHere(['runs', '--json', '--ledger', sqliteFile])).stdout);
    // a second migrate into a ledger that has runs is refused
    const again = await runCliHere(['migrate', '--from', sqliteFile, '--to', url]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(new RegExp(`already holds ${runIds.length} run`));
  }, 180_000); // a dozen CLI processes in a row: slow on a loaded machine, not a timing assertion

  it('exports decisions.jsonl from PostgreSQL byte for byte as the SQLite ledger wrote them', async () => {
    const url = freshUrl();
    expect((await runCliHere(['migrate', '--from', sqliteFile, '--to', url])).code).toBe(0);
    const out = path.join(dir, 'exported');
    for (const r of runIds) expect((await runCliHere(['export', r, '--jsonl', '--out', out, '--ledger', url])).code).toBe(0);
    const written = files(path.dirname(sqliteFile));
    const exported = files(out);
    expect(exported.size).toBeGreaterThan(0);
    expect([...exported.keys()].sort()).toEqual([...written.keys()].sort());
    for (const [k, v] of written) expect(exported.get(k), k).toBe(v);
    // to stdout, one flow: the file's bytes
    const [rel, text] = [...written][0]!;
    const [run, flow] = rel.split(path.sep);
    const printed = await runCliHere(['export', run!, '--jsonl', '--flow', flow!, '--ledger', url]);
    expect(printed.stdout).toBe(text);
    expect((await runCliHere(['export', 'no-such-run', '--jsonl', '--ledger', url])).code).not.toBe(0);
  });

  it('two `navkernel route` co-processes on one PostgreSQL ledger route one run alternately; verify passes', async () => {
    const url = freshUrl();
    const a = coProcess(['route', '--flows', path.join(ROOT, 'charters'), '--ledger', url]);
    const b = coProcess(['route', '--flows', path.join(ROOT, 'charters'), '--ledger', url]);
    const seqs: number[] = [];
    for (let i = 0; i < 10; i++) {
      const p = i % 2 === 0 ? a : b;
      // build-step-3 again and again (restart): LOOP, LOOP, then on at its cap.
      const line = await p.ask(JSON.stringify({ run_id: 'alt', flow: 'build', step_completed: 'build-step-3', agent: 'code-implementer', status: 'UNVERIFIED', forensics: { tests: { passed: 1, failed: 1 } }, iteration: { current: 1, max: 3 }, restart: { reason: 're-run' } }));
      const d = JSON.parse(line) as { seq?: number; error?: unknown };
      expect(d.error, line).toBeUndefined();
      seqs.push(d.seq!);
    }
    expect(await a.close()).toBe(0);
    expect(await b.close()).toBe(0);
    expect(seqs).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    const v = await runCliHere(['verify', '--ledger', url, '--json']);
    expect(v.code, v.stdout).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ ok: true, routes: 10 });
  });

  it('says which server it cannot reach, without the password', async () => {
    const r = await runCliHere(['runs', '--ledger', 'postgres://kern:hunter2@127.0.0.1:1/ledger']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/127\.0\.0\.1:1/);
    expect(r.stderr).not.toContain('hunter2');
  });
});
