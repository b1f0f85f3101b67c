import path from 'node:path';
import type { RouteRequest } from '../src/contracts/index.js';
import { createKernel, loadFlows } from '../src/kernel/index.js';
import { packageRoot } from '../src/package-root.js';
import { measure, table, type BenchSection } from './stats.js';

/** Requests that tier 1 decides (a linear step reporting VERIFIED), spread over `runs` live runs. */
function tier1Requests(n: number, runs: number): RouteRequest[] {
  // The runner re-runs build-step-1 (restart), 5 times per run at most: each route sends the run to build-step-2,
  // whose max_visits is 6 (a 7th would escalate and the run wait for a person: docs/run-states.md).
  return Array.from({ length: n }, (_, i) => ({ run_id: `t1-${i % runs}-${Math.floor(i / (runs * 5))}`, flow: 'build', step_completed: 'build-step-1', agent: 'test-author', status: 'VERIFIED', forensics: { tests: { passed: 40, failed: 0 } }, restart: { reason: 'bench' } }));
}

/** Requests that tier 2 decides (a microloop that has not met its exit: LOOP, then CONTINUE at the cap). */
function tier2Requests(n: number, runs: number): RouteRequest[] {
  return Array.from({ length: n }, (_, i) => ({
    // Two LOOPs per run: the third report, at the cap with a HIGH concern open, would escalate (a person's turn).
    run_id: `t2-${i % runs}-${Math.floor(i / (runs * 2))}`,
    flow: 'build',
    step_completed: 'build-step-3',
    agent: 'code-implementer',
    status: 'UNVERIFIED',
    forensics: { tests: { passed: 40, failed: 2 }, lint: { errors: 0 }, concerns: [{ severity: 'HIGH', description: 'Missing error handling' }] },
    iteration: { current: 1, max: 3 },
  }));
}

/** route() throughput and latency for tier-1 and tier-2 decisions, with and without input validation, in memory. */
export async function benchKernel(opts: { quick: boolean }): Promise<BenchSection> {
  const flows = await loadFlows(path.join(packageRoot(), 'charters'));
  const n = opts.quick ? 5_000 : 200_000;
  const runs = 1_000;
  const rows: (string | number)[][] = [];
  const figures: Record<string, number> = {};
  for (const [tier, make] of [
    ['tier 1 (fast path)', tier1Requests],
    ['tier 2 (microloop / cap)', tier2Requests],
  ] as const) {
    for (const validate of [true, false]) {
      const requests = make(n, runs);
      const kernel = createKernel({ flows, validate });
      // Warm up the JIT and the live actors on runs of their own (a run's bounds hold: docs/run-states.md), then measure.
      for (const r of make(Math.min(n, 20_000), runs)) await kernel.route({ ...r, run_id: `warm-${r.run_id}` });
      const m = await measure(n, (i) => kernel.route(requests[i]!));
      await kernel.close();
      rows.push([tier, validate ? 'yes' : 'no', m.perSecond, m.p50, m.p99]);
      const key = `${tier.startsWith('tier 1') ? 't1' : 't2'}_${validate ? 'validated' : 'raw'}`;
      figures[`${key}_per_s`] = m.perSecond;
      figures[`${key}_p50_us`] = m.p50;
      figures[`${key}_p99_us`] = m.p99;
    }
  }
  const body = [
    `${n.toLocaleString('en-US')} routes per row over ${runs} live runs, in memory (no ledger), one process, awaited one at a time.`,
    '',
    table(['decisions', 'validated', 'routes/s', 'p50 µs', 'p99 µs'], rows),
    '',
    'Goal (issue 2): at least 100,000 tier-1/2 routes per second on one core with validation.',
  ].join('\n');
  return { title: 'Routing kernel: route() throughput', body, figures };
}
