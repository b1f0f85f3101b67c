import { NavkernelError } from '../contracts/errors.js';

export { LedgerConflictError, IdempotencyConflictError } from '../contracts/store-errors.js';

/** `run_id` has no route in the ledger. */
export class UnknownRunError extends NavkernelError {
  readonly run_id: string;
  constructor(run_id: string, ledger: string) {
    super('UNKNOWN_RUN', `unknown run ${JSON.stringify(run_id)} in ${ledger}`);
    this.name = 'UnknownRunError';
    this.run_id = run_id;
  }
}

/** The file exists but is not a navkernel ledger (another SQLite database, or not SQLite at all). Never touched. */
export class NotALedgerError extends NavkernelError {
  readonly file: string;
  constructor(file: string, why: string, options?: { cause?: unknown }) {
    super('NOT_A_LEDGER', `${file} is not a navkernel ledger (${why}); refusing to open it`, options);
    this.name = 'NotALedgerError';
    this.file = file;
  }
}

/** The ledger was written by a newer navkernel (schema version above what this one knows). Never rewritten. */
export class LedgerTooNewError extends NavkernelError {
  readonly file: string;
  readonly version: number;
  readonly supported: number;
  constructor(file: string, version: number, supported: number) {
    super('LEDGER_TOO_NEW', `${file} has ledger schema version ${version}; this navkernel reads up to ${supported}. Upgrade navkernel; the file was not changed`);
    this.name = 'LedgerTooNewError';
    this.file = file;
    this.version = version;
    this.supported = supported;
  }
}

/** A read-only command was pointed at a ledger file that does not exist. */
export class LedgerNotFoundError extends NavkernelError {
  readonly file: string;
  constructor(file: string) {
    super('LEDGER_NOT_FOUND', `no ledger at ${file} (use --ledger FILE or NAVKERNEL_LEDGER)`);
    this.name = 'LedgerNotFoundError';
    this.file = file;
  }
}

/** No escalation has this id (UNKNOWN_ESCALATION). */
export function unknownEscalation(id: string): NavkernelError {
  return new NavkernelError('UNKNOWN_ESCALATION', `unknown escalation ${JSON.stringify(id)}`);
}

/** The escalation was resolved before (ESCALATION_ALREADY_RESOLVED); a resolution is recorded once. */
export function escalationAlreadyResolved(id: string, by: string, ts: string): NavkernelError {
  return new NavkernelError('ESCALATION_ALREADY_RESOLVED', `escalation ${JSON.stringify(id)} was already resolved by ${by} at ${ts}`);
}

/** A resolution that the flow graph does not allow (INVALID_RESOLUTION: unknown step, not an injectable flow, missing target). */
export function invalidResolution(message: string): NavkernelError {
  return new NavkernelError('INVALID_RESOLUTION', message);
}
