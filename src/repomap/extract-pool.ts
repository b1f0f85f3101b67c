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
}

/** Input below which no worker is started (starting one and loading its grammars costs ~100–200 ms). */
export const MIN_PARALLEL_BYTES = 2 * 1024 * 1024;
/** Files are handed out in chunks of at most this many characters, and of about an eighth of a thread's share (to balance). */
const CHUNK_CHARS = 256 * 1024;
const MIN_CHUNK_CHARS = 8 * 1024;
/** Chunks a worker holds at once (one running, one waiting), so it never idles while this thread is busy. */
const IN_FLIGHT = 2;

/** The threads an extraction of `chars` characters uses: as requested, else (env NAVKERNEL_INDEX_THREADS, else the machine's parallelism up to 4) when the input is large enough. */
export function extractThreads(chars: number, requested?: number): number {
  if (requested !== undefined && requested >= 1) return Math.floor(requested);
  const env = Number(process.env.NAVKERNEL_INDEX_THREADS);
  if (Number.isInteger(env) && env >= 1) return env;
  return chars < MIN_PARALLEL_BYTES ? 1 : Math.min(4, os.availableParallelism());
}

function chunksOf(items: FileRecordInput[], size: number): number[][] {
  const chunks: number[][] = [];
  let cur: number[] = [];
  let held = 0;
  items.forEach((it, i) => {
    cur.push(i);
    held += it.text.length;
    if (held >= size) {
      chunks.push(cur);
      cur = [];
      held = 0;
    }
  });
  if (cur.length) chunks.push(cur);
  return chunks;
}

/** Lets queued messages (a worker's results) be handled between two chunks of this thread's own work. */
const yieldToEvents = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Extracts the record (and extras) of every item, spread over worker threads and this one: chunks are
 * handed out in order to whichever thread is free. The results are in item order and the same bytes
 * whatever the split (each is a pure function of its item). From TypeScript sources (vitest, tsx) there is
 * no compiled worker file: everything runs on this thread then. A worker that fails is stopped and its
 * chunks are done here.
 */
export async function extractAll(items: FileRecordInput[], options: ExtractAllOptions = {}): Promise<{ results: Extracted[]; threads: number; by_workers: number }> {
  const out: (Extracted | undefined)[] = new Array(items.length);
  const fn: FileExtrasFn | undefined = options.extras ? await loadExtras(options.extras) : undefined;
  let finished = 0;
  const progress = (n: number) => {
    finished += n;
    options.onProgress?.(finished);
  };
  const runChunk = async (chunk: number[]) => {
    for (const i of chunk) {
      const it = items[i]!;
      const record = await extractFileRecord(it);
      out[i] = fn ? { record, extras: fn(it.path, it.language, it.text) } : { record };
    }
    progress(chunk.length);
  };
  const workerFile = new URL('./extract-worker.js', import.meta.url);
  const chars = items.reduce((s, it) => s + it.text.length, 0);
  const wanted = extractThreads(chars, options.threads);
  const chunks = chunksOf(items, Math.max(MIN_CHUNK_CHARS, Math.min(CHUNK_CHARS, Math.ceil(chars / (wanted * 8)))));
  let threads = Math.min(wanted, chunks.length);
  if (threads > 1 && !existsSync(fileURLToPath(workerFile))) threads = 1;
  let next = 0;
  let byWorkers = 0;
  const redo: number[] = [];
  const workers: Worker[] = [];
  const pending = new Set<Promise<void>>();
  try {
    for (let t = 1; t < threads; t++) {
      const data: ExtractWorkerData = { extras: options.extras };
      const w = new Worker(workerFile, { workerData: data });
      workers.push(w);
      const held = new Set<number>();
      let dead = false;
      let settle!: () => void;
      const done = new Promise<void>((resolve) => (settle = resolve));
      pending.add(done);
      const feed = () => {
        while (!dead && held.size < IN_FLIGHT && next < chunks.length) {
          const c = next++;
          held.add(c);
          w.postMessage({ chunk: c, items: chunks[c]!.map((i) => items[i]!) } satisfies ExtractJob);
        }
        if (held.size === 0) settle();
      };
      const fail = () => {
        if (dead) return;
        dead = true;
        for (const c of held) redo.push(c);
        held.clear();
        void w.terminate();
        settle();
      };
      w.on('message', (m: ExtractWorkerMessage) => {
        if ('error' in m) return fail();
        chunks[m.chunk]!.forEach((i, k) => (out[i] = m.results[k]));
        held.delete(m.chunk);
        progress(chunks[m.chunk]!.length);
        byWorkers += chunks[m.chunk]!.length;
        feed();
      });
      w.on('error', fail);
      w.on('exit', fail);
      feed();
    }
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
  return { results: out as Extracted[], threads, by_workers: byWorkers };
}
