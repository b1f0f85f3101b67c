import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ReplayReport } from '../contracts/ledger.js';
import type { RunReader } from '../contracts/ports.js';
import type { FlowSet } from '../kernel/index.js';
import { replayRun } from './replay.js';
import type { ReplayJob, ReplayWorkerData, ReplayWorkerMessage } from './replay-worker.js';

/** Options of replayAll: which runs, how many at once, progress. */
export interface ReplayAllOptions {
  /** Stop each run's replay after this many divergences (default: report all). */
  maxDivergences?: number;
  /**
   * Where worker threads open the ledger themselves: the SQLite file or the postgres:// URL (with its password;
   * `RunReader.location` hides it). Without it every run replays on this thread.
   */
  open?: string;
  /** The flows folder or file the workers load; default: the definitions of `flows`, rebuilt in each worker (none: each run's recorded versions). */
  flowsPath?: string;
  /** Worker threads: default the machine's available parallelism, never more than the runs; 1 = this thread. */
  threads?: number;
  /** Called with each run's report as soon as it and every run before it are done: always in run order. */
  onReport?: (report: ReplayReport) => void;
  /** See ReplayOptions.compareState. */
  compareState?: boolean;
  /** See ReplayOptions.missingFlowDiverges. */
  missingFlowDiverges?: boolean;
  /** Only these runs (default every run of the ledger), in this order. */
  runs?: string[];
}

/** The worker threads a ledger-wide replay of `runs` runs uses. */
export function replayThreads(runs: number, requested?: number): number {
  const cap = requested !== undefined && requested >= 1 ? Math.floor(requested) : os.availableParallelism();
  return Math.max(1, Math.min(cap, runs));
}

/**
 * Replays every run of the ledger (`navkernel runs replay --all`): runs are independent (each replays in a fresh
 * kernel), so with `open` they are spread over worker threads, each with its own connection, handed out one
 * run at a time to whichever worker is free. The reports come back in run order (`runIds()`) and are the same
 * as replaying each run with `replayRun` on this thread.
 */
export async function replayAll(ledger: RunReader, flows: FlowSet | undefined, options: ReplayAllOptions = {}): Promise<ReplayReport[]> {
  const runs = options.runs ?? (await ledger.runIds());
  // From TypeScript sources (tsx, vitest) there is no compiled worker file: replay on this thread then.
  const workerFile = new URL('./replay-worker.js', import.meta.url);
  const threads = options.open === undefined || !existsSync(fileURLToPath(workerFile)) ? 1 : replayThreads(runs.length, options.threads);
  const reports: (ReplayReport | undefined)[] = new Array(runs.length);
  let emitted = 0;
  const settle = (i: number, report: ReplayReport) => {
    reports[i] = report;
    while (emitted < runs.length && reports[emitted] !== undefined) {
      const r = reports[emitted++]!;
      options.onReport?.(r);
    }
  };
  const runOptions = { ...(options.maxDivergences !== undefined ? { maxDivergences: options.maxDivergences } : {}), ...(options.missingFlowDiverges ? { missingFlowDiverges: true } : {}), ...(options.compareState === false ? { compareState: false } : {}) };
  if (threads <= 1) {
    for (let i = 0; i < runs.length; i++) settle(i, await replayRun(ledger, runs[i]!, flows, runOptions));
    return reports as ReplayReport[];
  }
  const data: ReplayWorkerData = {
    open: options.open!,
    flowsPath: options.flowsPath,
    defs: options.flowsPath === undefined && flows ? [...flows.flows.values()].map((f) => f.def) : undefined,
    flowsHash: flows?.hash,
    ...runOptions,
  };
  let next = 0;
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let live = threads;
      let failed = false;
      const finished = new Set<Worker>();
      const fail = (err: unknown) => {
        if (failed) return;
        failed = true;
        reject(err instanceof Error ? err : new Error(String(err)));
      };
      const feed = (w: Worker) => {
        if (failed) return;
        if (next < runs.length) {
          const job: ReplayJob = { index: next, run_id: runs[next]! };
          next++;
          w.postMessage(job);
        } else {
          finished.add(w);
          w.postMessage(null);
          if (--live === 0) resolve();
        }
      };
      for (let t = 0; t < threads; t++) {
        const w = new Worker(workerFile, { workerData: data });
        workers.push(w);
        w.on('message', (m: ReplayWorkerMessage) => {
          if ('error' in m) {
            const err = Object.assign(new Error(m.error.message), m.error.code !== undefined ? { code: m.error.code } : {});
            err.name = m.error.name;
            fail(err);
            return;
          }
          if ('report' in m) settle(m.index, m.report);
          feed(w);
        });
        w.on('error', fail);
        w.on('exit', (code) => {
          if (!finished.has(w)) fail(new Error(`a replay worker exited (code ${code}) before it finished its runs`));
        });
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return reports as ReplayReport[];
}
