import { NavkernelError } from '../../contracts/errors.js';

/** A bundle that cannot be read, does not verify, or does not fit the ledger it is restored into (ARCHIVE_INVALID). Nothing was changed. */
export function archiveInvalid(message: string, options?: { cause?: unknown }): NavkernelError {
  return new NavkernelError('ARCHIVE_INVALID', message, options);
}

/** A run asked for by name cannot be archived (unknown, not finished, or archived already). Nothing was changed. */
export class NotArchivableError extends NavkernelError {
  readonly run_id: string;
  constructor(run_id: string, why: string) {
    super('RUN_NOT_ARCHIVABLE', `run ${JSON.stringify(run_id)} cannot be archived: ${why}`);
    this.name = 'NotArchivableError';
    this.run_id = run_id;
  }
}

/** A checkpoint file that cannot be read, or whose signature does not verify with the given key (CHECKPOINT_INVALID). */
export function checkpointInvalid(message: string, options?: { cause?: unknown }): NavkernelError {
  return new NavkernelError('CHECKPOINT_INVALID', message, options);
}
