import type { Decision } from '../contracts/decision.js';
import type { KernelStore, RouteRecord, RunState, StoredEscalation } from '../contracts/ports.js';
import { LedgerConflictError } from '../contracts/store-errors.js';

/** Options of MemoryStore. */
export interface MemoryStoreOptions {
  /** Keep every RouteRecord in `records` (tests, the demo). Unbounded: never for long-lived processes. */
  keepRecords?: boolean;
  /**
   * Runs kept (default 100,000). Past it the least recently routed run is forgotten (O(1)): routing it again
   * starts it afresh at seq 1, without its loop counters, signatures or idempotency keys.
   */
  maxRuns?: number;
  /**
   * Idempotency keys kept, over all runs (default 100,000, the most recent): an older request_id routed again
   * is routed as a new request.
   */
  maxRequestIds?: number;
}

interface MemoryRun {
  state: RunState;
  /** The run's escalations (ids), forgotten with it. */
  escalations?: string[];
  /** Tells a run routed afresh after being forgotten from its earlier self (whose keys may linger). */
  generation: number;
}

interface Recorded {
  decision: Decision;
  request_hash: string;
  generation: number;
}

/**
 * The default store: runs live in this process only, in bounded memory (see MemoryStoreOptions: at most
 * `maxRuns` runs, least recently routed forgotten, and `maxRequestIds` idempotency keys, oldest forgotten).
 */
export class MemoryStore implements KernelStore {
  private readonly runs = new Map<string, MemoryRun>();
  private readonly requests = new Map<string, Recorded>();
  private readonly escalations = new Map<string, StoredEscalation>();
  private generation = 0;
  /** The run appended last (the newest entry of `runs`): appending to it again leaves the order as it is. */
  private newest: string | undefined;
  readonly records: RouteRecord[] = [];
  readonly maxRuns: number;
  readonly maxRequestIds: number;
  private readonly keepRecords: boolean;

  constructor(options: MemoryStoreOptions = {}) {
    this.keepRecords = options.keepRecords ?? false;
    this.maxRuns = options.maxRuns ?? 100_000;
    this.maxRequestIds = options.maxRequestIds ?? 100_000;
    if (!(this.maxRuns >= 1) || !(this.maxRequestIds >= 0)) throw new RangeError('MemoryStore limits must be positive');
  }

  /** Runs held now. */
  get size(): number {
    return this.runs.size;
  }

  loadRun(run_id: string): Promise<RunState | undefined> {
    return Promise.resolve(this.runs.get(run_id)?.state);
  }

  /** Idempotency keys held now. */
  get requestIds(): number {
    return this.requests.size;
  }

  findByRequestId(run_id: string, request_id: string): Promise<{ decision: Decision; request_hash: string } | undefined> {
    const r = this.requests.get(`${run_id}\u0000${request_id}`);
    if (r === undefined || r.generation !== this.runs.get(run_id)?.generation) return Promise.resolve(undefined);
    return Promise.resolve({ decision: r.decision, request_hash: r.request_hash });
  }

  append(record: RouteRecord, state: RunState): Promise<void> {
    let run = this.runs.get(record.run_id);
    const head = run?.state.seq ?? 0;
    if (record.seq !== head + 1) return Promise.reject(new LedgerConflictError(record.run_id, record.seq));
    const key = record.request_id === null ? undefined : `${record.run_id}\u0000${record.request_id}`;
    if (key !== undefined && run !== undefined && this.requests.get(key)?.generation === run.generation) {
      return Promise.reject(new LedgerConflictError(record.run_id, record.seq, { message: `request_id ${JSON.stringify(record.request_id)} of run ${JSON.stringify(record.run_id)} is already recorded` }));
    }
    if (run) {
      run.state = state;
      // Most recently routed last: the first entry is always the one to forget. (A delete and set per route would
      // also make the Map rehash its whole table every few routes: skipped when the run is already the newest.)
      if (this.newest !== record.run_id) {
        this.runs.delete(record.run_id);
        this.runs.set(record.run_id, run);
      }
    } else {
      run = { state, generation: ++this.generation };
      this.runs.set(record.run_id, run);
    }
    this.newest = record.run_id;
    if (key !== undefined && this.maxRequestIds > 0) {
      this.requests.delete(key);
      this.requests.set(key, { decision: record.decision, request_hash: record.request_hash, generation: run.generation });
      if (this.requests.size > this.maxRequestIds) this.requests.delete(this.requests.keys().next().value as string);
    }
    const d = record.decision;
    if (d.decision === 'ESCALATE' && d.escalation_id !== undefined) {
      this.escalations.set(d.escalation_id, {
        escalation_id: d.escalation_id,
        run_id: record.run_id,
        seq: record.seq,
        flow: record.flow,
        step: record.step,
        reason: d.reason,
        opened_ts: record.ts,
        status: 'open',
        resolution: null,
        resolved_by: null,
        resolved_ts: null,
        resolution_hash: null,
      });
      (run.escalations ??= []).push(d.escalation_id);
    }
    if (this.runs.size > this.maxRuns) {
      const oldest = this.runs.keys().next().value as string;
      for (const id of this.runs.get(oldest)!.escalations ?? []) this.escalations.delete(id);
      this.runs.delete(oldest);
    }
    if (this.keepRecords) this.records.push(record);
    return Promise.resolve();
  }

  /** An escalation of a run this store holds (open until `resolveEscalation`). */
  escalation(escalation_id: string): Promise<StoredEscalation | undefined> {
    const e = this.escalations.get(escalation_id);
    return Promise.resolve(e ? { ...e } : undefined);
  }

  /** A run's escalations by seq. */
  runEscalations(run_id: string): Promise<StoredEscalation[]> {
    const ids = this.runs.get(run_id)?.escalations ?? [];
    return Promise.resolve(ids.map((id) => ({ ...this.escalations.get(id)! })));
  }

  /** Open escalations of a run. */
  openEscalationCount(run_id: string): Promise<number> {
    return this.runEscalations(run_id).then((es) => es.filter((e) => e.status === 'open').length);
  }

  /** Records a person's resolution (`resolveEscalation` of navkernel checks it against the flow first); false when it was not open. */
  resolveEscalation(escalation_id: string, resolution_json: string, by: string, ts: string, resolution_hash: string): Promise<boolean> {
    const e = this.escalations.get(escalation_id);
    if (!e || e.status !== 'open') return Promise.resolve(false);
    Object.assign(e, { status: 'resolved', resolution: resolution_json, resolved_by: by, resolved_ts: ts, resolution_hash });
    return Promise.resolve(true);
  }

  /** A memory store keeps no hash chain. */
  routeHash(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
