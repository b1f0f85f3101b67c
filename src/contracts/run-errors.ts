import { NavkernelError } from './errors.js';

/** Where the kernel sent a run: the step it expects the next report from. */
export interface ExpectedStep {
  flow: string;
  step: string;
}

/**
 * A report from another step than the one the kernel sent the run to (code STEP_MISMATCH). Nothing was recorded.
 * A runner that really restarted from this step says so with `restart: { reason }` (docs/run-states.md).
 */
export class StepMismatchError extends NavkernelError {
  readonly run_id: string;
  readonly expected: ExpectedStep;
  readonly reported: ExpectedStep;
  constructor(run_id: string, expected: ExpectedStep, reported: ExpectedStep, detail?: string) {
    super(
      'STEP_MISMATCH',
      detail ??
        `run ${JSON.stringify(run_id)} was sent to ${expected.flow}/${expected.step}, but the report is from ${reported.flow}/${reported.step}; nothing was recorded (report ${expected.step}, or send restart: {reason} to restart from ${reported.step})`,
    );
    this.name = 'StepMismatchError';
    this.run_id = run_id;
    this.expected = expected;
    this.reported = reported;
  }
}

/** A route of a run that ended with TERMINATE (code RUN_ENDED). Nothing was recorded. */
export class RunEndedError extends NavkernelError {
  readonly run_id: string;
  constructor(run_id: string, seq: number) {
    super('RUN_ENDED', `run ${JSON.stringify(run_id)} ended at seq ${seq} (TERMINATE); nothing was recorded (start a new run id for new work)`);
    this.name = 'RunEndedError';
    this.run_id = run_id;
  }
}

/** A route of a run whose escalation is still open (code ESCALATION_OPEN). Nothing was recorded. */
export class EscalationOpenError extends NavkernelError {
  readonly run_id: string;
  readonly escalation_id: string;
  constructor(run_id: string, escalation_id: string) {
    super(
      'ESCALATION_OPEN',
      `run ${JSON.stringify(run_id)} awaits a person: escalation ${escalation_id} is open; nothing was recorded (navkernel runs resolve ${escalation_id} --decision … says where the run goes)`,
    );
    this.name = 'EscalationOpenError';
    this.run_id = run_id;
    this.escalation_id = escalation_id;
  }
}
