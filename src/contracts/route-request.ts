import { z } from 'zod';
import { REPORT_FORMATS } from './report-formats.js';

const count = () => z.int().min(0);
const line = () => z.int().min(0).optional();

/** Test results measured by the runner. */
export const TestsForensics = z
  .object({
    passed: count().optional().describe('Number of passing tests'),
    failed: count().optional().describe('Number of failing tests'),
    errored: count().optional().describe('Number of tests that errored (setup, fixture, collection) rather than failed an assertion'),
    skipped: count().optional(),
    failures: z
      .array(
        z
          .object({
            type: z.string().optional(),
            message: z.string().optional(),
            name: z.string().optional(),
            file: z.string().optional(),
            line: line(),
            kind: z.enum(['failure', 'error']).optional(),
          })
          .loose(),
      )
      .optional()
      .describe('Individual failures (`navkernel forensics` keeps the first 20); `type` and `message` feed the failure-signature matcher'),
    failures_omitted: count().optional().describe('Failures left out of `failures` by the cap (they are still counted)'),
  })
  .loose();

/** One linter or compiler finding, as `navkernel forensics` keeps it. */
const Finding = z
  .object({
    rule: z.string().optional(),
    severity: z.string().optional(),
    file: z.string().optional(),
    line: line(),
    message: z.string().optional(),
  })
  .loose();

/** Lint results measured by the runner. */
export const LintForensics = z
  .object({
    errors: z.int().min(0).optional(),
    warnings: z.int().min(0).optional(),
    fixable: z.int().min(0).optional().describe('How many of the errors the linter can fix by itself'),
    output: z.string().optional(),
    rules: z.record(z.string(), count()).optional().describe('Findings per rule id (the 50 most frequent)'),
    rules_omitted: count().optional(),
    findings: z.array(Finding).optional().describe('The first findings, errors before warnings (at most 20)'),
    findings_omitted: count().optional(),
  })
  .loose();

/** Compiler / type-checker diagnostics (tsc, mypy, pyright). */
export const TypesForensics = z
  .object({
    errors: count().optional(),
    warnings: count().optional(),
    by_code: z.record(z.string(), count()).optional().describe('Diagnostics per code (TS2322, arg-type, reportAttributeAccessIssue …; the 50 most frequent)'),
    codes_omitted: count().optional(),
    diagnostics: z.array(Finding).optional().describe('The first diagnostics, errors first (at most 20)'),
    diagnostics_omitted: count().optional(),
  })
  .loose();

/** A concern raised by a critic or reviewer. */
export const Concern = z
  .object({
    severity: z.enum(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']),
    description: z.string(),
    addressed: z
      .boolean()
      .optional()
      .describe('true once the concern was dealt with; a HIGH/CRITICAL concern not addressed at the iteration cap escalates (rule iteration_cap_open_concern)'),
  })
  .loose();

/** Repository state measured by the runner. */
export const GitStatusForensics = z
  .object({
    branch: z.string().optional(),
    upstream: z.string().optional(),
    behind_upstream: z.int().min(0).optional(),
    ahead: z.int().min(0).optional(),
    diverged: z.boolean().optional(),
    conflicts: z.array(z.string()).optional(),
    conflicts_omitted: count().optional(),
    output: z.string().optional(),
  })
  .loose();

/** A critic's yes/no verdict, as text (`yes`/`no`, any case) or a boolean. */
export const IterationVerdict = z.union([z.boolean(), z.string()]);

/**
 * Measurements of the step that just finished: the "crime scene photo" of seed 003.
 * Unknown fields are allowed (and recorded) but never interpreted by the kernel.
 */
export const Forensics = z
  .object({
    tests: TestsForensics.optional(),
    lint: LintForensics.optional(),
    concerns: z.array(Concern).optional(),
    failure_signature: z
      .string()
      .min(1)
      .optional()
      .describe('A signature id the runner already knows; otherwise the kernel derives one'),
    error_output: z.string().optional().describe('Tail of the failing command output, matched by the signature table'),
    git_status: GitStatusForensics.optional(),
    types: TypesForensics.optional(),
    signatures: z
      .array(z.string().min(1))
      .optional()
      .describe('Every failure signature the reports show, highest priority first; the kernel matches each with its table when `failure_signature` is absent'),
    read_from: z
      .array(z.object({ file: z.string(), format: z.string() }))
      .optional()
      .describe('The reports these forensics were read from (`navkernel forensics`)'),
    can_further_iteration_help: IterationVerdict.optional().describe(
      "The critic's verdict: 'no' (any case) or false ends the step's microloop (rule loop_futile); 'yes' / true changes nothing",
    ),
  })
  .loose();

/** Which run of a step this was. */
export const Iteration = z.object({
  current: z.int().min(1).describe('1-based number of the run of this step that just finished'),
  max: z.int().min(1).optional().describe('Used only where the flow gives no max_iterations'),
});

/** What the agent itself proposed. Used at tier 4, and checked at tier 1 for an explicit legal next step. */
export const Envelope = z
  .object({
    next_step_id: z.string().nullable().optional(),
    recommendation: z.string().nullable().optional().describe('One of the decision vocabulary, any case'),
    can_further_iteration_help: IterationVerdict.optional().describe(
      "The critic's verdict: 'no' (any case) or false ends the step's microloop (rule loop_futile); 'yes' / true changes nothing",
    ),
    purpose: z
      .string()
      .optional()
      .describe('What a recommended DETOUR / INJECT_FLOW is for; checked against the charter goal and key question (rule goal_alignment)'),
  })
  .loose();

/**
 * Report files for the co-process (`navkernel route --reports-root DIR`) and `navkernel serve --reports-root DIR`
 * to read into `forensics` before routing, as `navkernel forensics` would (paths relative to that root; anything
 * outside it is refused). Measured values the request already holds win over the reports'.
 */
export const ReportFiles = z
  .object({
    files: z.array(z.string().min(1).max(4096)).max(32).optional().describe('Report files, relative to the reports root'),
    git: z.string().min(1).max(4096).optional().describe('A git work tree under the reports root, read live (`git status --porcelain=v2 --branch`)'),
    as: z.enum(REPORT_FORMATS).optional().describe('The format of every file (default: detected from content)'),
  })
  .strict();

/**
 * The runner says it restarted the run from `step_completed` instead of the step the kernel sent it to (a crash, a
 * person re-running a step): the report is accepted from any step of the flow the run is in, and the restart is
 * recorded with the request and named in the decision's warnings (docs/run-states.md). Without it, a report from
 * another step than the expected one is refused (STEP_MISMATCH) and nothing is recorded.
 */
export const Restart = z
  .object({
    reason: z.string().min(1).max(2000).describe('Why the runner restarts from this step (recorded, shown in the decision)'),
  })
  .strict();

/** What a flow runner sends to `kernel.route()` after a step finishes. */
export const RouteRequest = z
  .object({
    // No control characters (C0, DEL, C1): a run id ends up in event streams, logs and terminals (issue 35).
    run_id: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, 'must not hold control characters (line breaks, escapes)'),
    flow: z.string().min(1),
    step_completed: z.string().min(1),
    agent: z.string().optional(),
    status: z.string().describe('Free text, matched case-insensitively (VERIFIED, UNVERIFIED, MERGE, …)'),
    request_id: z.string().min(1).optional().describe('Idempotency key: the same id routed twice returns the recorded decision'),
    forensics: Forensics.optional(),
    iteration: Iteration.optional(),
    envelope: Envelope.optional(),
    reports: ReportFiles.optional(),
    restart: Restart.optional(),
  })
  .strict();

export type TestsForensics = z.infer<typeof TestsForensics>;
export type LintForensics = z.infer<typeof LintForensics>;
export type Concern = z.infer<typeof Concern>;
export type GitStatusForensics = z.infer<typeof GitStatusForensics>;
export type TypesForensics = z.infer<typeof TypesForensics>;
export type Forensics = z.infer<typeof Forensics>;
export type Iteration = z.infer<typeof Iteration>;
export type Envelope = z.infer<typeof Envelope>;
export type RouteRequest = z.infer<typeof RouteRequest>;
export type ReportFiles = z.infer<typeof ReportFiles>;
export type Restart = z.infer<typeof Restart>;
