// Replay speed: recorded routes re-routed per second, for one long run (`replayRun`) and for a whole ledger
// (`replayAll`, what `navkernel replay --all` runs: independent runs on worker threads).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RouteRequest } from '../src/contracts/index.js';
import { createKernel } from '../src/kernel/index.js';
import { openLedger } from '../src/ledger/index.js';
import { replayAll, replayRun, replayThreads } from '../src/runs/index.js';
import { LONG_FLOWS, longRun, routeInTransaction } from './scaling.js';
import { table, type BenchSection } from './stats.js';

export interface ReplayBenchOptions {
  quick: boolean;
}

async function record(file: string, runs: { id: string; routes: number }[]): Promise<void> {
  const ledger = openLedger(file, { jsonl: false });
  const kernel = createKernel({ flows: LONG_FLOWS, store: ledger, validate: false });
  for (const { id, routes } of runs) {
    const gen = longRun(id, routes);
    let done = 0;
    while (done < routes) {
      const batch: RouteRequest[] = [];
      for (let r = gen.next(); !r.done; r = gen.next()) {
        batch.push(r.value);
        if (batch.length === 20_000) break;
      }
      done += await routeInTransaction(ledger, (r) => kernel.route(r), batch);
    }
  }
  await kernel.close();
  await ledger.close();
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

export async function replayFigures(opts: ReplayBenchOptions): Promise<{ single: { routes: number; perSecond: number }; all: { runs: number; routes: number; perSecond: number; threads: number } }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'navkernel-bench-replay-'));
  try {
    const long = opts.quick ? 20_000 : 100_000;
    const file = path.join(dir, 'ledger.sqlite');
    const many = Array.from({ length: opts.quick ? 4 : 8 }, (_, i) => ({ id: `r-${i}`, routes: opts.quick ? 5_000 : 25_000 }));
    await record(file, [{ id: 'long', routes: long }, ...many]);
    const ledger = openLedger(file, { jsonl: false });
    await replayRun(ledger, 'long', LONG_FLOWS, { maxDivergences: 1 }); // warm-up
    let t0 = process.hrtime.bigint();
    const one = await replayRun(ledger, 'long', LONG_FLOWS);
    const singleMs = ms(t0);
    if (!one.identical || one.routes !== long) throw new Error(`bench replay diverged: ${one.routes} routes`);
    t0 = process.hrtime.bigint();
    let routes = 0;
    const reports = await replayAll(ledger, LONG_FLOWS, { open: file });
    for (const r of reports) {
      if (!r.identical) throw new Error('bench replay --all diverged');
      routes += r.routes;
    }
    const threads = replayThreads(reports.length);
    const allMs = ms(t0);
    await ledger.close();
    return { single: { routes: long, perSecond: (long / singleMs) * 1000 }, all: { runs: many.length + 1, routes, perSecond: (routes / allMs) * 1000, threads } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchReplay(opts: ReplayBenchOptions): Promise<BenchSection> {
  const f = await replayFigures(opts);
  const body = [
    `Replay: one recorded run of ${f.single.routes.toLocaleString('en-US')} routes (\`replayRun\`), and every run of a ledger of ${f.all.runs} runs, ${f.all.routes.toLocaleString('en-US')} routes (\`replay --all\`). Recorded answers; every replay checked identical. Goal: ≥ 100,000 routes/s (stretch 200,000).`,
    '',
    table(['replay', 'routes', 'routes/s'], [['single run', f.single.routes, f.single.perSecond], [`--all (${f.all.threads} thread(s))`, f.all.routes, f.all.perSecond]]),
  ].join('\n');
  return { title: 'Replay: recorded routes/s', body, figures: { replay_single_per_s: f.single.perSecond, replay_all_per_s: f.all.perSecond } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const f = await replayFigures({ quick: process.argv.includes('--quick') });
  console.log(JSON.stringify(f));
}
