import { LedgerConflictError, type Decision, type KernelStore, type RouteRecord, type RunState } from '../contracts/index.js';

/**
 * The default store: runs live in this process only. Keeps each run's state and idempotency keys, and
 * optionally the records themselves (`keepRecords`) for tests and the demo.
 */
export class MemoryStore implements KernelStore {
  private readonly runs = new Map<string, RunState>();
  private readonly byRequest = new Map<string, { decision: Decision; request_hash: string }>();
  readonly records: RouteRecord[] = [];
  constructor(private readonly options: { keepRecords?: boolean } = {}) {}

  loadRun(run_id: string): Promise<RunState | undefined> {
    return Promise.resolve(this.runs.get(run_id));
  }
  findByRequestId(run_id: string, request_id: string): Promise<{ decision: Decision; request_hash: string } | undefined> {
    return Promise.resolve(this.byRequest.get(`${run_id}\u0000${request_id}`));
  }
  append(record: RouteRecord, state: RunState): Promise<void> {
    const head = this.runs.get(record.run_id)?.seq ?? 0;
    if (record.seq !== head + 1) return Promise.reject(new LedgerConflictError(record.run_id, record.seq));
    if (record.request_id !== null) {
      const key = `${record.run_id}\u0000${record.request_id}`;
      if (this.byRequest.has(key)) return Promise.reject(new LedgerConflictError(record.run_id, record.seq, { message: `request_id ${JSON.stringify(record.request_id)} of run ${JSON.stringify(record.run_id)} is already recorded` }));
      this.byRequest.set(key, { decision: record.decision, request_hash: record.request_hash });
    }
    this.runs.set(record.run_id, state);
    if (this.options.keepRecords) this.records.push(record);
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}
