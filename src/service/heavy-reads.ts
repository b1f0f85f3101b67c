// Verify and replay read a whole ledger or a whole run: on the event loop they stalled every other request
// (issue 35: route latency 2 ms -> 0.8-2.4 s while one ran). Here each runs in a worker thread of its own with
// its own connection, at most `running` at once (the rest wait, at most `waiting` of them; more are TOO_BUSY),
// and a request that gives up (its time limit) terminates its worker: the work stops with it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { NavkernelError, isErrorCode } from '../contracts/index.js';
import type { FlowSet } from '../kernel/index.js';
import { ApiError } from './problem.js';
import type { HeavyReadJob, ReadWorkerData, ReadWorkerMessage } from './read-worker.js';

export interface HeavyReadsOptions {
  /** The SQLite file or postgres:// URL (with its password) each worker opens. */
  location: string;
  /** RUN_BASE of a SQLite ledger's decisions.jsonl files. */
  runBase?: string;
  /** Heavy reads at once (default 2). */
  running?: number;
  /** Heavy reads waiting for a slot (default 16); more are refused with TOO_BUSY. */
  waiting?: number;
}

const WORKER_FILE = new URL('./read-worker.js', import.meta.url);

/** Whether the compiled worker exists (not from TypeScript sources: tests of the sources run heavy reads inline). */
export function readWorkerAvailable(): boolean {
  return existsSync(fileURLToPath(WORKER_FILE));
}

/** Counts for metrics and tests. */
export interface HeavyReadStats {
  running: number;
  waiting: number;
  /** Workers terminated because their request gave up. */
  aborted: number;
}

export class HeavyReads {
  private readonly running: number;
  private readonly waiting: number;
  private readonly queue: (() => void)[] = [];
  private readonly workers = new Set<Worker>();
  private active = 0;
  private abortedCount = 0;

  constructor(
    private readonly options: HeavyReadsOptions,
    private readonly flows: FlowSet,
  ) {
    this.running = options.running ?? 2;
    this.waiting = options.waiting ?? 16;
  }

  get stats(): HeavyReadStats {
    return { running: this.active, waiting: this.queue.length, aborted: this.abortedCount };
  }

  /** Runs `job` in a worker once a slot is free; rejects with `signal.reason` when the signal aborts first. */
  async run<T>(job: HeavyReadJob, signal: AbortSignal): Promise<T> {
    signal.throwIfAborted();
    if (this.active >= this.running) {
      if (this.queue.length >= this.waiting) throw new ApiError('TOO_BUSY', `${this.active} heavy reads (verify, replay) are running and ${this.queue.length} waiting, the most this server allows; retry later`);
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          signal.removeEventListener('abort', drop);
          resolve();
        };
        const drop = () => {
          const i = this.queue.indexOf(go);
          if (i >= 0) this.queue.splice(i, 1);
          reject(signal.reason as Error);
        };
        signal.addEventListener('abort', drop, { once: true });
        this.queue.push(go);
      });
    }
    this.active++;
    try {
      return await this.inWorker<T>(job, signal);
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }

  /** Stops every worker (the server is closing). */
  async close(): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.terminate()));
  }

  private inWorker<T>(job: HeavyReadJob, signal: AbortSignal): Promise<T> {
    const data: ReadWorkerData = {
      location: this.options.location,
      ...(this.options.runBase !== undefined ? { runBase: this.options.runBase } : {}),
      defs: [...this.flows.flows.values()].map((f) => f.def),
      flowsHash: this.flows.hash,
      job,
    };
    return new Promise<T>((resolve, reject) => {
      const w = new Worker(WORKER_FILE, { workerData: data });
      this.workers.add(w);
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', abort);
        this.workers.delete(w);
        void w.terminate();
        fn();
      };
      const abort = () => {
        if (!settled) this.abortedCount++;
        settle(() => reject(signal.reason as Error));
      };
      signal.addEventListener('abort', abort, { once: true });
      w.once('message', (m: ReadWorkerMessage) => {
        if ('result' in m) settle(() => resolve(m.result as T));
        // The worker's typed errors keep their code (UNKNOWN_RUN is a 404); anything else is internal.
        else settle(() => reject(isErrorCode(m.error.code) ? new NavkernelError(m.error.code, m.error.message) : new Error(`${m.error.name}: ${m.error.message}`)));
      });
      w.once('error', (e) => settle(() => reject(e)));
      w.once('exit', (code) => settle(() => reject(new Error(`a heavy-read worker exited (code ${code}) without an answer`))));
    });
  }
}
