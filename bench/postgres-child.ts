// One of several kernel processes on one ledger, for bench/postgres.ts (run from dist/ by node).
//   node postgres-child.js LEDGER RUN COUNT           routes the SAME run COUNT times (processes share it)
//   node postgres-child.js LEDGER --own PREFIX RUNS CONC
//                                                    routes RUNS demo runs of its own (PREFIX…), CONC at once
// Prints READY (after warming up, in the own-runs mode), waits for a line on stdin (all processes start together),
// routes, then prints one JSON line: {"routes":n,"latencies_us":[...]}.
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createKernel, defineFlows, loadFlows } from '../src/kernel/index.js';
import { PostgresLedger, openLedgerAt } from '../src/ledger/index.js';
import { requestStream } from './ledger.js';
import { routeRuns } from './route-runs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const location = args[0]!;
const own = args[1] === '--own';
// One run routed by many processes takes far more routes than a run's default bounds (docs/run-states.md): the bench
// states bounds above what it routes, for the flows and for the steps that state their own max_visits.
const charters = await loadFlows(path.resolve(here, '../../charters'));
const flows = defineFlows(
  [...charters.flows.values()].map((f) => ({
    ...f.def,
    steps: f.def.steps.map(({ max_visits: _cap, ...step }) => step),
    bounds: { max_visits: 1_000_000_000, max_routes: 1_000_000_000 },
  })),
);
const ledger = openLedgerAt(location);
if (ledger instanceof PostgresLedger) await ledger.ready();
const kernel = createKernel({ flows, store: ledger });

let work: () => Promise<{ latencies: number[]; gaveUp: number }>;
if (own) {
  const [prefix, runs, conc] = [args[2]!, Number(args[3]), Number(args[4])];
  const requests = await requestStream(runs, prefix);
  // Warm the JIT and the pool on runs of its own first.
  await routeRuns(kernel, (await requestStream(Math.min(runs, 8), `${prefix}-warm`)), conc);
  work = async () => ({ latencies: await routeRuns(kernel, requests, conc), gaveUp: 0 });
} else {
  const [run, count] = [args[1]!, Number(args[2])];
  const request = {
    run_id: run, flow: 'build', step_completed: 'build-step-1', agent: 'test-author', status: 'VERIFIED',
    forensics: { tests: { passed: 12, failed: 0 } }, iteration: { current: 1, max: 3 }, envelope: { next_step_id: null, recommendation: 'CONTINUE' }, restart: { reason: 'bench' },
  };
  work = async () => {
    const latencies: number[] = [];
    let gaveUp = 0;
    for (let i = 0; i < count; i++) {
      const t = process.hrtime.bigint();
      // The kernel re-routes on LEDGER_CONFLICT a bounded number of times, then tells the caller, who tries again.
      for (;;) {
        try {
          await kernel.route(request);
          break;
        } catch (e) {
          if ((e as { code?: string }).code !== 'LEDGER_CONFLICT') throw e;
          gaveUp++;
        }
      }
      latencies.push(Number(process.hrtime.bigint() - t) / 1000);
    }
    return { latencies, gaveUp };
  };
}
process.stdout.write('READY\n');
await new Promise<void>((resolve) => {
  const rl = createInterface({ input: process.stdin });
  rl.once('line', () => (rl.close(), resolve()));
});
const { latencies, gaveUp } = await work();
await kernel.close();
process.stdout.write(JSON.stringify({ routes: latencies.length, gave_up: gaveUp, latencies_us: latencies }) + '\n');
