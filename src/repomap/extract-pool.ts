import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type Extracted, extractFileRecord, type FileExtrasFn, type FileExtrasSpec, type FileRecordInput, loadExtras } from './file-record.js';

export type { Extracted };
import type { ExtractJob, ExtractWorkerData, ExtractWorkerMessage } from './extract-worker.js';

export interface ExtractAllOptions {
  extras?: FileExtrasSpec;
  /**
   * Threads in all, this one included; 1 = this thread only. Default: NAVKERNEL_INDEX_THREADS, else the
   * machine's available parallelism (at most 4), but one thread below `MIN_PARALLEL_BYTES` of input (a
   * worker's start costs more than it saves there).
   */
  threads?: number;
  /** Called with the number of items done so far, as chunks finish. */
  onProgress?: (done: number) => void;
  /** Called on this thread as each chunk finishes (on any thread): the items' positions and their results. */
  onResults?: (items: readonly number[], results: readonly Extracted[]) => void;
  /** Called once on this thread right after worker threads were started (never without workers), before it takes its share. */
  whileParsing?: () => void;
  /**
   * With no worker threads: items are extracted a chunk at a time as they are added (at the caller's next `pause()`
   * once a chunk is full) rather than all at `finish()`, so at most a chunk's texts are held, not every file's until
   * all were read. Chunks rather than single files: extracting file by file, between reads, cost ~4–7% more CPU on
   * sympy (measured). `Extraction.ordered` tells whether it applies.
   */
  eager?: boolean;
}

/** Input below which no worker is started (starting one and loading its grammars costs ~100–200 ms). */
export const MIN_PARALLEL_BYTES = 2 * 1024 * 1024;
/** Files are handed out in chunks of at most this many characters, and of about an eighth of a thread's share (to balance). */
const CHUNK_CHARS = 256 * 1024;
const MIN_CHUNK_CHARS = 8 * 1024;
/** Chunks a worker holds at once (one running, one waiting), so it never idles while this thread is busy. */
const IN_FLIGHT = 2;
/** Characters this thread extracts between two looks at the workers' messages (its own chunks are as long as theirs). */
const YIELD_CHARS = 32 * 1024;

/**
 * The threads an extraction of `chars` characters uses: as requested, else (env NAVKERNEL_INDEX_THREADS, else the
 * cores the 1-minute load average leaves idle, rounded up, at most 4) when the input is large enough. A worker costs
 * CPU of its own (~0.5 s on a sympy-sized tree: its start, its grammars, compiling the same hot code again, copying
 * the texts to it): it pays only on a core nothing else wants. On 2 cores with a load of 1 or more the index is built
 * on this thread alone: no slower in wall time there, 12% less CPU (measured on sympy at load 10-14).
 */
export function extractThreads(chars: number, requested?: number, load: readonly number[] = os.loadavg()): number {
  if (requested !== undefined && requested >= 1) return Math.floor(requested);
  const env = Number(process.env.NAVKERNEL_INDEX_THREADS);
  if (Number.isInteger(env) && env >= 1) return env;
  if (chars < MIN_PARALLEL_BYTES) return 1;
  const cores = os.availableParallelism();
  return Math.max(1, Math.min(4, cores, Math.ceil(cores - (load[0] ?? 0))));
}

/** Lets queued messages (a worker's results) be handled between two chunks of this thread's own work. */
const yieldToEvents = () => new Promise<void>((resolve) => setImmediate(resolve));

/** An extraction whose items are added while it runs (see startExtraction). */
export interface Extraction {
  /** Adds an item; full chunks go to the worker threads at once. */
  add(item: FileRecordInput): void;
  /** Lets the worker threads' messages be handled (a caller adding items in a long synchronous loop awaits it now and then). */
  pause(): Promise<void>;
  /** Results reach onResults in the order the items were added, a chunk at a time as chunks fill (eager, one thread). */
  readonly ordered: boolean;
  /** After the last `add`: this thread works through what is left with the workers; the results in the order added. */
  finish(): Promise<{ results: Extracted[]; threads: number; by_workers: number }>;
  /** Stops the workers without waiting for the results (the caller failed). */
  cancel(): Promise<void>;
}

/**
 * Starts an extraction of about `expected` characters (which sets the threads and the chunk size): worker
 * threads start now, so they are ready — and already at work on the first chunks — while the caller is still
 * reading the files it adds. Chunks are handed out in order to whichever thread is free; the results are in item
 * order and the same bytes whatever the split (each is a pure function of its item). From TypeScript sources
 * (vitest, tsx) there is no compiled worker file: everything runs on this thread then. A worker that fails is
 * stopped and its chunks are done here.
 */
export function startExtraction(expected: number, options: ExtractAllOptions = {}): Extraction {
  // An item's text is let go once its chunk's results are in (a cold index would otherwise hold every file's text to the end).
  const items: (FileRecordInput | undefined)[] = [];
  const release = (chunk: readonly number[]) => {
    for (const i of chunk) items[i] = undefined;
  };
  const out: (Extracted | undefined)[] = [];
  const fnPromise: Promise<FileExtrasFn> | undefined = options.extras ? loadExtras(options.extras) : undefined;
  let finished = 0;
  const progress = (n: number) => {
    finished += n;
    options.onProgress?.(finished);
  };
  const runChunk = async (chunk: number[]) => {
    const fn = fnPromise ? await fnPromise : undefined;
    let sinceYield = 0;
    for (const i of chunk) {
      const it = items[i]!;
      const record = await extractFileRecord(it);
      out[i] = fn ? { record, extras: fn(it.path, it.language, it.text) } : { record };
      // A worker that finished its chunks meanwhile gets the next ones now, not after this whole chunk.
      if (workers.length && (sinceYield += it.text.length) >= YIELD_CHARS) {
        sinceYield = 0;
        await yieldToEvents();
      }
    }
    release(chunk);
    progress(chunk.length);
    options.onResults?.(chunk, chunk.map((i) => out[i]!));
  };
  const workerFile = new URL('./extract-worker.js', import.meta.url);
  const wanted = extractThreads(expected, options.threads);
  const chunkSize = Math.max(MIN_CHUNK_CHARS, Math.min(CHUNK_CHARS, Math.ceil(expected / (wanted * 8))));
  const threads = wanted > 1 && existsSync(fileURLToPath(workerFile)) ? wanted : 1;
  const eager = threads === 1 && options.eager === true;
  const chunks: number[][] = [];
  let cur: number[] = [];
  let held = 0;
  let next = 0;
  let closed = false;
  let byWorkers = 0;
  const redo: number[] = [];
  const feeders: (() => void)[] = [];
  const workers: Worker[] = [];
  const pending = new Set<Promise<void>>();
  for (let t = 1; t < threads; t++) {
    const data: ExtractWorkerData = { extras: options.extras };
    const w = new Worker(workerFile, { workerData: data });
    workers.push(w);
    const mine = new Set<number>();
    let dead = false;
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    pending.add(done);
    const feed = () => {
      while (!dead && mine.size < IN_FLIGHT && next < chunks.length) {
        const c = next++;
        mine.add(c);
        w.postMessage({ chunk: c, items: chunks[c]!.map((i) => items[i]!) } satisfies ExtractJob);
      }
      if (closed && mine.size === 0) settle();
    };
    feeders.push(feed);
    const fail = () => {
      if (dead) return;
      dead = true;
      for (const c of mine) redo.push(c);
      mine.clear();
      void w.terminate();
      settle();
    };
    w.on('message', (m: ExtractWorkerMessage) => {
      if ('error' in m) return fail();
      chunks[m.chunk]!.forEach((i, k) => (out[i] = m.results[k]));
      release(chunks[m.chunk]!);
      mine.delete(m.chunk);
      progress(chunks[m.chunk]!.length);
      byWorkers += chunks[m.chunk]!.length;
      // The worker gets its next chunk before this thread handles the results.
      feed();
      options.onResults?.(chunks[m.chunk]!, m.results);
    });
    w.on('error', fail);
    w.on('exit', fail);
  }
  const cut = () => {
    if (!cur.length) return;
    chunks.push(cur);
    cur = [];
    held = 0;
    for (const f of feeders) f();
  };
  return {
    add(item) {
      items.push(item);
      cur.push(items.length - 1);
      held += item.text.length;
      if (held >= chunkSize) cut();
    },
    ordered: eager,
    async pause() {
      if (workers.length) return yieldToEvents();
      if (!eager) return;
      while (next < chunks.length) await runChunk(chunks[next++]!);
    },
    async finish() {
      cut();
      closed = true;
      try {
        for (const f of feeders) f();
        if (workers.length && items.length) options.whileParsing?.();
        // This thread takes chunks too, yielding between them so the workers are fed.
        while (next < chunks.length) {
          await runChunk(chunks[next++]!);
          if (workers.length) await yieldToEvents();
        }
        await Promise.all(pending);
        for (const c of redo) await runChunk(chunks[c]!);
      } finally {
        await Promise.all(workers.map((w) => w.terminate()));
      }
      return { results: out as Extracted[], threads: workers.length + 1, by_workers: byWorkers };
    },
    async cancel() {
      closed = true;
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

/** Extracts the record (and extras) of every item, spread over worker threads and this one (see startExtraction). */
export async function extractAll(items: FileRecordInput[], options: ExtractAllOptions = {}): Promise<{ results: Extracted[]; threads: number; by_workers: number }> {
  const run = startExtraction(
    items.reduce((s, it) => s + it.text.length, 0),
    options,
  );
  for (const it of items) run.add(it);
  return run.finish();
}
