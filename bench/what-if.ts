// `navkernel flows what-if` speed: builds a SQLite ledger of N recorded routes of a small review flow, then replays
// every run against a candidate that lowers the review loop's cap (what-if, recorded answers), and prints
// decisions/s beside the rate the same routes were recorded at. A section of `npm run bench` (200,000 routes; 20,000
// with --quick), and alone: node dist/bench/what-if.js [ROUTES] [THREADS] (default 1,000,000). The ledger is built in
// one process, 20,000 routes per transaction, jsonl off; it is deleted at the end.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FlowInput, RouteRequest } from '../src/contracts/index.js';
import { createKernel, defineFlows } from '../src/kernel/index.js';
import { openLedger } from '../src/ledger/index.js';
import { whatIf } from '../src/runs/what-if.js';
import { routeInTransaction } from './long-run.js';
import { table, type BenchSection } from './stats.js';

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

export interface WhatIfFigures {
  routes: number;
  runs: number;
  build_s: number;
  record_per_s: number;
  ledger_mb: number;
  threads: number;
  what_if_s: number;
  what_if_per_s: number;
  changed_decisions: number;
  changed_runs: number;
}

/** Records `target` routes, then asks what the candidate would change, on `threads` worker threads. */
export async function measureWhatIf(target: number, threads: number): Promise<WhatIfFigures> {
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
    const build_s = Number(process.hrtime.bigint() - t0) / 1e9;
    const ledger_mb = statSync(file).size / 1e6;
    const reader = openLedger(file, { create: false, jsonl: false });
    t0 = process.hrtime.bigint();
    const report = await whatIf(reader, defineFlows([CANDIDATE]), { open: file, threads });
    const what_if_s = Number(process.hrtime.bigint() - t0) / 1e9;
    await reader.close();
    return {
      routes,
      runs,
      build_s,
      record_per_s: routes / build_s,
      ledger_mb,
      threads,
      what_if_s,
      what_if_per_s: report.decisions / what_if_s,
      changed_decisions: report.changed_decisions,
      changed_runs: report.changed_runs,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The bench section: what-if's decisions/s against the rate the same routes were recorded at. */
export async function benchWhatIf(opts: { quick: boolean }): Promise<BenchSection> {
  const threads = Math.max(1, Math.min(2, os.availableParallelism()));
  const f = await measureWhatIf(opts.quick ? 20_000 : 200_000, threads);
  const body = [
    `A SQLite ledger of ${f.routes.toLocaleString('en')} recorded routes (${f.runs.toLocaleString('en')} runs of a four-step review flow, every fifth looping once), then \`flows what-if\` with a candidate that lowers the loop's cap, on ${f.threads} worker thread(s). For reference, the rate the same routes were recorded at live.`,
    '',
    table(
      ['', 'seconds', 'per second', 'ratio'],
      [
        ['record (kernel.route, one transaction per 20,000)', f.build_s.toFixed(2), `${Math.round(f.record_per_s).toLocaleString('en')} routes`, '1.00×'],
        ['what-if (re-route every run on the candidate)', f.what_if_s.toFixed(2), `${Math.round(f.what_if_per_s).toLocaleString('en')} decisions`, `${(f.what_if_per_s / f.record_per_s).toFixed(2)}×`],
      ],
    ),
    '',
    `${f.changed_decisions.toLocaleString('en')} decisions would change, in ${f.changed_runs.toLocaleString('en')} runs; the ledger is ${f.ledger_mb.toFixed(0)} MB. For a million routes: \`node dist/bench/what-if.js 1000000\`.`,
  ].join('\n');
  return {
    title: 'What-if over a recorded ledger',
    body,
    figures: { routes: f.routes, record_per_s: f.record_per_s, what_if_per_s: f.what_if_per_s, what_if_vs_record: f.what_if_per_s / f.record_per_s, changed_decisions: f.changed_decisions },
  };
}

async function main(): Promise<void> {
  const target = Number(process.argv[2] ?? 1_000_000);
  const threads = Number(process.argv[3] ?? os.availableParallelism());
  const f = await measureWhatIf(target, threads);
  console.log(`built ${f.routes} routes in ${f.runs} runs: ${f.build_s.toFixed(1)} s (${Math.round(f.record_per_s)} routes/s), ${f.ledger_mb.toFixed(0)} MB`);
  console.log(
    `what-if over ${f.routes} recorded decisions (${f.runs} runs, ${threads} thread(s)): ${f.what_if_s.toFixed(1)} s, ${Math.round(f.what_if_per_s)} decisions/s; ` +
      `${f.changed_decisions} would change in ${f.changed_runs} runs`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
