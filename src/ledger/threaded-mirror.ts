import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { JsonlRepair } from '../contracts/ledger.js';
import type { MirrorWarning } from './jsonl-mirror.js';
import { decisionsJsonlPath } from './paths.js';

/** What the mirror's thread is started with. */
export interface MirrorWorkerData {
  /** The SQLite ledger file (the thread reads the rows it repairs from over its own connection). */
  file: string;
  runBase: string;
  lockFile: string;
  busyTimeoutMs: number;
  maxOpen?: number;
}

/** Routing thread → mirror thread. `ops`: a flat list, `L run flow line seq` (a committed line) or `C run` (check a loaded run). */
export type MirrorRequest =
  | { type: 'ops'; batch: number; ops: string[] }
  | { type: 'flush'; id: number }
  | { type: 'repair'; id: number; runIds: string[] }
  | { type: 'close'; id: number };

export type MirrorReply =
  | { type: 'warning'; warning: MirrorWarning }
  | { type: 'idle'; received: number }
  | { type: 'done'; id: number }
  | { type: 'repaired'; id: number; repairs: JsonlRepair[] }
  | { type: 'failed'; id: number; message: string };

const WORKER_FILE = new URL('./jsonl-mirror-worker.js', import.meta.url);
/** How long committed lines wait on the routing thread before they go to the writer thread, in ms. */
const HAND_OVER_MS = 2;
/** Queued op entries (a line is 5) past which they go at once. */
const HAND_OVER_OPS = 5 * 512;

/** Whether the mirror's thread can start here (from TypeScript sources, under vitest or tsx, there is no compiled worker file). */
export function mirrorThreadAvailable(): boolean {
  return existsSync(fileURLToPath(WORKER_FILE));
}

/**
 * The decisions.jsonl mirror on a thread of its own: the routing thread only queues the lines of committed
 * decisions (one message per group commit); the folders, opens, appends and repairs run on the worker, batched
 * per file, under the RUN_BASE's mirror lock (mirror-lock.ts), with the same guarantees as `JsonlMirror` (it is
 * one, on the other thread): each file a prefix of the run's off-road decisions in seq order, never a line the
 * database lacks, rebuilt from the database after a crash.
 *
 * The lines of a few ms of routing go over in one message (`HAND_OVER_MS`, or at once past `HAND_OVER_OPS`): a message
 * costs both threads far more than a line, and a runner ending a run every few hundred µs would otherwise send one per
 * run, each answered by the thread's `idle` and each a separate drain under the mirror lock.
 *
 * The thread is started on first use and keeps the process alive only while it has lines to write.
 */
export class ThreadedMirror {
  private worker: Worker | undefined;
  private ops: string[] = [];
  private batch = 0;
  /** The pending hand-over of `ops` (a timer: it keeps the process alive until the lines are sent). */
  private handOver: NodeJS.Timeout | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (v: JsonlRepair[]) => void; reject: (e: unknown) => void }>();
  private closed = false;

  constructor(
    private readonly data: MirrorWorkerData,
    private readonly onWarning: (w: MirrorWarning) => void,
    private readonly runIds: () => string[],
  ) {}

  get runBase(): string {
    return this.data.runBase;
  }

  fileFor(run_id: string, flow: string): string {
    return decisionsJsonlPath(this.data.runBase, run_id, flow);
  }

  enqueue(run_id: string, flow: string, line: string, seq: number): void {
    if (this.closed) return;
    this.ops.push('L', run_id, flow, line, String(seq));
    this.post();
  }

  check(run_id: string): void {
    if (this.closed) return;
    this.ops.push('C', run_id);
    this.post();
  }

  /** Sends what is queued within `HAND_OVER_MS` as one message (at once when `HAND_OVER_OPS` entries wait). */
  private post(): void {
    if (this.ops.length >= HAND_OVER_OPS) this.send();
    else this.handOver ??= setTimeout(() => this.send(), HAND_OVER_MS);
  }

  private send(): void {
    if (this.handOver !== undefined) {
      clearTimeout(this.handOver);
      this.handOver = undefined;
    }
    if (this.ops.length === 0) return;
    const w = this.start();
    const ops = this.ops;
    this.ops = [];
    w.ref();
    w.postMessage({ type: 'ops', batch: ++this.batch, ops } satisfies MirrorRequest);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(WORKER_FILE, { workerData: this.data });
    w.on('message', (m: MirrorReply) => {
      if (m.type === 'warning') this.onWarning(m.warning);
      else if (m.type === 'idle') {
        if (m.received === this.batch && this.waiting.size === 0) w.unref();
      } else {
        const p = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if (m.type === 'failed') p?.reject(new Error(m.message));
        else p?.resolve(m.type === 'repaired' ? m.repairs : []);
      }
    });
    w.on('error', (err) => {
      // The thread died (out of memory, a bug): the decisions are safe in the database; the files are rebuilt
      // at the runs' next load or by `verify --repair`. Later lines go to a new thread.
      this.worker = undefined;
      this.onWarning({ code: 'JSONL_WRITE_FAILED', run_id: '', flow: '', file: this.data.runBase, message: `decisions.jsonl writer thread failed: ${err.message}` });
      for (const p of this.waiting.values()) p.reject(err);
      this.waiting.clear();
    });
    w.on('exit', () => {
      if (this.worker === w) this.worker = undefined;
      for (const p of this.waiting.values()) p.resolve([]);
      this.waiting.clear();
    });
    this.worker = w;
    return w;
  }

  private request(make: (id: number) => MirrorRequest): Promise<JsonlRepair[]> {
    this.send();
    const w = this.start();
    w.ref();
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      w.postMessage(make(id));
    });
  }

  /** Waits until every line queued so far is written (or has failed and been noted for repair). */
  async flush(): Promise<void> {
    if (!this.worker && this.ops.length === 0) return;
    await this.request((id) => ({ type: 'flush', id }));
    this.idleIfDone();
  }

  async repair(run_id?: string): Promise<JsonlRepair[]> {
    const runIds = run_id === undefined ? this.runIds() : [run_id];
    const out = await this.request((id) => ({ type: 'repair', id, runIds }));
    this.idleIfDone();
    return out;
  }

  private idleIfDone(): void {
    if (this.waiting.size === 0 && this.ops.length === 0) this.worker?.unref();
  }

  /** Writes what is queued, then stops the thread. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.worker || this.ops.length > 0) await this.request((id) => ({ type: 'close', id })).catch(() => undefined);
    this.closed = true;
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }
}
