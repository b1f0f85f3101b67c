import type { IndexPlan } from '../../repomap/index.js';

/** One progress report to an MCP client: sent as `notifications/progress` with the request's progressToken. */
export interface ProgressReport {
  progress: number;
  total?: number;
  message?: string;
}
export type ReportProgress = (report: ProgressReport) => void;

/** The navigator's indexing callbacks of one call (NavigatorOptions' onIndexPlan and onProgress). */
export interface IndexProgressHooks {
  onIndexPlan(plan: IndexPlan): void;
  onProgress(done: number, total: number): void;
}

/** Progress reports at most this many times a run (besides the first and the last). */
const STEPS = 20;

const seconds = (ms: number) => (ms < 1000 ? 'under a second' : `about ${Math.round(ms / 1000)} s`);
const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/**
 * What a navigate call tells its client while it indexes a repository it has not seen (or files changed since):
 * first how much there is to read and about how long it will take, then the files done out of all, STEPS times at
 * most, then that it is done. A call on an unchanged repository (nothing to read) reports nothing.
 */
export function indexProgress(repo: string, report: ReportProgress): IndexProgressHooks {
  let active = false;
  let step = 1;
  let last = 0;
  let started = 0;
  return {
    onIndexPlan(plan) {
      if (plan.to_read === 0) return;
      active = true;
      started = Date.now();
      step = Math.max(1, Math.ceil(plan.files / STEPS));
      const files = plan.to_read === plan.files ? `${plan.files} files` : `${plan.to_read} new or changed of ${plan.files} files`;
      report({ progress: 0, total: plan.files, message: `indexing ${repo}: ${files} to read (${megabytes(plan.bytes_to_read)}) on ${plan.threads} thread${plan.threads === 1 ? '' : 's'}, ${seconds(plan.estimate_ms)}` });
    },
    onProgress(done, total) {
      if (!active || done <= last) return;
      if (done < total && done - last < step) return;
      last = done;
      report({ progress: done, total, ...(done === total ? { message: `indexed ${total} files in ${((Date.now() - started) / 1000).toFixed(1)} s` } : {}) });
      if (done === total) active = false;
    },
  };
}
