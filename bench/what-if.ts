// `navkernel flows what-if` speed: builds a SQLite ledger of N recorded routes (default 1,000,000) of a small review
// flow, then replays every run against a candidate that lowers the review loop's cap (what-if, recorded answers),
// and prints routes/s. Usage: node dist/bench/what-if.js [ROUTES] [THREADS]. The ledger is built in one process,
// 20,000 routes per transaction, jsonl off; it is deleted at the end.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FlowInput, RouteRequest } from '../src/contracts/index.js';
import { createKernel, defineFlows } from '../src/kernel/index.js';
import { openLedger } from '../src/ledger/index.js';
import { whatIf } from '../src/runs/what-if.js';
import { routeInTransaction } from './long-run.js';

const FLOW: FlowInput = {
  flow: 'ship',
  charter: { goal: 'Ship a post', key_question: 'Is it ready to publish?' },
  steps: [
    { id: 'draft', agent: 'writer', next: 'review' },
    { id: 'review', agent: 'editor', next: 'polish', loop: { to: 'draft', max_iterations: 4, exit_when: ['APPROVED'] } },
    { id: 'polish', agent: 'writer', next: 'publish' },
    { id: 'publish', agent: 'publisher', terminal: true },
  ],
};
const CANDIDATE: FlowInput = { ...FLOW, steps: FLOW.steps.map((s) => (s.id === 'review' ? { ...s, loop: { ...s.loop!, max_iterations: 1 } } : s)) };

/** One run's requests: 4 routes straight, or (every 5th run) 6 routes with one loop back from review. */
function* runRequests(i: number): Generator<RouteRequest> {
  const run_id = `r-${i}`;
  const r = (step: string, status: string): RouteRequest => ({ run_id, flow: 'ship', step_completed: step, status });
  yield r('draft', 'SUCCEEDED');
  if (i % 5 === 0) {
    yield r('review', 'REJECTED');
    yield r('draft', 'SUCCEEDED');
  }
  yield r('review', 'APPROVED');
  yield r('polish', 'SUCCEEDED');
  yield r('publish', 'DONE');
}

async function main(): Promise<void> {
  const target = Number(process.argv[2] ?? 1_000_000);
  const threads = Number(process.argv[3] ?? os.availableParallelism());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nk-what-if-'));
  try {
    const file = path.join(dir, 'ledger.sqlite');
    const ledger = openLedger(file, { jsonl: false });
    const kernel = createKernel({ flows: defineFlows([FLOW]), store: ledger, validate: false });
    let t0 = process.hrtime.bigint();
    let routes = 0;
    let runs = 0;
    while (routes < target) {
      const batch: RouteRequest[] = [];
      while (batch.length < 20_000 && routes + batch.length < target) batch.push(...runRequests(runs++));
      routes += await routeInTransaction(ledger, (r) => kernel.route(r), batch);
    }
    await kernel.close();
    const buildS = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(`built ${routes} routes in ${runs} runs: ${buildS.toFixed(1)} s (${Math.round(routes / buildS)} routes/s), ${(statSync(file).size / 1e6).toFixed(0)} MB`);
    const reader = openLedger(file, { create: false, jsonl: false });
    t0 = process.hrtime.bigint();
    const report = await whatIf(reader, defineFlows([CANDIDATE]), { open: file, threads });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    await reader.close();
    console.log(
      `what-if over ${report.decisions} recorded decisions (${report.runs} runs, ${threads} thread(s)): ${s.toFixed(1)} s, ${Math.round(report.decisions / s)} decisions/s; ` +
        `${report.changed_decisions} would change (${(report.changed_share * 100).toFixed(1)}%) in ${report.changed_runs} runs, ${report.changes.length} group(s)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
