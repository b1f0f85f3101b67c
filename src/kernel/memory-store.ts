import type { Decision } from '../contracts/decision.js';
import type { KernelStore, RouteRecord, RunState } from '../contracts/ports.js';
import { LedgerConflictError } from '../contracts/store-errors.js';

export interface MemoryStoreOptions {
  /** Keep every RouteRecord in `records` (tests, the demo). Unbounded: never for long-lived processes. */
  keepRecords?: boolean;
  /**
   * Runs kept (default 100,000). Past it the least recently routed run is forgotten (O(1)): routing it again
   * starts it afresh at seq 1, without its loop counters, signatures or idempotency keys.
   */
  maxRuns?: number;
  /** Idempotency keys kept per run (default 1,000, the most recent): an older request_id routed again is routed as new. */
  maxRequestIdsPerRun?: number;
}

interface MemoryRun {
  state: RunState;
  requests: Map<string, { decision: Decision; request_hash: string }>;
}

/**
 * The default store: runs live in this process only, in bounded memory (see MemoryStoreOptions: at most
 * `maxRuns` runs of at most `maxRequestIdsPerRun` idempotency keys each, least recently routed forgotten).
 */
export class MemoryStore implements KernelStore {
  private readonly runs = new Map<string, MemoryRun>();
  readonly records: RouteRecord[] = [];
  readonly maxRuns: number;
  readonly maxRequestIdsPerRun: number;
  private readonly keepRecords: boolean;

  constructor(options: MemoryStoreOptions = {}) {
    this.keepRecords = options.keepRecords ?? false;
    this.maxRuns = options.maxRuns ?? 100_000;
    this.maxRequestIdsPerRun = options.maxRequestIdsPerRun ?? 1_000;
    if (!(this.maxRuns >= 1) || !(this.maxRequestIdsPerRun >= 0)) throw new RangeError('MemoryStore limits must be positive');
  }

  /** Runs held now. */
  get size(): number {
    return this.runs.size;
  }

  loadRun(run_id: string): Promise<RunState | undefined> {
    return Promise.resolve(this.runs.get(run_id)?.state);
  }

  findByRequestId(run_id: string, request_id: string): Promise<{ decision: Decision; request_hash: string } | undefined> {
    return Promise.resolve(this.runs.get(run_id)?.requests.get(request_id));
  }

  append(record: RouteRecord, state: RunState): Promise<void> {
    let run = this.runs.get(record.run_id);
    const head = run?.state.seq ?? 0;
    if (record.seq !== head + 1) return Promise.reject(new LedgerConflictError(record.run_id, record.seq));
    if (record.request_id !== null && run?.requests.has(record.request_id)) {
      return Promise.reject(new LedgerConflictError(record.run_id, record.seq, { message: `request_id ${JSON.stringify(record.request_id)} of run ${JSON.stringify(record.run_id)} is already recorded` }));
    }
    if (run) {
      // Most recently routed last: the first entry is always the one to forget.
      this.runs.delete(record.run_id);
      run.state = state;
    } else {
      run = { state, requests: new Map() };
    }
    this.runs.set(record.run_id, run);
    if (record.request_id !== null && this.maxRequestIdsPerRun > 0) {
      run.requests.set(record.request_id, { decision: record.decision, request_hash: record.request_hash });
      if (run.requests.size > this.maxRequestIdsPerRun) run.requests.delete(run.requests.keys().next().value as string);
    }
    if (this.runs.size > this.maxRuns) this.runs.delete(this.runs.keys().next().value as string);
    if (this.keepRecords) this.records.push(record);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
