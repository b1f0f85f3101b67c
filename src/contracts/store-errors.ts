import { NavkernelError } from './errors.js';

/**
 * Another writer recorded the run's next seq first (another kernel, process or host on the same run).
 * A store rejects `append` with it and records nothing; the kernel reloads the run and routes again, and
 * passes it on only when the run keeps moving under it.
 */
export class LedgerConflictError extends NavkernelError {
  readonly run_id: string;
  readonly seq: number;
  constructor(run_id: string, seq: number, options?: { cause?: unknown; message?: string }) {
    super('LEDGER_CONFLICT', options?.message ?? `run ${JSON.stringify(run_id)} already has a route with seq ${seq}: another writer is routing this run`, options);
    this.name = 'LedgerConflictError';
    this.run_id = run_id;
    this.seq = seq;
  }
}

/** The same `request_id` came again with a different request body. Nothing was recorded. */
export class IdempotencyConflictError extends NavkernelError {
  readonly run_id: string;
  readonly request_id: string;
  constructor(run_id: string, request_id: string) {
    super(
      'IDEMPOTENCY_CONFLICT',
      `request_id ${JSON.stringify(request_id)} of run ${JSON.stringify(run_id)} was already used with a different request body; nothing was recorded (use a new request_id for a new request)`,
    );
    this.name = 'IdempotencyConflictError';
    this.run_id = run_id;
    this.request_id = request_id;
  }
}

/** The store cannot be reached or refused to work (a server down, a disk gone). */
export class StoreUnavailableError extends NavkernelError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('STORE_UNAVAILABLE', message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** The run was archived out of the ledger (a tombstone in its run register): restore it before routing it again. */
export class RunArchivedError extends NavkernelError {
  readonly run_id: string;
  constructor(run_id: string, options?: { cause?: unknown }) {
    super('RUN_ARCHIVED', `run ${JSON.stringify(run_id)} was archived out of the ledger; nothing was recorded (navkernel ledger restore its bundle to route it again, or use a new run id)`, options);
    this.name = 'RunArchivedError';
    this.run_id = run_id;
  }
}
