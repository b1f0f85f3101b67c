import { closeSync, fstatSync, lstatSync, openSync, writeSync } from 'node:fs';
import { mkdir as mkdirCb, open as openCb } from 'node:fs';
import { promisify } from 'node:util';

const mkdir = promisify(mkdirCb);
const openFd = promisify(openCb);
import path from 'node:path';
import type { Decision } from '../contracts/decision.js';
import type { JsonlRepair } from '../contracts/ledger.js';
import type { DecisionsMirror, OffroadRow } from '../contracts/ports.js';
import { offRoadLine, repairJsonlFile } from './decisions-jsonl.js';
import { FolderMaker } from './folder-maker.js';
import { LruMap } from './lru.js';
import { decisionsJsonlPath } from './paths.js';

/** What a mirror needs from its store. */
export interface MirrorSource {
  /**
   * Runs `fn` holding the RUN_BASE's mirror lock (mirror-lock.ts), which every writer of these files holds in
   * every thread and process: two writers never write at once, so each file's size check and rebuild see the
   * file as the last writer left it.
   */
  exclusive<T>(fn: () => T): T;
  /** The run's off-road rows in seq order (committed data only). */
  offroadRows(run_id: string): OffroadRow[];
  /** Every run id. */
  runIds(): string[];
}

/** A problem with a derived file: the decision is safe in the store, the file is repaired later. */
export interface MirrorWarning {
  code: 'JSONL_WRITE_FAILED';
  run_id: string;
  flow: string;
  file: string;
  message: string;
}

/** The default for a failed write: a process warning naming the file. */
export function defaultMirrorWarning(w: MirrorWarning): void {
  process.emitWarning(`${w.message} (${w.file}); the decision is in the ledger and the file will be repaired`, { code: 'NAVKERNEL_JSONL' });
}

export interface MirrorOptions {
  /** decisions.jsonl handles kept open (default 256); beyond it the least recently used is closed. */
  maxOpen?: number;
  /** Files whose size this process knows (default 65,536): a known file is appended to without re-reading it. */
  maxKnown?: number;
  /** Called for each failed write (default: `process.emitWarning`). */
  onWarning?: (w: MirrorWarning) => void;
  /**
   * Create a new file's folders and the file itself with synchronous calls on this thread when its first lines are
   * written (the writer thread, where blocking costs no routing), instead of on the thread pool as soon as its first
   * line is queued (default false: the routing thread's mirror).
   */
  createHere?: boolean;
  /** Flush after this many ms (default 1), or at once when this many lines wait (default 512). */
  delayMs?: number;
  maxPending?: number;
}

/** The decisions.jsonl lines a run's off-road rows give, by flow. */
export function expectedLines(rows: readonly OffroadRow[]): Map<string, string[]> {
  const byFlow = new Map<string, string[]>();
  for (const row of rows) {
    let lines = byFlow.get(row.flow);
    if (!lines) byFlow.set(row.flow, (lines = []));
    let decision: Decision;
    try {
      decision = JSON.parse(row.decision_json) as Decision;
    } catch {
      continue; // a damaged row: verify reports it; it gives no line
    }
    lines.push(offRoadLine(row.step, decision, row.seq, row.ts));
  }
  return byFlow;
}

interface Pending {
  run_id: string;
  flow: string;
  lines: string[];
  /** The seq of each line. */
  seqs: number[];
}

/** What this mirror knows of a file it wrote: its size, and the seq of its last line (0: none). */
interface Known {
  size: number;
  seq: number;
}

/**
 * Writes decisions.jsonl off the answer path. A decision is acknowledged when its row commits; its line is
 * queued here and written by a batched flush shortly after, in seq order, under the mirror lock. It runs on the
 * routing thread (`jsonlThread: false`, TypeScript sources, verify) or on a thread of its own (threaded-mirror.ts).
 *
 * Each file's size after our last write is remembered: when the file still has that size we append; when it
 * does not (another process wrote to it, a crash left it short or torn, or we never saw it) we rebuild its
 * missing suffix from the store instead, which also writes whatever lines we had queued. A failed write is
 * a warning, never an error: the file is rebuilt from the store at its next write, at the run's next load,
 * or by `verify --repair`.
 */
export class JsonlMirror implements DecisionsMirror {
  private readonly pending = new Map<string, Pending>();
  /** New files whose folders and file are being created on the thread pool (mkdir costs far more than a write). */
  private readonly preparing = new Map<string, Promise<void>>();
  private readonly checks = new Set<string>();
  private readonly fds: LruMap<string, number>;
  private readonly known: LruMap<string, Known>;
  private pendingLines = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly onWarning: (w: MirrorWarning) => void;
  private readonly delayMs: number;
  private readonly maxPending: number;
  private readonly createHere: boolean;
  /** Run folders made or found (a new run's folders cost one mkdir per level, not a recursive walk). */
  private readonly folders: FolderMaker;
  private closed = false;

  constructor(
    private readonly source: MirrorSource,
    readonly runBase: string,
    options: MirrorOptions = {},
  ) {
    this.fds = new LruMap(options.maxOpen ?? 256, (_file, fd) => closeQuietly(fd));
    this.known = new LruMap(options.maxKnown ?? 65_536);
    this.onWarning = options.onWarning ?? defaultMirrorWarning;
    this.delayMs = options.delayMs ?? 1;
    this.maxPending = options.maxPending ?? 512;
    this.createHere = options.createHere ?? false;
    this.folders = new FolderMaker(path.resolve(runBase));
  }

  fileFor(run_id: string, flow: string): string {
    return decisionsJsonlPath(this.runBase, run_id, flow);
  }

  /** Queues the line of a committed off-road decision (`seq`: its route's). */
  enqueue(run_id: string, flow: string, line: string, seq: number): void {
    if (this.closed) return;
    const file = this.fileFor(run_id, flow);
    let p = this.pending.get(file);
    if (!p) this.pending.set(file, (p = { run_id, flow, lines: [], seqs: [] }));
    p.lines.push(line);
    p.seqs.push(seq);
    this.pendingLines++;
    if (!this.createHere && !this.known.has(file) && !this.preparing.has(file)) this.prepare(file);
    this.schedule();
  }

  /**
   * Creates a file we have not seen, off the event loop: its folders, then the file itself with O_EXCL, so that
   * when that succeeds we know it is new and empty and the first flush appends to it without reading anything.
   * A file that already exists is left to the flush (which then rebuilds its missing suffix from the store).
   */
  private prepare(file: string): void {
    const done = (async () => {
      try {
        await mkdir(path.dirname(file), { recursive: true });
        const fd = await openFd(file, 'ax');
        if (this.closed) {
          closeQuietly(fd);
          return;
        }
        this.fds.set(file, fd);
        this.known.set(file, { size: 0, seq: 0 });
      } catch {
        // EEXIST, or a folder we cannot make: the flush finds out and repairs or warns.
      } finally {
        this.preparing.delete(file);
      }
    })();
    this.preparing.set(file, done);
  }

  /** Brings a run's files up to the store at the next flush (a run just loaded: a crash may have left them short). */
  check(run_id: string): void {
    if (this.closed) return;
    this.checks.add(run_id);
    this.schedule();
  }

  private schedule(): void {
    if (this.pendingLines >= this.maxPending) {
      this.flushSync();
      return;
    }
    this.timer ??= setTimeout(() => this.flushSync(), this.delayMs);
  }

  async flush(): Promise<void> {
    while (this.preparing.size > 0) await Promise.all([...this.preparing.values()]);
    this.flushSync();
  }

  /** Writes every queued line (and runs queued checks) now. */
  flushSync(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0 && this.checks.size === 0) return;
    // Files still being created wait for the next flush (their lines stay queued, in order).
    const pending: Pending[] = [];
    for (const [file, p] of this.pending) {
      if (this.preparing.has(file)) continue;
      pending.push(p);
      this.pending.delete(file);
      this.pendingLines -= p.lines.length;
    }
    const checks = [...this.checks];
    this.checks.clear();
    if (this.pending.size > 0) this.timer = setTimeout(() => this.flushSync(), this.delayMs);
    if (pending.length === 0 && checks.length === 0) return;
    try {
      this.source.exclusive(() => {
        // A repair writes every line the store has, the queued ones included (they were committed before they were queued).
        const repaired = new Set<string>();
        for (const run_id of checks) this.repairRun(run_id, undefined, repaired);
        for (const p of pending) if (!repaired.has(this.fileFor(p.run_id, p.flow))) this.write(p);
      });
    } catch (err) {
      // The lock could not be taken (a busy or broken database): nothing was written; the files are rebuilt later.
      for (const p of pending) this.forget(p.run_id, p.flow, err);
    }
  }

  private write(p: Pending): void {
    const file = this.fileFor(p.run_id, p.flow);
    const known = this.known.get(file) ?? (this.createHere ? this.create(file) : undefined);
    if (known === undefined) {
      this.repairFile(p.run_id, p.flow, undefined);
      return;
    }
    // Lines a rebuild already wrote: on a writer thread a line can arrive after a rebuild that read its
    // (committed) row from the database.
    let from = 0;
    while (from < p.seqs.length && p.seqs[from]! <= known.seq) from++;
    if (from === p.lines.length) return;
    let fd: number | undefined;
    try {
      fd = this.fds.get(file);
      if (fd === undefined) {
        fd = openSync(file, 'a');
        this.fds.set(file, fd);
      }
      if (fstatSync(fd).size !== known.size) {
        this.repairFile(p.run_id, p.flow, undefined);
        return;
      }
      const text = (from === 0 ? p.lines : p.lines.slice(from)).join('');
      const bytes = Buffer.byteLength(text, 'utf8');
      const n = writeSync(fd, text);
      if (n !== bytes) throw new Error(`short write: ${n} of ${bytes} bytes`);
      this.known.set(file, { size: known.size + bytes, seq: p.seqs[p.seqs.length - 1]! });
    } catch (err) {
      this.forget(p.run_id, p.flow, err);
    }
  }

  /**
   * Creates a file we have not seen, with its folders, when its first lines are written (`createHere`): with O_EXCL,
   * so that when that succeeds we know it is new and empty and append without reading anything. A file that
   * already exists (or a folder we cannot make) is left to the rebuild from the store, which finds out or warns.
   */
  private create(file: string): Known | undefined {
    try {
      this.folders.ensure(path.dirname(file));
      this.fds.set(file, openSync(file, 'ax'));
    } catch {
      return undefined;
    }
    const known = { size: 0, seq: 0 };
    this.known.set(file, known);
    return known;
  }

  /** Forgets what we knew of a file after a failure, so that its next write rebuilds it from the store. */
  private forget(run_id: string, flow: string, err: unknown): void {
    const file = this.fileFor(run_id, flow);
    this.fds.delete(file);
    this.known.delete(file);
    this.onWarning({ code: 'JSONL_WRITE_FAILED', run_id, flow, file, message: `decisions.jsonl write failed: ${err instanceof Error ? err.message : String(err)}` });
  }

  private repairFile(run_id: string, flow: string, out: JsonlRepair[] | undefined): void {
    const rows = this.source.offroadRows(run_id).filter((r) => r.flow === flow);
    this.repairOne(run_id, flow, expectedLines(rows).get(flow) ?? [], lastSeq(rows, flow), out);
  }

  private repairRun(run_id: string, out: JsonlRepair[] | undefined, repaired?: Set<string>): void {
    const rows = this.source.offroadRows(run_id);
    for (const [flow, lines] of expectedLines(rows)) {
      this.repairOne(run_id, flow, lines, lastSeq(rows, flow), out);
      repaired?.add(this.fileFor(run_id, flow));
    }
  }

  private repairOne(run_id: string, flow: string, lines: string[], seq: number, out: JsonlRepair[] | undefined): void {
    const file = this.fileFor(run_id, flow);
    this.fds.delete(file);
    this.known.delete(file);
    // The repair writes every line the store has; lines still queued for the file were committed before they
    // were queued, so they are among them.
    const queued = this.pending.get(file);
    if (queued) {
      this.pending.delete(file);
      this.pendingLines -= queued.lines.length;
    }
    try {
      const st = lstatIfAny(file);
      if (st && !st.isFile()) throw new Error('not a regular file');
      if (!st) this.folders.ensure(path.dirname(file));
      const r = repairJsonlFile(file, lines);
      if (!r.diverged) this.known.set(file, { size: r.size, seq });
      if (out && (r.appended > 0 || r.torn_line_removed)) out.push({ run_id, flow, file, appended: r.appended, torn_line_removed: r.torn_line_removed });
    } catch (err) {
      this.onWarning({ code: 'JSONL_WRITE_FAILED', run_id, flow, file, message: `decisions.jsonl repair failed: ${err instanceof Error ? err.message : String(err)}` });
    }
  }

  async repair(run_id?: string): Promise<JsonlRepair[]> {
    this.flushSync();
    const out: JsonlRepair[] = [];
    this.source.exclusive(() => {
      for (const id of run_id === undefined ? this.source.runIds() : [run_id]) this.repairRun(id, out);
    });
    return out;
  }

  /** Closes the files. Call `flush()` first to wait for files being created. */
  close(): void {
    this.flushSync();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.fds.clear();
    this.known.clear();
  }
}

/** The seq of a flow's last off-road row (0: none). */
function lastSeq(rows: readonly OffroadRow[], flow: string): number {
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i]!.flow === flow) return rows[i]!.seq;
  return 0;
}

function lstatIfAny(file: string) {
  try {
    return lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed or the disk went away: nothing to keep
  }
}
