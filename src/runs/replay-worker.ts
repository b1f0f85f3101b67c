// A worker thread of `replayAll`: opens the ledger read-only itself, rebuilds the flows, and replays the runs it
// is handed one at a time, answering each with its report.
import { parentPort, workerData } from 'node:worker_threads';
import type { ReplayReport } from '../contracts/ledger.js';
import type { Flow } from '../contracts/flow.js';
import { defineFlows, loadFlows } from '../kernel/index.js';
import { openLedgerAt } from '../ledger/index.js';
import { replayRun } from './replay.js';

export interface ReplayWorkerData {
  open: string;
  flowsPath: string | undefined;
  defs: Flow[] | undefined;
  /** Undefined: replay each run with its recorded flow versions, read from the ledger. */
  flowsHash: string | undefined;
  maxDivergences?: number;
  missingFlowDiverges?: boolean;
  compareState?: boolean;
}
export interface ReplayJob {
  index: number;
  run_id: string;
}
export type ReplayWorkerMessage = { ready: true } | { index: number; report: ReplayReport } | { error: { name: string; message: string; code?: string } };

const port = parentPort;
if (port) {
  const data = workerData as ReplayWorkerData;
  const failure = (err: unknown) => {
    const e = err instanceof Error ? err : new Error(String(err));
    const code = (e as { code?: unknown }).code;
    port.postMessage({ error: { name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}) } } satisfies ReplayWorkerMessage);
  };
  try {
    const flows = data.flowsHash === undefined ? undefined : data.flowsPath !== undefined ? await loadFlows(data.flowsPath) : defineFlows(data.defs ?? []);
    if (flows && flows.hash !== data.flowsHash) throw new Error(`replay worker: the flows rebuilt in the worker hash ${flows.hash}, not ${data.flowsHash}`);
    const ledger = openLedgerAt(data.open, { create: false, readOnly: true, jsonl: false });
    port.on('message', (job: ReplayJob | null) => {
      if (job === null) {
        void ledger.close().finally(() => port.close());
        return;
      }
      replayRun(ledger, job.run_id, flows, { ...(data.maxDivergences !== undefined ? { maxDivergences: data.maxDivergences } : {}), ...(data.missingFlowDiverges ? { missingFlowDiverges: true } : {}), ...(data.compareState === false ? { compareState: false } : {}) }).then(
        (report) => port.postMessage({ index: job.index, report } satisfies ReplayWorkerMessage),
        failure,
      );
    });
    port.postMessage({ ready: true } satisfies ReplayWorkerMessage);
  } catch (err) {
    failure(err);
  }
}
