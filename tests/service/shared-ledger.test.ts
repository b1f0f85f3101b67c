// Several `serve` processes may share one SQLite ledger: different runs route side by side; a run routed by two
// servers in turn keeps one gapless sequence (a stale server answers LEDGER_CONFLICT or re-routes, never forks).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startServer, type TestServer } from './helpers.js';

describe('two servers on one ledger file', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startServer();
    b = await startServer({ file: a.file });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  const step = (run: string, s: string) => ({ run_id: run, flow: 'build', step_completed: s, status: 'VERIFIED' });

  it('routes different runs on each, and both see every run', async () => {
    expect((await post(a.base, '/v1/route', step('on-a', 'build-step-1'))).status).toBe(200);
    expect((await post(b.base, '/v1/route', step('on-b', 'build-step-1'))).status).toBe(200);
    for (const s of [a, b]) {
      const runs = (await (await fetch(`${s.base}/v1/runs`)).json()) as { runs: { run_id: string }[] };
      expect(runs.runs.map((r) => r.run_id).sort()).toEqual(['on-a', 'on-b']);
    }
  });

  it('a run moved between servers keeps one sequence; the ledger verifies', async () => {
    const seqs: number[] = [];
    const route = async (s: TestServer, stepId: string) => {
      let res = await post(s.base, '/v1/route', step('moved', stepId));
      if (res.status === 409) {
        const p = (await res.json()) as { code: string };
        expect(p.code).toBe('LEDGER_CONFLICT');
        res = await post(s.base, '/v1/route', step('moved', stepId));
      }
      expect(res.status).toBe(200);
      seqs.push(((await res.json()) as { seq: number }).seq);
    };
    await route(a, 'build-step-1');
    await route(b, 'build-step-2');
    await route(a, 'build-step-3');
    await route(b, 'build-review');
    expect(seqs).toEqual([1, 2, 3, 4]);
    const v = (await (await fetch(`${a.base}/v1/verify`)).json()) as { ok: boolean };
    expect(v.ok).toBe(true);
  });
});
