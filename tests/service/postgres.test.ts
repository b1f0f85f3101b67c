// The service over the PostgreSQL ledger (the vitest global setup's throwaway server): the same API, the same
// answers; the URL's password never shows in what the server answers.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadFlows } from '../../src/kernel/index.js';
import { openLedgerAt } from '../../src/ledger/index.js';
import { createService, serviceLedger, type Service } from '../../src/service/index.js';
import { CHARTERS } from '../support/kernel-fixtures.js';
import { describePostgres, freshSchemaUrl } from '../support/postgres.js';
import { BUILD_RUN, GATE_RUN, post, routeAll, steppingClock } from './helpers.js';

describePostgres('navkernel serve on a PostgreSQL ledger', () => {
  let service: Service;
  let base: string;
  let url: string;
  beforeAll(async () => {
    url = freshSchemaUrl('serve');
    const ledger = openLedgerAt(url, { create: true });
    service = createService({ flows: await loadFlows(CHARTERS), ledger: serviceLedger(ledger), clock: steppingClock() });
    base = await service.listen('127.0.0.1', 0);
    await routeAll(base, BUILD_RUN);
    await routeAll(base, GATE_RUN);
  });
  afterAll(async () => {
    await service?.close();
  });

  it('routes, lists, shows, audits, replays, resolves and verifies', async () => {
    const runs = (await (await fetch(`${base}/v1/runs`)).json()) as { runs: { run_id: string; status: string }[] };
    expect(runs.runs.map((r) => [r.run_id, r.status])).toEqual([
      ['build-1', 'active'],
      ['gate-1', 'escalated'],
    ]);
    const run = (await (await fetch(`${base}/v1/runs/build-1`)).json()) as { decisions: { decision: { decision: string } }[] };
    expect(run.decisions.map((d) => d.decision.decision)).toEqual(['CONTINUE', 'CONTINUE', 'LOOP', 'LOOP', 'CONTINUE']);
    const audit = (await (await fetch(`${base}/v1/runs/build-1/audit`)).json()) as { steps: { step: string; loops: number }[] };
    expect(audit.steps.find((s) => s.step === 'build-step-3')?.loops).toBe(2);
    const replay = (await (await fetch(`${base}/v1/runs/build-1/replay`, { method: 'POST' })).json()) as { identical: boolean };
    expect(replay.identical).toBe(true);
    const bad = await post(base, '/v1/escalations/esc-gate-1-4/resolve', { decision: 'CONTINUE', next: 'deploy-done', by: 'ana', reason: 'x' });
    expect(bad.status).toBe(422);
    const ok = await post(base, '/v1/escalations/esc-gate-1-4/resolve', { decision: 'CONTINUE', next: 'gate-done', by: 'ana', reason: 'checked' });
    expect(ok.status).toBe(200);
    const verify = (await (await fetch(`${base}/v1/verify`)).json()) as { ok: boolean; issues: unknown[] };
    expect(verify.issues).toEqual([]);
    expect(verify.ok).toBe(true);
    const unknown = await fetch(`${base}/v1/runs/nope`);
    expect(unknown.status).toBe(404);
  });

  it('says where the ledger is without its password', async () => {
    const health = (await (await fetch(`${base}/v1/healthz`)).json()) as { ledger: string };
    const password = new URL(url).password;
    expect(health.ledger).toMatch(/^postgres(ql)?:\/\//);
    if (password) expect(health.ledger).not.toContain(password);
  });
});
