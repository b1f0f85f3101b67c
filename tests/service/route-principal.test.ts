// Routes sent through `navkernel serve` are recorded as sent by the principal their bearer token belongs to (issue
// 26.2), over real HTTP on a real SQLite file: the run page, the audit, the event stream and verify all see it, and
// an edit of the recorded name in the database fails verify. (Both stores: tests/ledger/principal.test.ts.)
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport, RunDetail, VerifyReport } from '../../src/contracts/index.js';
import { createPrincipalDirectory } from '../../src/service/index.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';
import { BUILD_RUN, GATE_RUN, routeAll, startServer, type TestServer } from './helpers.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const TOKENS = { 'runner-a': 'tok-runner-a-0123456789abcdef', auditor: 'tok-auditor-0123456789abcdef' };
const bearer = (name: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[name]}` });

/** Reads the event stream until its first `decision` event and gives that event's data. */
async function firstDecisionEvent(url: string, headers: Record<string, string>, routeMeanwhile: () => Promise<unknown>): Promise<Record<string, unknown>> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  expect(res.status).toBe(200);
  await routeMeanwhile();
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const m = /event: decision\ndata: (.*)\n\n/.exec(text);
      if (m) return JSON.parse(m[1]!) as Record<string, unknown>;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
    controller.abort();
  }
  throw new Error(`the stream ended without a decision event: ${text}`);
}

describe('serve records the principal that sent each route', () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('nk-route-principal-');
    const file = path.join(dir, 'tokens.yaml');
    writeFileSync(
      file,
      `principals:\n  - name: runner-a\n    scopes: [route]\n    token_sha256: ${sha(TOKENS['runner-a'])}\n  - name: auditor\n    scopes: [read]\n    token_sha256: ${sha(TOKENS.auditor)}\n`,
    );
    s = await startServer({ principals: createPrincipalDirectory({ tokensFile: file }) });
    await routeAll(s.base, BUILD_RUN, bearer('runner-a'));
  });
  afterAll(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the principal on each decision of GET /v1/runs/:id, in the audit (by runner-a) and on the event stream', async () => {
    const run = (await (await fetch(`${s.base}/v1/runs/build-1`, { headers: bearer('auditor') })).json()) as RunDetail;
    expect(run.decisions.map((d) => d.principal)).toEqual(['runner-a', 'runner-a', 'runner-a', 'runner-a', 'runner-a']);
    const audit = (await (await fetch(`${s.base}/v1/runs/build-1/audit`, { headers: bearer('auditor') })).json()) as AuditReport;
    expect(audit.routed_by).toEqual([{ principal: 'runner-a', routes: 5 }]);
    expect(audit.offroad.map((e) => [e.decision, e.principal])).toEqual([
      ['LOOP', 'runner-a'],
      ['LOOP', 'runner-a'],
    ]);
    const text = runCli(['audit', 'build-1', '--ledger', s.file]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('routed by runner-a (5 routes)');
    expect(text.stdout).toMatch(/#3 .*LOOP .*\(by runner-a\)/);
    const event = await firstDecisionEvent(`${s.base}/v1/events?run=gate-1`, bearer('auditor'), () => routeAll(s.base, GATE_RUN.slice(0, 1), bearer('runner-a')));
    expect(event).toMatchObject({ run_id: 'gate-1', seq: 1, principal: 'runner-a' });
  });

  it('verify passes, and an UPDATE of routes.principal fails it naming the run and seq', async () => {
    expect(((await (await fetch(`${s.base}/v1/verify`, { headers: bearer('auditor') })).json()) as VerifyReport).issues).toEqual([]);
    const clean = runCli(['verify', '--ledger', s.file]);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    const db = new Database(s.file);
    db.prepare("UPDATE routes SET principal = 'runner-b' WHERE run_id = 'build-1' AND seq = 3").run();
    db.close();
    const cli = runCli(['verify', '--ledger', s.file]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain('BAD run build-1 seq 3: hash_mismatch: row content does not match its hash: principal edited after it was written');
    const report = (await (await fetch(`${s.base}/v1/verify`, { headers: bearer('auditor') })).json()) as VerifyReport;
    expect(report.ok).toBe(false);
    expect(report.issues).toEqual([expect.objectContaining({ run_id: 'build-1', seq: 3, field: 'principal' })]);
  });
});

describe('what serve records without per-person tokens', () => {
  it('the single --token records its principal `shared-token`; a server without a token records none', async () => {
    const shared = await startServer({ token: 'one-shared-token-0123456789' });
    try {
      await routeAll(shared.base, BUILD_RUN.slice(0, 2), { authorization: 'Bearer one-shared-token-0123456789' });
      const run = (await (await fetch(`${shared.base}/v1/runs/build-1`, { headers: { authorization: 'Bearer one-shared-token-0123456789' } })).json()) as RunDetail;
      expect(run.decisions.map((d) => d.principal)).toEqual(['shared-token', 'shared-token']);
    } finally {
      await shared.close();
    }
    const open = await startServer();
    try {
      await routeAll(open.base, BUILD_RUN.slice(0, 2));
      const run = (await (await fetch(`${open.base}/v1/runs/build-1`)).json()) as RunDetail;
      expect(run.decisions.map((d) => d.principal)).toEqual([null, null]);
      const audit = (await (await fetch(`${open.base}/v1/runs/build-1/audit`)).json()) as AuditReport;
      expect(audit.routed_by).toBeUndefined();
    } finally {
      await open.close();
    }
  });
});
