// One of several processes routing the SAME run into one ledger, for bench/postgres.ts (run from dist/ by node).
//   node postgres-child.js LEDGER RUN COUNT
// Prints READY, waits for a line on stdin (all processes start together), routes COUNT times (each route appends
// to the shared run: a stale kernel gets LEDGER_CONFLICT and re-routes from the fresh state), then prints one JSON
// line: {"routes":n,"latencies_us":[...]}.
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createKernel, loadFlows } from '../src/kernel/index.js';
import { PostgresLedger, openLedgerAt } from '../src/ledger/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const [location, run, count] = process.argv.slice(2);
const flows = await loadFlows(path.resolve(here, '../../charters'));
const ledger = openLedgerAt(location!);
if (ledger instanceof PostgresLedger) await ledger.ready();
const kernel = createKernel({ flows, store: ledger });
const request = {
  run_id: run!, flow: 'build', step_completed: 'build-step-1', agent: 'test-author', status: 'VERIFIED',
  forensics: { tests: { passed: 12, failed: 0 } }, iteration: { current: 1, max: 3 }, envelope: { next_step_id: null, recommendation: 'CONTINUE' },
};
process.stdout.write('READY\n');
await new Promise<void>((resolve) => {
  const rl = createInterface({ input: process.stdin });
  rl.once('line', () => (rl.close(), resolve()));
});
const latencies: number[] = [];
let gaveUp = 0;
for (let i = 0; i < Number(count); i++) {
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
await kernel.close();
process.stdout.write(JSON.stringify({ routes: latencies.length, gave_up: gaveUp, latencies_us: latencies }) + '\n');
