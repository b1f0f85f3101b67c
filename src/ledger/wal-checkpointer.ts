import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { Durability } from './sql.js';

/** When the checkpointer takes over and when the routing connection checkpoints itself. */
export interface WalCheckpointLimits {
  /** The WAL file size at which SQLite's autocheckpoint is turned off and the thread starts (default 4 MiB). */
  startBytes?: number;
  /** The WAL length, in frames, at which the routing thread checkpoints the tail the thread left, so the WAL restarts (default 8,000). */
  resetFrames?: number;
  /**
   * The fallback: a WAL file larger than this (the thread dead or behind) is checkpointed by the routing connection
   * itself, as SQLite's autocheckpoint would (default 256 MiB; the WAL is truncated to at most half of it on restart).
   */
  capBytes?: number;
  /** Routing commits between two looks at the WAL file's size (default 64). */
  checkEvery?: number;
}

/** What the checkpointer did so far. */
export interface WalCheckpointStats {
  /** Whether SQLite's autocheckpoint is off on the routing connection (the WAL passed `startBytes`). */
  active: boolean;
  /** Whether the checkpointer's thread is running. */
  thread: boolean;
  /** Passive checkpoints the thread ran that copied frames, and the frames they copied. */
  threadPasses: number;
  threadFrames: number;
  /** Complete checkpoints of the tail run by the routing connection after the thread caught up (cheap: the thread copied the rest). */
  tailCheckpoints: number;
  /** Fallback checkpoints run by the routing connection because the WAL passed `capBytes`. */
  capCheckpoints: number;
}

/** What the checkpointer's thread is started with. */
export interface CheckpointerWorkerData {
  file: string;
  synchronous: 'FULL' | 'NORMAL';
  busyTimeoutMs: number;
  resetFrames: number;
}

export type CheckpointerRequest = { type: 'stats'; id: number } | { type: 'close' };
export type CheckpointerReply =
  | { type: 'caught-up'; log: number }
  | { type: 'stats'; id: number; passes: number; frames: number }
  | { type: 'failed'; message: string };

const WORKER_FILE = new URL('./wal-checkpointer-worker.js', import.meta.url);
const MiB = 1024 * 1024;

/** Whether the checkpointer's thread can start here (from TypeScript sources, under vitest or tsx, there is no compiled worker file). */
export function checkpointerThreadAvailable(): boolean {
  return existsSync(fileURLToPath(WORKER_FILE));
}

/**
 * Keeps WAL checkpoints off the commit path of a long-lived routing process (serve, the co-process). SQLite's
 * autocheckpoint runs inside the commit that crosses its threshold: a whole WAL copied into the database and two
 * fsyncs on the routing thread, tens to hundreds of ms every few thousand routes.
 *
 * Lazy: nothing happens until the WAL file passes `startBytes` (a short command never gets there and keeps SQLite's
 * autocheckpoint). Then the routing connection's autocheckpoint is turned off and a worker thread, on a connection of
 * its own, runs PASSIVE checkpoints (never blocking the writer) as the WAL grows. A PASSIVE checkpoint cannot restart
 * the WAL while routes are being appended behind it, so once the thread has copied `resetFrames` frames it says so
 * and the routing connection checkpoints the short tail left (a few pages, under its own lock), after which the next
 * commit restarts the WAL from its beginning. The fallback: whenever the WAL file passes `capBytes` (the thread dead,
 * slow, or never started), the routing connection runs a PASSIVE checkpoint itself, as the autocheckpoint did.
 *
 * Durability is unchanged: the checkpointer's connection uses the ledger's synchronous setting, and each checkpoint
 * syncs the WAL before copying and the database after, as SQLite's own do.
 */
export class WalCheckpointer {
  private readonly wal: string;
  private readonly startBytes: number;
  private readonly resetFrames: number;
  private readonly capBytes: number;
  private readonly checkEvery: number;
  private commits = 0;
  private active = false;
  private worker: Worker | undefined;
  private tailDue = false;
  private tailRetries = 0;
  private scheduled = false;
  private tailCheckpoints = 0;
  private capCheckpoints = 0;
  private nextId = 0;
  private readonly waiting = new Map<number, (s: { passes: number; frames: number }) => void>();
  private closed = false;

  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
    private readonly options: { durability: Durability; busyTimeoutMs: number; limits?: WalCheckpointLimits; onWarning?: (message: string) => void },
  ) {
    this.wal = `${file}-wal`;
    const l = options.limits ?? {};
    this.startBytes = l.startBytes ?? 4 * MiB;
    this.resetFrames = l.resetFrames ?? 8_000;
    this.capBytes = l.capBytes ?? 256 * MiB;
    this.checkEvery = l.checkEvery ?? 64;
  }

  /**
   * Called by the routing thread after each committed transaction: a counter, and every `checkEvery` commits a stat.
   * A checkpoint it decides on runs in the next turn of the event loop, after the answers of this commit went out.
   */
  afterCommit(): void {
    if (this.closed) return;
    if (this.tailDue) {
      this.tailDue = false;
      this.later((done) => {
        if (done) {
          this.tailCheckpoints++;
          this.tailRetries = 0;
        } else if (++this.tailRetries <= 8) {
          // The thread was mid-pass (the checkpoint lock is one at a time): try again after the next commit.
          this.tailDue = true;
        } else this.tailRetries = 0;
      });
    }
    if (++this.commits % this.checkEvery !== 0) return;
    const size = walSize(this.wal);
    if (!this.active) {
      if (size >= this.startBytes) this.takeOver();
    } else if (size > this.capBytes) {
      this.later(() => this.capCheckpoints++);
    }
  }

  private later(then: (done: boolean) => void): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.closed) return;
      then(this.checkpoint());
    });
  }

  /** Turns SQLite's autocheckpoint off on the routing connection and starts the thread (where it can run). */
  private takeOver(): void {
    this.active = true;
    this.db.pragma('wal_autocheckpoint = 0');
    // After a restart the WAL file is cut back to this on the next commit, so a file past capBytes means a WAL past it.
    this.db.pragma(`journal_size_limit = ${Math.min(64 * MiB, Math.floor(this.capBytes / 2))}`);
    if (checkpointerThreadAvailable()) this.start();
  }

  private start(): void {
    const data: CheckpointerWorkerData = {
      file: this.file,
      synchronous: this.options.durability === 'full' ? 'FULL' : 'NORMAL',
      busyTimeoutMs: this.options.busyTimeoutMs,
      resetFrames: this.resetFrames,
    };
    const w = new Worker(WORKER_FILE, { workerData: data });
    // The thread never keeps the process alive: close() ends it, and the last connection's close checkpoints anyway.
    w.unref();
    w.on('message', (m: CheckpointerReply) => {
      if (m.type === 'caught-up') this.tailDue = true;
      else if (m.type === 'stats') {
        const p = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        p?.({ passes: m.passes, frames: m.frames });
      } else this.warn(`WAL checkpointer: ${m.message}`);
    });
    w.on('error', (err) => this.warn(`WAL checkpointer thread failed: ${err.message}; the routing connection checkpoints past ${this.capBytes} bytes`));
    w.on('exit', () => {
      if (this.worker === w) this.worker = undefined;
      for (const p of this.waiting.values()) p({ passes: 0, frames: 0 });
      this.waiting.clear();
    });
    this.worker = w;
  }

  private warn(message: string): void {
    if (this.options.onWarning) this.options.onWarning(message);
    else process.emitWarning(message, { code: 'NAVKERNEL_WAL_CHECKPOINT' });
  }

  /** A PASSIVE checkpoint on the routing connection (it never waits for readers or writers; a busy checkpointer makes it a no-op). */
  private checkpoint(): boolean {
    try {
      const [r] = this.db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
      // Complete: every frame is in the database, so the next commit restarts the WAL.
      return r !== undefined && r.busy === 0 && r.checkpointed === r.log;
    } catch {
      // A checkpoint that cannot run now (I/O error, busy) loses nothing: the frames stay in the WAL for the next one.
      return false;
    }
  }

  async stats(): Promise<WalCheckpointStats> {
    const w = this.worker;
    let thread = { passes: 0, frames: 0 };
    if (w) {
      const id = ++this.nextId;
      w.ref();
      thread = await new Promise((resolve) => {
        this.waiting.set(id, (s) => {
          if (this.waiting.size === 0) w.unref();
          resolve(s);
        });
        w.postMessage({ type: 'stats', id } satisfies CheckpointerRequest);
      });
    }
    return {
      active: this.active,
      thread: this.worker !== undefined,
      threadPasses: thread.passes,
      threadFrames: thread.frames,
      tailCheckpoints: this.tailCheckpoints,
      capCheckpoints: this.capCheckpoints,
    };
  }

  /** Stops the thread (its connection closes; the routing connection, closed last, checkpoints the WAL away as before). */
  async stopThread(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    this.worker = undefined;
    this.tailDue = false;
    // Held alive until its connection is closed: an unreferenced thread would let the process exit half-way.
    w.ref();
    await new Promise<void>((resolve) => {
      w.once('exit', () => resolve());
      w.postMessage({ type: 'close' } satisfies CheckpointerRequest);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.stopThread();
  }
}

function walSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
