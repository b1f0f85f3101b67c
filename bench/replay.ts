// Replay speed: recorded routes re-routed per second, for one long run (`replayRun`) and for a whole ledger
// (`replayAll`, what `navkernel runs replay --all` runs: independent runs on worker threads).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RouteRequest } from '../src/contracts/index.js';
import { createKernel, createRecordedRouter } from '../src/kernel/index.js';
import { openLedger, type SqliteLedger } from '../src/ledger/index.js';
import { packageRoot } from '../src/package-root.js';
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

/** What a replay of one run cannot go below, each measured alone on the same rows (best of `reps`, ms). */
export interface ReplayFloor {
  /** Reading the run's replay rows (`replayChunks`), nothing else. */
  readMs: number;
  /** Parsing the stored requests (JSON.parse), on rows already read. */
  parseMs: number;
  /** The kernel's `route()` on the same requests, already parsed, in memory (no ledger, no comparison). */
  routeMs: number;
  /**
   * The kernel's machine alone on the same parsed requests (`createRecordedRouter`: the run machine's step and
   * rules, without route()'s per-route record, store and promises): what replay routes with.
   */
  machineMs: number;
}

async function best(reps: number, f: () => Promise<unknown>): Promise<number> {
  let b = Infinity;
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    await f();
    b = Math.min(b, ms(t0));
  }
  return b;
}

async function replayFloor(ledger: SqliteLedger, run_id: string, reps: number): Promise<ReplayFloor> {
  const rows: string[] = [];
  const readMs = await best(reps, async () => {
    rows.length = 0;
    for await (const chunk of ledger.replayChunks(run_id, 0, 4096)) for (const r of chunk) rows.push(r[1]);
  });
  let requests: RouteRequest[] = [];
  const parseMs = await best(reps, () => Promise.resolve((requests = rows.map((r) => JSON.parse(r) as RouteRequest))));
  const routeMs = await best(reps, async () => {
    const kernel = createKernel({ flows: LONG_FLOWS, validate: false, redact: false });
    for (const r of requests) await kernel.route(r);
    await kernel.close();
  });
  const machineMs = await best(reps, async () => {
    const router = createRecordedRouter({ flows: LONG_FLOWS });
    const ts = new Date(0).toISOString();
    for (const r of requests) {
      const d = router.route(r, ts);
      if (d instanceof Promise) await d;
    }
    router.close();
  });
  return { readMs, parseMs, routeMs, machineMs };
}

/** `navkernel runs replay RUN` as a user runs it (a new process: start-up included), wall ms, best of `reps`. */
function cliReplayMs(file: string, flowsFile: string, run: string, reps: number): number {
  const bin = path.join(packageRoot(), 'bin', 'navkernel.js');
  let b = Infinity;
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [bin, 'runs', 'replay', run, '--ledger', file, '--flows', flowsFile], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    const took = ms(t0);
    if (r.status !== 0 || !r.stdout.includes('identical')) throw new Error(`navkernel runs replay ${run} failed (${r.status}): ${r.stderr || r.stdout}`);
    b = Math.min(b, took);
  }
  return b;
}

export interface ReplayFigures {
  single: { routes: number; perSecond: number };
  all: { runs: number; routes: number; perSecond: number; threads: number };
  floor: ReplayFloor & { routes: number };
  /** The CLI's wall time (start-up included) for the long run and for a one-route run (start-up alone, nearly). */
  cli: { ms: number; startupMs: number };
}

export async function replayFigures(opts: ReplayBenchOptions): Promise<ReplayFigures> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'navkernel-bench-replay-'));
  try {
    const long = opts.quick ? 20_000 : 100_000;
    const file = path.join(dir, 'ledger.sqlite');
    const flowsFile = path.join(dir, 'long.json');
    writeFileSync(flowsFile, JSON.stringify([...LONG_FLOWS.flows.values()][0]!.def));
    const many = Array.from({ length: opts.quick ? 4 : 8 }, (_, i) => ({ id: `r-${i}`, routes: opts.quick ? 5_000 : 25_000 }));
    await record(file, [{ id: 'long', routes: long }, { id: 'one', routes: 1 }, ...many]);
    const ledger = openLedger(file, { jsonl: false });
    await replayRun(ledger, 'long', LONG_FLOWS, { maxDivergences: 1 }); // warm-up
    let singleMs = Infinity;
    for (let i = 0; i < 2; i++) {
      const t0 = process.hrtime.bigint();
      const one = await replayRun(ledger, 'long', LONG_FLOWS);
      singleMs = Math.min(singleMs, ms(t0));
      if (!one.identical || one.routes !== long) throw new Error(`bench replay diverged: ${one.routes} routes`);
    }
    const floor = { routes: long, ...(await replayFloor(ledger, 'long', 2)) };
    const cli = { ms: cliReplayMs(file, flowsFile, 'long', 2), startupMs: cliReplayMs(file, flowsFile, 'one', 3) };
    const t0 = process.hrtime.bigint();
    let routes = 0;
    const reports = await replayAll(ledger, LONG_FLOWS, { open: file });
    for (const r of reports) {
      if (!r.identical) throw new Error('bench replay --all diverged');
      routes += r.routes;
    }
    const threads = replayThreads(reports.length);
    const allMs = ms(t0);
    await ledger.close();
    return {
      single: { routes: long, perSecond: (long / singleMs) * 1000 },
      all: { runs: reports.length, routes, perSecond: (routes / allMs) * 1000, threads },
      floor,
      cli,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchReplay(opts: ReplayBenchOptions): Promise<BenchSection> {
  const f = await replayFigures(opts);
  const perS = (routes: number, took: number) => (routes / took) * 1000;
  const { readMs, parseMs, routeMs, machineMs, routes } = f.floor;
  const floorMs = readMs + parseMs + machineMs;
  const body = [
    `Replay: one recorded run of ${f.single.routes.toLocaleString('en-US')} routes (\`replayRun\`, and \`navkernel runs replay\` in a new process, start-up included), and every run of a ledger of ${f.all.runs} runs, ${f.all.routes.toLocaleString('en-US')} routes (\`replay --all\`). Recorded answers; every replay checked identical. Goal (issue 27): ≥ 200,000 routes/s for \`navkernel runs replay RUN\`, wall with start-up.`,
    '',
    table(
      ['replay', 'routes', 'ms', 'routes/s'],
      [
        ['single run (`replayRun`)', f.single.routes, (f.single.routes / f.single.perSecond) * 1000, f.single.perSecond],
        ['`navkernel runs replay RUN` (new process, start-up included)', routes, f.cli.ms, perS(routes, f.cli.ms)],
        [`--all (${f.all.threads} thread(s))`, f.all.routes, (f.all.routes / f.all.perSecond) * 1000, f.all.perSecond],
      ],
    ),
    '',
    `**The floor beside it**: each part of a replay measured alone on the same ${routes.toLocaleString('en-US')} rows. Replay routes with the kernel's machine (\`createRecordedRouter\`: the same XState step and rules as \`route()\`, without its per-route record, store and promises); that step is what a faithful replay must keep, so a replay cannot beat read + parse + machine, nor the CLI its start-up. The kernel's \`route()\` alone (in memory, no ledger) is shown for comparison.`,
    '',
    table(
      ['floor part', 'ms', 'routes/s'],
      [
        ['read the rows alone (`replayChunks`)', readMs, perS(routes, readMs)],
        ['parse the stored requests alone (JSON.parse)', parseMs, perS(routes, parseMs)],
        ["the kernel's `route()` alone, same requests, no ledger", routeMs, perS(routes, routeMs)],
        ["the kernel's machine alone, same requests (`createRecordedRouter`)", machineMs, perS(routes, machineMs)],
        ['floor: read + parse + machine (in process)', floorMs, perS(routes, floorMs)],
        ['`navkernel runs replay` start-up (a one-route run)', f.cli.startupMs, '-'],
        ['floor for the CLI: start-up + read + parse + machine', f.cli.startupMs + floorMs, perS(routes, f.cli.startupMs + floorMs)],
      ],
    ),
  ].join('\n');
  return {
    title: 'Replay: recorded routes/s',
    body,
    figures: {
      replay_single_per_s: f.single.perSecond,
      replay_all_per_s: f.all.perSecond,
      replay_cli_per_s: perS(routes, f.cli.ms),
      replay_cli_startup_ms: f.cli.startupMs,
      replay_floor_read_per_s: perS(routes, readMs),
      replay_floor_route_per_s: perS(routes, routeMs),
      replay_floor_machine_per_s: perS(routes, machineMs),
      replay_floor_per_s: perS(routes, floorMs),
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const f = await replayFigures({ quick: process.argv.includes('--quick') });
  console.log(JSON.stringify(f));
}
