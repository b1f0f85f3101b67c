// Memory against live runs, for bench/scaling.ts (run from dist/ by `node --expose-gc`):
//   node --expose-gc live-runs-child.js STORE CAP CHECKPOINTS [DIR]
// STORE: `sqlite` (a new ledger file in DIR, durability normal, decisions.jsonl off) or `memory` (the default
// MemoryStore). CAP: `default` (the kernel's maxLiveRuns) or `unbounded` (maxLiveRuns = Infinity: every run
// stays live). CHECKPOINTS: ascending run counts, comma-separated. Starts runs one after another, each routed
// 3 steps and left unfinished (back at its first step), and at each checkpoint collects garbage and prints one
// JSON line: {"runs","live_runs","rss_mb","heap_mb","heap_total_mb","external_mb"}. A line with runs 0 comes
// first (the kernel and its store open, nothing routed).
import path from 'node:path';
import type { KernelStore, RouteRequest } from '../src/contracts/index.js';
import { MemoryStore, createKernel } from '../src/kernel/index.js';
import { openLedger } from '../src/ledger/index.js';
import { LONG_FLOWS, longRun, routeInTransaction } from './long-run.js';

const [storeKind, cap, list, dir] = process.argv.slice(2);
const checkpoints = (list ?? '').split(',').map(Number);
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
if (!['sqlite', 'memory'].includes(storeKind!) || !['default', 'unbounded'].includes(cap!) || checkpoints.some((n) => !(n > 0))) {
  throw new Error('usage: live-runs-child.js sqlite|memory default|unbounded N1,N2,… [DIR]');
}
const ledger = storeKind === 'sqlite' ? openLedger(path.join(dir!, 'ledger.sqlite'), { durability: 'normal', jsonl: false }) : undefined;
const store: KernelStore = ledger ?? new MemoryStore();
const kernel = createKernel({ flows: LONG_FLOWS, store, validate: true, ...(cap === 'unbounded' ? { maxLiveRuns: Infinity } : {}) });

function report(runs: number): void {
  globalThis.gc!();
  globalThis.gc!();
  const m = process.memoryUsage();
  const mb = (b: number) => b / 2 ** 20;
  process.stdout.write(JSON.stringify({ runs, live_runs: kernel.liveRuns, rss_mb: mb(m.rss), heap_mb: mb(m.heapUsed), heap_total_mb: mb(m.heapTotal), external_mb: mb(m.external + m.arrayBuffers) }) + '\n');
}

/** Three routes of run `i`: work (unverified), work (verified), check → AGAIN: the run is back at `work`, unfinished. */
function* steps(from: number, to: number): Generator<RouteRequest> {
  for (let i = from; i < to; i++) {
    const gen = longRun(`live-${i}`, 4);
    for (let k = 0; k < 3; k++) yield gen.next().value as RouteRequest;
  }
}

report(0);
let started = 0;
for (const n of checkpoints) {
  while (started < n) {
    const upTo = Math.min(n, started + 5_000);
    if (ledger) await routeInTransaction(ledger, (r) => kernel.route(r), steps(started, upTo));
    else for (const r of steps(started, upTo)) await kernel.route(r);
    started = upTo;
  }
  report(n);
}
await kernel.close();
