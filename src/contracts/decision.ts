import { z } from 'zod';
import { DECISION_KINDS } from './decision-kinds.js';

export { DECISION_KINDS };
/** The closed routing vocabulary of seed 003. Nothing else is ever returned. */
export const DecisionKind = z.enum(DECISION_KINDS);
export type DecisionKind = z.infer<typeof DecisionKind>;

/** The tier that made a decision: 1 fast-path, 2 deterministic, 3 arbiter (LLM), 4 envelope, 5 escalation. */
export const Tier = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)]);
export type Tier = z.infer<typeof Tier>;

/** A node proposed for INJECT_NODES: an ad-hoc step run by an agent of the flow's roster. */
export const ProposedNode = z.object({
  id: z.string().min(1),
  agent: z.string().min(1),
  purpose: z.string().optional(),
});
export type ProposedNode = z.infer<typeof ProposedNode>;

/** A move some tier proposed and the kernel refused, with why. */
export const RejectedMove = z.object({
  tier: Tier,
  rule: z.string(),
  decision: z.string().describe('What was proposed, verbatim (may be outside the vocabulary)'),
  target: z.string().nullable(),
  why: z.string(),
});
export type RejectedMove = z.infer<typeof RejectedMove>;

/** A tier that was consulted but could not run (e.g. tier 3 `arbiter_unavailable`, `budget_exceeded`). */
export const SkippedTier = z.object({ tier: Tier, rule: z.string(), reason: z.string() });
export type SkippedTier = z.infer<typeof SkippedTier>;

/** The kernel's answer to one `route()` call. */
export const Decision = z.object({
  decision: DecisionKind,
  next_step_id: z.string().nullable().describe('The step the runner runs next; null on TERMINATE and ESCALATE'),
  next_flow: z.string().optional().describe('Present when next_step_id belongs to another flow than the one routed'),
  tier: Tier,
  rule: z.string().describe('Stable name of the rule that decided'),
  reason: z.string(),
  confidence: z.number().min(0).max(1),
  needs_human: z.boolean(),
  warnings: z.array(z.string()),
  rejected: z.array(RejectedMove),
  skipped: z.array(SkippedTier).optional().describe('Tiers consulted but skipped, with why; absent when none'),
  detour_target: z.string().optional(),
  inject_flow: z.string().optional(),
  inject_nodes: z.array(ProposedNode).optional(),
  return_to: z.string().optional().describe('DETOUR / INJECT_*: the step control returns to afterwards'),
  signature: z.string().optional().describe('The failure signature behind a DETOUR, INJECT_FLOW or ESCALATE'),
  escalation_id: z.string().optional(),
  iteration: z.int().min(1).optional().describe('Which run of the completed step this was, as the kernel counts it'),
  seq: z.int().min(1).optional().describe('Sequence number of this route within its run'),
  ts: z
    .string()
    .optional()
    .describe("When the kernel decided, ISO-8601 UTC (the kernel's clock; the same instant as the route's ledger row and decisions.jsonl line). Absent in decisions recorded by earlier versions"),
});
export type Decision = z.infer<typeof Decision>;
