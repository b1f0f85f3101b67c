import { NavkernelError } from '../contracts/errors.js';

/** What is wrong with a report file. */
export type ReportProblem =
  | 'not_found'
  | 'not_a_file'
  | 'unreadable'
  | 'too_large'
  | 'empty'
  | 'unknown_format'
  | 'doctype'
  | 'truncated'
  | 'malformed'
  | 'outside_root'
  | 'not_enabled'
  | 'git_failed';

/**
 * A report that cannot be read into forensics (code INVALID_REPORT): `file` names it, `problem` says what is
 * wrong in one stable word, the message says it in words (and where, when known).
 */
export class ReportError extends NavkernelError {
  constructor(
    readonly file: string,
    readonly problem: ReportProblem,
    detail: string,
  ) {
    super('INVALID_REPORT', `${file}: ${detail}`);
    this.name = 'ReportError';
  }
}
