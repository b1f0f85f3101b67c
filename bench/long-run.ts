// A flow whose runs can be as long as wanted, its requests, and routing in one outer transaction: shared by the
// scaling and replay sections and the live-runs memory child (kept light: no navigator, no charts).
import type { RouteRequest } from '../src/contracts/index.js';
import { defineFlows, type FlowSet } from '../src/kernel/index.js';
import type { SqliteLedger } from '../src/ledger/index.js';
import { ledgerSql } from '../src/ledger/sqlite-ledger.js';

/** Routes `reqs` with the ledger inside one outer transaction (the ledger's own transactions nest as savepoints). */
export async function routeInTransaction(ledger: SqliteLedger, route: (r: RouteRequest) => Promise<unknown>, reqs: Iterable<RouteRequest>): Promise<number> {
  let n = 0;
  ledgerSql(ledger).db.exec('BEGIN');
  try {
    for (const r of reqs) {
      await route(r);
      n++;
    }
    ledgerSql(ledger).db.exec('COMMIT');
  } catch (e) {
    if (ledgerSql(ledger).db.inTransaction) ledgerSql(ledger).db.exec('ROLLBACK');
    throw e;
  }
  return n;
}

/** A flow whose runs can be as long as wanted: work (microloop) → check → work again, or finish. */
export const LONG_FLOWS: FlowSet = defineFlows([
  {
    flow: 'long',
    charter: { goal: 'Keep working until the checker is satisfied', non_goals: [], key_question: 'Is the work done?' },
    steps: [
      { id: 'work', agent: 'worker', next: 'check', loop: { to: 'work', max_iterations: 3, exit_when: ['VERIFIED'] } },
      { id: 'check', agent: 'checker', branches: { AGAIN: 'work', DONE: 'finish' }, next: 'finish' },
      { id: 'finish', agent: 'reporter', terminal: true },
    ],
    // A run as long as the bench wants: the flow states bounds far above it (docs/run-states.md).
    bounds: { max_visits: 1_000_000_000, max_routes: 1_000_000_000 },
  },
]);

export function* longRun(run_id: string, routes: number): Generator<RouteRequest> {
  const base = { run_id, flow: 'long' } as const;
  for (let i = 0; i < routes; i++) {
    const k = i % 3;
    if (k === 0) yield { ...base, step_completed: 'work', agent: 'worker', status: 'UNVERIFIED', forensics: { tests: { passed: 3, failed: 1 } }, iteration: { current: 1, max: 3 } };
    else if (k === 1) yield { ...base, step_completed: 'work', agent: 'worker', status: 'VERIFIED', forensics: { tests: { passed: 4, failed: 0 } }, iteration: { current: 2, max: 3 } };
    else yield { ...base, step_completed: 'check', agent: 'checker', status: i === routes - 1 ? 'DONE' : 'AGAIN' };
  }
}
