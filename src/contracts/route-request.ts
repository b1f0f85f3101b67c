import { z } from 'zod';

/** Test results measured by the runner. */
export const TestsForensics = z
  .object({
    passed: z.int().min(0).optional().describe('Number of passing tests'),
    failed: z.int().min(0).optional().describe('Number of failing tests'),
    skipped: z.int().min(0).optional(),
    failures: z
      .array(z.object({ type: z.string().optional(), message: z.string().optional() }).loose())
      .optional()
      .describe('Individual failures; `type` and `message` feed the failure-signature matcher'),
  })
  .loose();

/** Lint results measured by the runner. */
export const LintForensics = z
  .object({
    errors: z.int().min(0).optional(),
    warnings: z.int().min(0).optional(),
    fixable: z.int().min(0).optional().describe('How many of the errors the linter can fix by itself'),
    output: z.string().optional(),
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
    behind_upstream: z.int().min(0).optional(),
    ahead: z.int().min(0).optional(),
    diverged: z.boolean().optional(),
    conflicts: z.array(z.string()).optional(),
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

/** What a flow runner sends to `kernel.route()` after a step finishes. */
export const RouteRequest = z
  .object({
    run_id: z.string().min(1).max(200),
    flow: z.string().min(1),
    step_completed: z.string().min(1),
    agent: z.string().optional(),
    status: z.string().describe('Free text, matched case-insensitively (VERIFIED, UNVERIFIED, MERGE, …)'),
    request_id: z.string().min(1).optional().describe('Idempotency key: the same id routed twice returns the recorded decision'),
    forensics: Forensics.optional(),
    iteration: Iteration.optional(),
    envelope: Envelope.optional(),
  })
  .strict();

export type TestsForensics = z.infer<typeof TestsForensics>;
export type LintForensics = z.infer<typeof LintForensics>;
export type Concern = z.infer<typeof Concern>;
export type GitStatusForensics = z.infer<typeof GitStatusForensics>;
export type Forensics = z.infer<typeof Forensics>;
export type Iteration = z.infer<typeof Iteration>;
export type Envelope = z.infer<typeof Envelope>;
export type RouteRequest = z.infer<typeof RouteRequest>;
