// The runner's loop without a second process per step: a route request names its report files (`reports`), and
// the co-process (`navkernel route --reports-root DIR`) and `navkernel serve` read them under that root; paths
// outside it are refused, and a bad report is an error line / problem while the transport keeps serving.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coProcess } from '../support/cli.js';
import { CHARTERS, ROOT } from '../support/kernel-fixtures.js';
import { post, startServer } from '../service/helpers.js';

let dir: string;
let root: string;
const step = (run: string, current: number, reports: unknown) => ({ run_id: run, flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', iteration: { current }, reports });

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'navkernel-handover-'));
  root = path.join(dir, 'root');
  // A TypeScript project importing a module that is not there: tsc writes the report (TS2307: missing_import).
  const ts = path.join(root, 'proj');
  mkdirSync(path.join(ts, 'src'), { recursive: true });
  writeFileSync(path.join(ts, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', types: [] }, include: ['src'] }));
  writeFileSync(path.join(ts, 'src', 'a.ts'), "import { gone } from './gone.js';\nexport { gone };\n");
  const out = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', '.', '--pretty', 'false'], { cwd: ts, encoding: 'utf8' });
  mkdirSync(path.join(root, 'reports'));
  writeFileSync(path.join(root, 'reports', 'tsc.txt'), out.stdout);
  expect(out.stdout).toContain('error TS2307');
  writeFileSync(path.join(dir, 'outside.txt'), out.stdout);
  symlinkSync(path.join(dir, 'outside.txt'), path.join(root, 'reports', 'link.txt'));
  writeFileSync(path.join(root, 'reports', 'bomb.xml'), '<!DOCTYPE x [<!ENTITY a "aaaa">]><testsuite>&a;</testsuite>');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reports named in a route request', () => {
  it('the co-process reads them under --reports-root: the second sighting DETOURs to import-fixer', async () => {
    const co = coProcess(['route', '--flows', CHARTERS, '--no-ledger', '--reports-root', root]);
    try {
      const reports = { files: ['reports/tsc.txt'] };
      const first = JSON.parse(await co.ask(JSON.stringify(step('co-1', 1, reports))));
      expect(first.decision).not.toBe('DETOUR');
      expect(JSON.parse(await co.ask(JSON.stringify(step('co-1', 2, reports))))).toMatchObject({ decision: 'DETOUR', rule: 'signature_detour', detour_target: 'import-fixer' });
      // Outside the root: by `..`, by an absolute path, through a symbolic link. Each refused; the co-process goes on.
      for (const files of [['../outside.txt'], [path.join(dir, 'outside.txt')], ['reports/link.txt']]) {
        const answer = JSON.parse(await co.ask(JSON.stringify(step('co-2', 1, { files }))));
        expect(answer.error).toMatchObject({ code: 'INVALID_REPORT' });
        expect(answer.error.message).toMatch(/outside the reports root/);
        expect(answer.error.message).not.toContain(root);
      }
      const bomb = JSON.parse(await co.ask(JSON.stringify(step('co-3', 1, { files: ['reports/bomb.xml'] }))));
      expect(bomb.error).toMatchObject({ code: 'INVALID_REPORT' });
      expect(bomb.error.message).toMatch(/^reports\/bomb\.xml: line 1: a DOCTYPE or ENTITY declaration: refused/);
      const missing = JSON.parse(await co.ask(JSON.stringify(step('co-3', 1, { files: ['reports/none.xml'] }))));
      expect(missing.error.message).toMatch(/reports\/none\.xml: no such file under the reports root/);
      const shape = JSON.parse(await co.ask(JSON.stringify(step('co-3', 1, { files: 'reports/tsc.txt' }))));
      expect(shape.error).toMatchObject({ code: 'INVALID_FORENSICS', path: ['reports', 'files'] });
      // Still serving, and the request's own measurements win over the report's.
      const own = JSON.parse(await co.ask(JSON.stringify({ ...step('co-4', 1, { files: ['reports/tsc.txt'] }), forensics: { failure_signature: 'lint_errors' } })));
      expect(own.decision).toBeDefined();
    } finally {
      await co.close();
    }
  }, 60_000);

  it('without --reports-root a request naming reports is refused, not silently routed', async () => {
    const co = coProcess(['route', '--flows', CHARTERS, '--no-ledger']);
    try {
      const answer = JSON.parse(await co.ask(JSON.stringify(step('co-5', 1, { files: ['reports/tsc.txt'] }))));
      expect(answer.error).toMatchObject({ code: 'INVALID_REPORT' });
      expect(answer.error.message).toMatch(/--reports-root/);
    } finally {
      await co.close();
    }
  }, 30_000);

  it('the Python client: with_reports through the co-process, collect_forensics through the CLI', () => {
    const script = `
import json, sys
from navkernel_client import CoProcess, NavkernelError, collect_forensics, with_reports
node, bin, charters, root = sys.argv[1:5]
step = {"run_id": "py-1", "flow": "build", "step_completed": "build-step-3", "status": "UNVERIFIED"}
with CoProcess([node, bin, "route", "--flows", charters, "--no-ledger", "--reports-root", root]) as co:
    co.route(with_reports(dict(step, iteration={"current": 1}), ["reports/tsc.txt"]))
    second = co.route(with_reports(dict(step, iteration={"current": 2}), ["reports/tsc.txt"]))
    try:
        co.route(with_reports(step, ["../outside.txt"]))
        refused = None
    except NavkernelError as e:
        refused = e.code
f = collect_forensics([root + "/reports/tsc.txt"], command=[node, bin, "forensics"])
try:
    collect_forensics([root + "/reports/bomb.xml"], command=[node, bin, "forensics"])
    bomb = None
except NavkernelError as e:
    bomb = e.code
print(json.dumps({"second": second["decision"], "target": second.get("detour_target"), "refused": refused, "signature": f.get("failure_signature"), "bomb": bomb}))
`;
    const r = spawnSync('python3', ['-c', script, process.execPath, path.join(ROOT, 'bin', 'navkernel.js'), CHARTERS, root], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: path.join(ROOT, 'clients', 'python') }, timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ second: 'DETOUR', target: 'import-fixer', refused: 'INVALID_REPORT', signature: 'missing_import', bomb: 'INVALID_REPORT' });
  }, 60_000);

  it('serve reads them under its reports root; a refused path is a 422 problem and the server keeps serving', async () => {
    const s = await startServer({ reportsRoot: root });
    try {
      const reports = { files: ['reports/tsc.txt'] };
      expect((await post(s.base, '/v1/route', step('http-1', 1, reports))).status).toBe(200);
      const second = await post(s.base, '/v1/route', step('http-1', 2, reports));
      expect(await second.json()).toMatchObject({ decision: 'DETOUR', detour_target: 'import-fixer' });
      const refused = await post(s.base, '/v1/route', step('http-2', 1, { files: ['../outside.txt'] }));
      expect(refused.status).toBe(422);
      expect(await refused.json()).toMatchObject({ code: 'INVALID_REPORT' });
      expect((await post(s.base, '/v1/route', step('http-3', 1, reports))).status).toBe(200);
      // What was recorded: the forensics read from the report, not the file names to read again.
      const db = new Database(s.file, { readonly: true });
      const row = db.prepare("select request from routes where run_id = 'http-1' and seq = 1").get() as { request: string };
      db.close();
      const recorded = JSON.parse(row.request) as { forensics: { failure_signature: string }; reports?: unknown };
      expect(recorded.forensics.failure_signature).toBe('missing_import');
      expect(recorded.reports).toBeUndefined();
    } finally {
      await s.close();
      rmSync(s.dir, { recursive: true, force: true });
    }
  }, 60_000);
});
