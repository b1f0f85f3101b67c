import { NavkernelError } from '../../contracts/errors.js';

/** A bundle that cannot be read, does not verify, or does not fit the ledger it is restored into. Nothing was changed. */
export class ArchiveError extends NavkernelError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ARCHIVE_INVALID', message, options);
    this.name = 'ArchiveError';
  }
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

/** A checkpoint file that cannot be read, or whose signature does not verify with the given key. */
export class CheckpointError extends NavkernelError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CHECKPOINT_INVALID', message, options);
    this.name = 'CheckpointError';
  }
}
