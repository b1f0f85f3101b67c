// A worker thread of the service's heavy reads (verify, replay): opens the ledger itself (its own SQLite connection
// or PostgreSQL pool, never writing), rebuilds the flows, does one job, posts the result, and exits. The service
// terminates it when its request times out, so the work stops with the request.
import { parentPort, workerData } from 'node:worker_threads';
import type { Flow } from '../contracts/flow.js';
import { defineFlows } from '../kernel/index.js';
import { openLedgerAt, verifyLedger } from '../ledger/index.js';
import { replayRecorded } from '../runs/index.js';

/** A heavy read: the whole ledger's verify, or one run's replay. */
export type HeavyReadJob = { kind: 'verify' } | { kind: 'replay'; run_id: string; maxDivergences?: number };

export interface ReadWorkerData {
  /** The SQLite file or the postgres:// URL (with its password: it never leaves the process). */
  location: string;
  /** RUN_BASE of a SQLite ledger's decisions.jsonl files (verify compares them). */
  runBase?: string;
  defs: Flow[];
  flowsHash: string;
  job: HeavyReadJob;
}

export type ReadWorkerMessage = { result: unknown } | { error: { name: string; message: string; code?: string } };

const port = parentPort;
if (port) {
  const data = workerData as ReadWorkerData;
  const run = async (): Promise<unknown> => {
    const flows = defineFlows(data.defs);
    if (flows.hash !== data.flowsHash) throw new Error(`read worker: the flows rebuilt in the worker hash ${flows.hash}, not ${data.flowsHash}`);
    // No jsonl thread, no checkpoint thread: this connection only reads (verify is run with repair off).
    const ledger = openLedgerAt(data.location, { create: false, readOnly: true, jsonlThread: false, walCheckpoint: 'inline', ...(data.runBase !== undefined ? { runBase: data.runBase } : {}) });
    try {
      const job = data.job;
      if (job.kind === 'verify') return await verifyLedger(ledger, { repair: false });
      return await replayRecorded(ledger, job.run_id, flows, job.maxDivergences !== undefined ? { maxDivergences: job.maxDivergences } : {});
    } finally {
      await ledger.close();
    }
  };
  run().then(
    (result) => port.postMessage({ result } satisfies ReadWorkerMessage),
    (err: unknown) => {
      const e = err instanceof Error ? err : new Error(String(err));
      const code = (e as { code?: unknown }).code;
      port.postMessage({ error: { name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}) } } satisfies ReadWorkerMessage);
    },
  );
}
