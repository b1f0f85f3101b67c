import { z } from 'zod';

const StepId = z.string().min(1).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'a step id: letters, digits, _ . -');
const FlowId = z.string().min(1).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'a flow id: letters, digits, _ . -');

/** The flow's constitution (seed 003 "goal-alignment test"). */
export const Charter = z.object({
  goal: z.string().min(1),
  non_goals: z.array(z.string()).default([]),
  key_question: z.string().min(1),
});
export type Charter = z.infer<typeof Charter>;

/**
 * What the iteration cap does (seed 003 tier 2, "iteration count >= max -> ADVANCE with warning"): `advance` goes on
 * to the step's next step with a warning and needs_human (the default), `escalate` opens an escalation instead
 * (rule `iteration_cap_escalate`).
 */
export const OnExhausted = z.enum(['advance', 'escalate']);
/**
 * What the iteration cap does when the route still reports an unaddressed HIGH or CRITICAL concern (seed 003:
 * "3rd iteration + HIGH concern unaddressed -> ESCALATE"): `escalate` (the default, rule
 * `iteration_cap_open_concern`) or `advance` (the flow opts out: the cap's on_exhausted applies).
 */
export const OnOpenConcern = z.enum(['escalate', 'advance']);
/**
 * What a failure-looking status (FAILED, FAILURE, FAIL, ERROR, ERRORED, BLOCKED, or the step's `failure`) that
 * matches no branch does: `warn` takes the step's default `next` with a warning and needs_human (the default);
 * `off` does not take the default, so the later tiers decide (tier 3, the envelope, else ESCALATE).
 */
export const FailureDefault = z.enum(['warn', 'off']);

/** A microloop on a step: repeat until a status in `exit_when` or `max_iterations` runs. */
export const Loop = z.object({
  to: StepId.optional().describe('Step to loop back to; defaults to the step itself'),
  max_iterations: z.int().min(1),
  exit_when: z.array(z.string().min(1)).default(['VERIFIED']),
  exit_required: z
    .boolean()
    .optional()
    .describe("When true, a loop the critic calls futile (can_further_iteration_help: no) without meeting exit_when ESCALATEs instead of continuing"),
  on_exhausted: OnExhausted.optional().describe("What the iteration cap does for this loop (overrides the flow's on_exhausted; default advance)"),
  on_open_concern: OnOpenConcern.optional().describe("What the iteration cap does when a HIGH/CRITICAL concern is still open (overrides the flow's; default escalate)"),
});
export type Loop = z.infer<typeof Loop>;

/** One step of a flow graph. */
export const Step = z
  .object({
    id: StepId,
    agent: z.string().min(1),
    description: z.string().optional(),
    next: StepId.optional().describe('Default successor'),
    branches: z.record(z.string(), StepId).optional().describe('status -> next step, matched case-insensitively'),
    loop: Loop.optional(),
    returns: z.boolean().optional().describe('Utility step: afterwards control returns to the step that detoured here'),
    terminal: z.boolean().optional(),
    success: z
      .array(z.string().min(1))
      .optional()
      .describe('Statuses that mean success here, besides VERIFIED, SUCCEEDED, SUCCESS, PASS, PASSED (any case): a step without branches or loop continues to next'),
    failure: z
      .array(z.string().min(1))
      .optional()
      .describe('Statuses that mean failure here, besides FAILED, FAILURE, FAIL, ERROR, ERRORED, BLOCKED: one that falls to a branch default is flagged (needs_human)'),
    statuses: z
      .array(z.string().min(1))
      .optional()
      .describe("The statuses this step's agent reports: `navkernel flows validate` warns about any that no rule of the step handles"),
    on_failure_default: FailureDefault.optional().describe("Overrides the flow's on_failure_default for this step"),
    max_visits: z
      .int()
      .min(1)
      .optional()
      .describe("How many times a run may be sent to this step over the whole run (never reset); the route that would exceed it ESCALATEs (rule visit_cap). Overrides the flow's bounds.max_visits"),
  })
  .strict();
export type Step = z.infer<typeof Step>;

/** Where a failure signature sends the run: a step of this flow, or an injected flow. */
export const DetourTarget = z.union([
  StepId,
  z
    .object({
      step: StepId.optional(),
      flow: FlowId.optional(),
      max_attempts: z.int().min(1).optional().describe('Detours for this signature before ESCALATE (default 2)'),
    })
    .strict(),
]);
export type DetourTarget = z.infer<typeof DetourTarget>;

/** A failure signature the matcher recognises in forensics (extends or overrides the defaults). */
export const SignatureRule = z
  .object({
    id: z.string().min(1),
    priority: z.int().default(50),
    patterns: z.array(z.string().min(1)).default([]).describe('Regular expressions (case-insensitive, multiline) over the forensic text fields'),
    max_attempts: z.int().min(1).optional(),
  })
  .strict();
export type SignatureRule = z.infer<typeof SignatureRule>;

/**
 * The bounds a flow states for its runs (docs/bounds.md). Every cycle a run can take is bounded by a counter that
 * nothing inside the cycle resets: a step's visit count (`max_visits`), the run's route count (`max_routes`), and the
 * nesting of detours and injected flows (`max_depth`). A bound the flow does not state takes the kernel's default
 * (DEFAULT_BOUNDS), and `navkernel flows validate` warns about every cycle that only such a default bounds.
 */
export const Bounds = z
  .object({
    max_visits: z.int().min(1).optional().describe('How many times a run may be sent to any one step of this flow (a step may override it)'),
    max_routes: z.int().min(1).optional().describe('How many routes a run started in this flow may take in all'),
    max_depth: z.int().min(1).optional().describe('How deeply detours and injected flows may nest'),
  })
  .strict();
export type Bounds = z.infer<typeof Bounds>;

/** The kernel's bounds where a flow states none (in a zod-free module, so the kernel loads it without zod). */
export { DEFAULT_BOUNDS } from './flow-bounds.js';

/** One flow file in `charters/`: a charter and its graph. */
export const Flow = z
  .object({
    flow: FlowId,
    description: z.string().optional(),
    charter: Charter,
    steps: z.array(Step).min(1),
    detours: z.record(z.string(), DetourTarget).default({}),
    inject_flows: z.array(FlowId).default([]),
    signatures: z.array(SignatureRule).default([]),
    inject_nodes: z
      .object({ allowed: z.boolean().default(false), max_nodes: z.int().min(1).default(3) })
      .strict()
      .default({ allowed: false, max_nodes: 3 })
      .describe('Whether tier 3 may propose ad-hoc nodes here, and how many'),
    on_exhausted: OnExhausted.optional().describe('What the iteration cap does in this flow (a loop may override it; default advance)'),
    on_open_concern: OnOpenConcern.optional().describe('What the iteration cap does when a HIGH/CRITICAL concern is still open (default escalate)'),
    on_failure_default: FailureDefault.optional().describe('What a failure-looking status that matches no branch does (default warn)'),
    bounds: Bounds.optional().describe("The bounds of this flow's runs; each unstated one takes the kernel's default (DEFAULT_BOUNDS)"),
  })
  .strict();
export type Flow = z.infer<typeof Flow>;
/** A flow as written (defaults not yet applied): what defineFlows takes. */
export type FlowInput = z.input<typeof Flow>;
