// GET /v1/runs and GET /v1/stats answer what the former code computed (every run loaded, several queries per run,
// filtered, paged and bucketed in JS; kept in bench/runs-listing.ts) on the same ledger: the demo simulation (both
// scenarios) plus gate runs routed and resolved over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyRunsPage, legacyStats } from '../../bench/runs-listing.js';
import type { LedgerStats, RouteRequest, RunSummary, RunsPage } from '../../src/contracts/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { runCli } from '../support/cli.js';
import { post, routeAll, startServer, type TestServer } from './helpers.js';

const gateRun = (run_id: string): RouteRequest[] => [
  { run_id, flow: 'gate', step_completed: 'gate-receipts', status: 'VERIFIED' },
  { run_id, flow: 'gate', step_completed: 'gate-contracts', status: 'VERIFIED' },
  { run_id, flow: 'gate', step_completed: 'gate-security', status: 'VERIFIED' },
  { run_id, flow: 'gate', step_completed: 'gate-decide', status: 'HOLD' },
];

async function get<T>(s: TestServer, p: string): Promise<T> {
  const res = await fetch(s.base + p);
  expect(res.status, `${p}: ${res.status}`).toBe(200);
  return (await res.json()) as T;
}

describe('GET /v1/runs and /v1/stats on a demo ledger: the same answers as the former per-run computation', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
    for (const [scenario, prefix] of [['demo', 'd'], ['harsh', 'h']]) {
      const demo = runCli(['demo', '-q', '--scenario', scenario!, '--ledger', s.file, '--run-prefix', prefix!]);
      expect(demo.code, demo.stderr).toBe(0);
    }
    for (const id of ['gate-t', 'gate-l', 'gate-o']) await routeAll(s.base, gateRun(id));
    for (const [id, decision] of [['gate-t', 'TERMINATE'], ['gate-l', 'LOOP']] as const) {
      const run = await get<{ escalations: { escalation_id: string }[] }>(s, `/v1/runs/${id}`);
      const res = await post(s.base, `/v1/escalations/${encodeURIComponent(run.escalations[0]!.escalation_id)}/resolve`, { decision, by: 'ada', reason: 'test' });
      expect(res.status, await res.clone().text()).toBe(200);
    }
  });
  afterAll(async () => {
    await s?.close();
  });

  /** The former answer, read by a second connection to the same file. */
  async function before<T>(fn: (l: ReturnType<typeof openLedger>) => Promise<T>): Promise<T> {
    const l = openLedger(s.file, { create: false, jsonl: false });
    try {
      return await fn(l);
    } finally {
      await l.close();
    }
  }

  const filters: Record<string, string>[] = [
    {},
    { status: 'active' },
    { status: 'escalated' },
    { status: 'terminated' },
    { flow: 'rebase' },
    { flow: 'gate' },
    { flow: 'nope' },
    { has_open_escalation: 'true' },
    { has_open_escalation: 'false' },
    { status: 'terminated', flow: 'gate', has_open_escalation: 'false' },
  ];

  it('every page, under every filter, is the page the former code gave at the same position, with the same total', async () => {
    const all = await before((l) => legacyRunsPage(l, { limit: 500 }));
    // The simulator routes each flow of its sequence as a run of its own: more runs than work items.
    expect(all.total).toBe(all.runs.length);
    expect(all.total).toBeGreaterThan(6 + 6 + 3);
    const byId = new Map(all.runs.map((r) => [r.run_id, r]));
    expect(byId.get('gate-t')).toMatchObject({ status: 'terminated', last_decision: 'ESCALATE' });
    expect(byId.get('gate-l')).toMatchObject({ status: 'active', last_decision: 'ESCALATE' });
    expect(byId.get('gate-o')).toMatchObject({ status: 'escalated', open_escalations: 1 });
    for (const f of filters) {
      for (const limit of [1, 4, 50]) {
        const q = new URLSearchParams({ ...f, limit: String(limit) });
        const expected = await before((l) =>
          legacyRunsPage(l, {
            limit: 500,
            ...(f.status ? { status: f.status } : {}),
            ...(f.flow ? { flow: f.flow } : {}),
            ...(f.has_open_escalation ? { has_open_escalation: f.has_open_escalation === 'true' } : {}),
          }),
        );
        const seen: RunSummary[] = [];
        for (let page = 0; ; page++) {
          const got = await get<RunsPage>(s, `/v1/runs?${q}`);
          expect(got.total, `${q}`).toBe(expected.total);
          expect(got.runs, `${q}`).toEqual(expected.runs.slice(page * limit, (page + 1) * limit));
          seen.push(...got.runs);
          if (got.next_cursor === null) break;
          q.set('cursor', got.next_cursor);
        }
        expect(seen).toEqual(expected.runs);
      }
    }
    // Each status and the injected flow select some runs and leave others out (the comparison above says something).
    for (const f of filters.slice(1, 5)) {
      const n = (await get<RunsPage>(s, `/v1/runs?${new URLSearchParams(f)}`)).total;
      expect(n, JSON.stringify(f)).toBeGreaterThan(0);
      expect(n, JSON.stringify(f)).toBeLessThan(all.total);
    }
  });

  it('reads a cursor of digits as an offset, as cursors were before, and refuses a cursor it did not give', async () => {
    for (const offset of [0, 3, 14, 15, 40]) {
      const got = await get<RunsPage>(s, `/v1/runs?limit=4&cursor=${offset}`);
      const expected = await before((l) => legacyRunsPage(l, { limit: 4, offset }));
      expect(got.runs).toEqual(expected.runs);
      expect(got.total).toBe(expected.total);
      expect(got.next_cursor === null).toBe(expected.next_cursor === null);
    }
    for (const bad of ['abc', 'W10', Buffer.from('{"a":1}').toString('base64url'), '1.5', '-1', '%20']) {
      const res = await fetch(`${s.base}/v1/runs?cursor=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('INVALID_REQUEST');
    }
  });

  it('GET /v1/stats: the same counts, buckets and totals (USD sums up to rounding)', async () => {
    const got = await get<LedgerStats>(s, '/v1/stats');
    const expected = await before((l) => legacyStats(l));
    expect(expected.routes).toBeGreaterThan(100);
    expect(expected.cost_over_time.some((b) => b.usd > 0)).toBe(true);
    const strip = (x: LedgerStats) => ({ ...x, cost_over_time: x.cost_over_time.map((b) => ({ ...b, usd: 0 })) });
    expect(strip(got)).toEqual(strip(expected));
    got.cost_over_time.forEach((b, i) => expect(b.usd).toBeCloseTo(expected.cost_over_time[i]!.usd, 9));
  });
});
