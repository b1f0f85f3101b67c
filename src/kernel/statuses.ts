/** Statuses that mean "this step succeeded" for a linear step (matched case-insensitively); a step adds its `success`. */
export const SUCCESS_STATUSES: ReadonlySet<string> = new Set(['verified', 'succeeded', 'success', 'pass', 'passed']);

/** Statuses that look like a failure (matched case-insensitively); a step adds its `failure`. */
export const FAILURE_STATUSES: ReadonlySet<string> = new Set(['failed', 'failure', 'fail', 'error', 'errored', 'blocked']);
