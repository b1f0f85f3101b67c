// A flow runner in its own process, for the crash harness (`npm run crash`) and the concurrency and crash tests
// (tests/ledger/processes.test.ts, tests/postgres/processes.test.ts). Run from dist/ by node.
//   node child.js simulate LEDGER PREFIX RUNS      → routes a simulated scenario; prints {"routes":n}
//   node child.js resume LEDGER REQUESTS.json      → continues a recorded request list (one run or several,
//                                                    interleaved) from each run's last seq, printing
//                                                    "ACK <request_id> <decision>" after each route, then "DONE"
//   node child.js hammer LEDGER RUN PREFIX N [FROM] → routes requests PREFIX-FROM … PREFIX-(N-1) of one run that
//                                                    other processes route too, printing "ACK <id> <decision>",
//                                                    then "DONE"
//   node child.js steady LEDGER PREFIX RUNS N      → routes N requests to each of RUNS runs (round robin), retrying a
//                                                    request (same request_id) while the store is unavailable (a
//                                                    failover), printing "ACK <id> <decision>", then "DONE"
// LEDGER is a SQLite file or a postgres:// URL. An "ACK" line is printed only after route() returned, so a complete
// line read by the parent is an acknowledged decision; a line cut by a kill is not.
import { readFileSync } from 'node:fs';
import type { RouteRequest } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { createKernel, loadFlows } from '../../src/kernel/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { sampleChartersDir } from '../../src/package-root.js';
import { CLOCK_START, hammerRequest } from './harness.js';

const argv = process.argv.slice(2);
const [mode, ledgerFile, a, b, c] = argv;
const charters = process.env.NAVKERNEL_TEST_CHARTERS ?? sampleChartersDir();
const flows = await loadFlows(charters);
const ledger = openLedger(ledgerFile!);
let n = 0;
const kernel = createKernel({ flows, store: ledger, clock: () => new Date(CLOCK_START + 1000 * n++) });

if (mode === 'simulate') {
  const summary = await simulate(kernel, { ...HARSH_SCENARIO, runs: Number(b) }, { runPrefix: a! });
  await kernel.close();
  process.stdout.write(JSON.stringify({ routes: summary.routes }) + '\n');
} else if (mode === 'resume') {
  // Request i of a run is that run's seq i + 1 and is decided at CLOCK_START + i seconds, whatever the
  // interleaving of the runs and wherever earlier children were killed.
  const requests = JSON.parse(readFileSync(a!, 'utf8')) as RouteRequest[];
  const done = new Map<string, number>();
  for (const r of requests) if (!done.has(r.run_id)) done.set(r.run_id, (await kernel.runState(r.run_id))?.seq ?? 0);
  const index = new Map<string, number>();
  for (const request of requests) {
    const i = index.get(request.run_id) ?? 0;
    index.set(request.run_id, i + 1);
    if (i < done.get(request.run_id)!) continue;
    n = i;
    const d = await kernel.route(request);
    process.stdout.write(`ACK ${request.request_id ?? '-'} ${JSON.stringify(d)}\n`);
  }
  await kernel.close();
  process.stdout.write('DONE\n');
} else if (mode === 'hammer') {
  const [run, prefix, count, from] = [a!, b!, Number(c), Number(argv[5] ?? 0)];
  for (let i = from; i < count; i++) {
    const d = await kernel.route(hammerRequest(run, prefix, i));
    process.stdout.write(`ACK ${prefix}-${i} ${JSON.stringify(d)}\n`);
  }
  await kernel.close();
  process.stdout.write('DONE\n');
} else if (mode === 'steady') {
  const [prefix, runs, count] = [a!, Number(b), Number(c)];
  for (let i = 0; i < count; i++) {
    for (let r = 0; r < runs; r++) {
      const run = `${prefix}-r${r}`;
      for (;;) {
        try {
          const d = await kernel.route(hammerRequest(run, run, i));
          process.stdout.write(`ACK ${run}-${i} ${JSON.stringify(d)}\n`);
          break;
        } catch (e) {
          if ((e as { code?: string }).code !== 'STORE_UNAVAILABLE') throw e;
          await new Promise((res) => setTimeout(res, 25));
        }
      }
    }
  }
  await kernel.close();
  process.stdout.write('DONE\n');
} else {
  throw new Error(`unknown mode ${mode}`);
}
