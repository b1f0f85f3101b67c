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

/** A microloop on a step: repeat until a status in `exit_when` or `max_iterations` runs. */
export const Loop = z.object({
  to: StepId.optional().describe('Step to loop back to; defaults to the step itself'),
  max_iterations: z.int().min(1),
  exit_when: z.array(z.string().min(1)).default(['VERIFIED']),
  exit_required: z
    .boolean()
    .optional()
    .describe("When true, a loop the critic calls futile (can_further_iteration_help: no) without meeting exit_when ESCALATEs instead of continuing"),
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
  })
  .strict();
export type Flow = z.infer<typeof Flow>;
export type FlowInput = z.input<typeof Flow>;
