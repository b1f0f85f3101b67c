import type { Decision, KernelStore, RouteRecord, RunState } from '../contracts/index.js';

/**
 * The default store: runs live in this process only. Keeps each run's state and idempotency keys, and
 * optionally the records themselves (`keepRecords`) for tests and the demo.
 */
export class MemoryStore implements KernelStore {
  private readonly runs = new Map<string, RunState>();
  private readonly byRequest = new Map<string, Decision>();
  readonly records: RouteRecord[] = [];
  constructor(private readonly options: { keepRecords?: boolean } = {}) {}

  loadRun(run_id: string): RunState | undefined {
    return this.runs.get(run_id);
  }
  findByRequestId(run_id: string, request_id: string): Decision | undefined {
    return this.byRequest.get(`${run_id}\u0000${request_id}`);
  }
  append(record: RouteRecord, state: RunState): void {
    this.runs.set(record.run_id, state);
    if (record.request_id !== null) this.byRequest.set(`${record.run_id}\u0000${record.request_id}`, record.decision);
    if (this.options.keepRecords) this.records.push(record);
  }
  close(): void {}
}
