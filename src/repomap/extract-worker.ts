// A worker thread of `extractAll`: extracts the records (and extras) of the chunks of files it is handed,
// answering each chunk with its results in the order given.
import { parentPort, workerData } from 'node:worker_threads';
import { type Extracted, extractFileRecord, type FileExtrasSpec, type FileRecordInput, loadExtras } from './file-record.js';

export interface ExtractWorkerData {
  extras: FileExtrasSpec | undefined;
}
export interface ExtractJob {
  chunk: number;
  items: FileRecordInput[];
}
export type ExtractWorkerMessage = { chunk: number; results: Extracted[] } | { error: { name: string; message: string } };

const port = parentPort;
if (port) {
  const data = workerData as ExtractWorkerData;
  const extras = data.extras ? loadExtras(data.extras) : undefined;
  // Jobs run one after another, in the order they arrive.
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (job: ExtractJob | null) => {
    if (job === null) {
      queue = queue.then(() => port.close());
      return;
    }
    queue = queue.then(async () => {
      try {
        const fn = extras ? await extras : undefined;
        const results: Extracted[] = [];
        for (const item of job.items) {
          const record = await extractFileRecord(item);
          results.push(fn ? { record, extras: fn(item.path, item.language, item.text) } : { record });
        }
        port.postMessage({ chunk: job.chunk, results } satisfies ExtractWorkerMessage);
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        port.postMessage({ error: { name: e.name, message: e.message } } satisfies ExtractWorkerMessage);
      }
    });
  });
}
