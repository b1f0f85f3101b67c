// `node dist/bench/rss-child.js N RUNS`: routes N requests with unique request ids over RUNS runs through an
// in-memory kernel (the default MemoryStore, its documented limits), then prints the RSS in MB as JSON.
import { createKernel, defineFlows } from '../src/kernel/index.js';

const n = Number(process.argv[2] ?? 1_000_000);
const runs = Number(process.argv[3] ?? 1_000_000);
const flows = defineFlows([
  { flow: 'f', charter: { goal: 'bench', key_question: 'ok?' }, steps: [{ id: 'a', agent: 'x', next: 'b' }, { id: 'b', agent: 'x', next: 'end' }, { id: 'end', agent: 'x', terminal: true }], bounds: { max_visits: 1_000_000_000, max_routes: 1_000_000_000 } },
]);
const kernel = createKernel({ flows, validate: false });
const samples: { routes: number; rss_mb: number }[] = [];
const t0 = performance.now();
for (let i = 0; i < n; i++) {
  await kernel.route({ run_id: `run-${i % runs}`, flow: 'f', step_completed: i % 2 ? 'b' : 'a', status: 'VERIFIED', request_id: `req-${i}`, restart: { reason: 'bench' } });
  if ((i + 1) % (n / 4) === 0) samples.push({ routes: i + 1, rss_mb: process.memoryUsage().rss / 2 ** 20 });
}
const ms = performance.now() - t0;
await kernel.close();
process.stdout.write(JSON.stringify({ routes: n, runs, per_s: (n / ms) * 1000, samples }) + '\n');
