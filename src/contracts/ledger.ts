import { z } from 'zod';
import { Decision, DecisionKind, ProposedNode, Tier } from './decision.js';
import type { RegisteredSchema } from './registered-schema.js';

/**
 * One line of `runs/<run_id>/<flow>/routing/decisions.jsonl`: an off-road decision (anything but CONTINUE)
 * in the shape of seed 003 (`step_id`, `decision`, targets, `reason`) plus `seq`, `tier`, `rule` and `ts`.
 * Keys are written in this order; the line is derived from the ledger row, so a repair writes the same bytes.
 */
export const OffRoadRecord = z.object({
  step_id: z.string().describe('The step that just completed'),
  decision: DecisionKind,
  next_step_id: z.string().nullable(),
  next_flow: z.string().optional(),
  detour_target: z.string().optional(),
  inject_flow: z.string().optional(),
  inject_nodes: z.array(ProposedNode).optional(),
  return_to: z.string().optional(),
  signature: z.string().optional(),
  escalation_id: z.string().optional(),
  reason: z.string(),
  seq: z.int().min(1),
  tier: Tier,
  rule: z.string(),
  ts: z.string().describe("ISO time from the kernel's clock"),
});
export type OffRoadRecord = z.infer<typeof OffRoadRecord>;

/** How a person resolved an escalation (`navkernel runs resolve`). */
export const EscalationResolution = z.object({
  decision: DecisionKind.exclude(['ESCALATE', 'INJECT_NODES']),
  next_step_id: z.string().nullable().describe('Step the run goes on with; null for TERMINATE and INJECT_FLOW'),
  inject_flow: z.string().optional(),
  by: z.string().min(1).describe('Who resolved it: the authenticated principal, or the name the resolver gave'),
  reason: z.string().min(1),
  ts: z.string(),
  authenticated: z
    .boolean()
    .optional()
    .describe('True when `by` is a principal proven by its token (serve --principals); false when the name is self-declared (navkernel runs resolve, the shared --token). Absent in resolutions recorded before navkernel 0.2, which are unauthenticated'),
  via: z.enum(['http', 'cli', 'library', 'mcp', 'langgraph']).optional().describe('Where the resolution came from'),
});
export type EscalationResolution = z.infer<typeof EscalationResolution>;

/** An ESCALATE decision as the ledger keeps it: opened with the route, resolved later by a person. */
export const Escalation = z.object({
  escalation_id: z.string(),
  run_id: z.string(),
  seq: z.int().min(1),
  flow: z.string(),
  step: z.string(),
  reason: z.string(),
  opened_ts: z.string(),
  status: z.enum(['open', 'resolved']),
  resolution: EscalationResolution.nullable(),
});
export type Escalation = z.infer<typeof Escalation>;

/** One line of `navkernel runs`. */
export const RunSummary = z.object({
  run_id: z.string(),
  flow: z.string().describe('Flow of the first route'),
  flows: z.array(z.string()).describe('Every flow the run routed in, sorted'),
  steps: z.int().min(0).describe('Routes recorded (the last seq)'),
  offroad: z.int().min(0),
  llm_calls: z.int().min(0),
  cost_usd: z.number().min(0),
  open_escalations: z.int().min(0),
  needs_human: z
    .int()
    .min(0)
    .optional()
    .describe('Routes whose decision needs a person (needs_human: true): escalations, the iteration cap, a failure taking a branch default. In listings and audits'),
  status: z.enum(['active', 'escalated', 'terminated']),
  last_decision: DecisionKind,
  last_step: z.string(),
  first_ts: z.string(),
  last_ts: z.string(),
});
export type RunSummary = z.infer<typeof RunSummary>;

/** The optional "where to" fields of a Decision that reports repeat. */
const TARGET_FIELDS = { next_flow: true, detour_target: true, inject_flow: true, inject_nodes: true, return_to: true, signature: true } as const;

/** A recorded decision in a report: where, what and why. */
export const DecisionEntry = z.object({
  seq: z.int().min(1),
  flow: z.string(),
  step: z.string(),
  ...Decision.pick({ decision: true, next_step_id: true, ...TARGET_FIELDS, iteration: true, tier: true, rule: true, reason: true }).shape,
  ts: z.string(),
  principal: z.string().optional().describe('Who sent the route (the authenticated principal recorded by navkernel serve); absent when nobody was recorded'),
});
export type DecisionEntry = z.infer<typeof DecisionEntry>;

/** `navkernel runs audit RUN`: how the run was routed, and what it cost. */
export const AuditReport = z.object({
  run: RunSummary,
  by_tier_rule: z.array(z.object({ tier: Tier, rule: z.string(), decision: DecisionKind, count: z.int() })),
  offroad: z.array(DecisionEntry).describe('Every off-road decision, in order'),
  needs_human: z
    .array(DecisionEntry)
    .optional()
    .describe('Every decision that needs a person (needs_human: true), in order: escalations, and CONTINUEs such as the iteration cap that a runner ignoring needs_human would carry past'),
  steps: z
    .array(
      z.object({
        flow: z.string(),
        step: z.string(),
        routes: z.int().describe('Times this step completed'),
        loops: z.int().describe('LOOP decisions taken from this step'),
        max_iteration: z.int().nullable().describe('Highest iteration the kernel counted for it'),
      }),
    )
    .describe('Per step, in order of first appearance'),
  signatures: z.array(z.object({ key: z.string().describe('<flow>/<step>:<signature>'), seen: z.int(), detours: z.int() })),
  cost: z.object({
    usd: z.number(),
    llm_calls: z.int(),
    input_tokens: z.int(),
    output_tokens: z.int(),
    by_model: z.array(z.object({ provider: z.string(), model: z.string(), calls: z.int(), usd: z.number() })),
    usd_per_1000_routes: z.number().describe('USD spent on tier 3 per 1,000 routes of the run'),
  }),
  arbiter: z
    .object({
      consulted: z.int().describe('Routes that reached tier 3 with an arbiter configured'),
      decided: z.int().describe('Of those, routes tier 3 decided'),
      fall_through_rate: z.number().describe('Share of consulted routes that fell through to tier 4 or 5 (0 when none consulted)'),
      invalid_answer_rate: z.number().describe('Share of model calls whose answer was rejected (unparseable, unknown candidate, charter)'),
      budget_skips: z.int().describe('Routes where tier 3 was skipped because the call could overrun the budget'),
    })
    .describe('How tier 3 fared in this run'),
  latency_us: z.object({ p50: z.number(), p99: z.number(), max: z.number() }).describe('Kernel time per route, in microseconds'),
  flows_hashes: z.array(z.string()).describe('Distinct flow definitions the run was routed with, in order of use'),
  routed_by: z
    .array(z.object({ principal: z.string().nullable().describe('null: routes recorded without a principal'), routes: z.int() }))
    .optional()
    .describe('Who sent the run\'s routes (navkernel serve records the authenticated principal), by number of routes, most first; present when at least one route has a principal'),
  escalations: z.array(Escalation),
});
export type AuditReport = z.infer<typeof AuditReport>;

/** `navkernel runs audit RUN --why STEP`: the decisions that touched a step, and why. */
export const WhyReport = z.object({
  run_id: z.string(),
  step: z.string(),
  entries: z.array(
    DecisionEntry.extend({
      touched_as: z.array(z.enum(['completed', 'next', 'detour_target', 'return_to'])),
      sightings: z
        .array(z.int().min(1))
        .optional()
        .describe("For a decision on a failure signature (\"seen N times\"): the seqs of the routes of this step that carried it, this one last"),
    }),
  ),
  escalations: z.array(Escalation),
  unknown_step: z
    .object({
      steps: z.array(z.string()).describe("The steps of the run's flows (those loaded, and those its decisions name)"),
      did_you_mean: z.string().optional(),
    })
    .optional()
    .describe("Present when the step is not a step of the run's flows: a misspelling, with the nearest step"),
});
export type WhyReport = z.infer<typeof WhyReport>;

/** What `verify` found wrong; `seq` names the first bad row of the run where there is one. */
export const VerifyIssue = z.object({
  run_id: z.string(),
  seq: z.int().nullable(),
  kind: z.enum([
    'hash_mismatch',
    'prev_hash_mismatch',
    'seq_gap',
    'head_mismatch',
    'llm_calls_mismatch',
    'escalation_missing',
    'resolution_mismatch',
    'bad_record',
    'jsonl_mismatch',
    'jsonl_missing_line',
    'jsonl_extra_line',
    'field_mismatch',
    'run_missing',
    'register_mismatch',
    'archive_mismatch',
    'archive_missing',
    'upgrade_mismatch',
    'flow_version_mismatch',
    'flow_version_missing',
  ]),
  message: z.string(),
  table: z.string().optional().describe('The table of the bad row (routes, runs, llm_calls, escalations, run_register, run_upgrades, flow_versions)'),
  field: z.string().optional().describe('The column found edited, when it can be named'),
  file: z.string().optional(),
});
export type VerifyIssue = z.infer<typeof VerifyIssue>;

/** What a JSONL repair did to one file. */
export const JsonlRepair = z.object({
  run_id: z.string(),
  flow: z.string(),
  file: z.string(),
  appended: z.int().min(0).describe('Lines the database had and the file lacked'),
  torn_line_removed: z.boolean().describe('A torn (half-written) last line was cut before appending'),
});
export type JsonlRepair = z.infer<typeof JsonlRepair>;

/** `navkernel ledger verify`. `ok` is false when any issue was found. */
export const VerifyReport = z.object({
  ok: z.boolean(),
  runs: z.int(),
  routes: z.int(),
  jsonl_files: z.int(),
  issues: z.array(VerifyIssue),
  repairs: z.array(JsonlRepair),
  archived_runs: z.int().min(0).optional().describe('Runs archived out of the ledger (a tombstone in the run register), not counted in `runs`'),
});
export type VerifyReport = z.infer<typeof VerifyReport>;

/** The fields of a decision replay compares (reason, warnings and latency are shown, not compared). */
export const ReplayedDecision = Decision.pick({ decision: true, next_step_id: true, ...TARGET_FIELDS, needs_human: true, tier: true, rule: true, reason: true });
export type ReplayedDecision = z.infer<typeof ReplayedDecision>;

/** One recorded route that a replay decided differently. */
export const Divergence = z.object({
  seq: z.int().min(1),
  flow: z.string(),
  step: z.string(),
  fields: z.array(z.string()).describe('Compared fields that differ'),
  recorded: ReplayedDecision,
  now: ReplayedDecision.nullable().describe('null when the replayed route threw'),
  error: z.string().optional(),
});
export type Divergence = z.infer<typeof Divergence>;

/** `navkernel runs replay RUN`. */
export const ReplayReport = z.object({
  run_id: z.string(),
  routes: z.int(),
  identical: z.boolean(),
  flows_hash_now: z.string(),
  flows_hashes_recorded: z.array(z.string()),
  divergences: z.array(Divergence).describe('First divergence first'),
});
export type ReplayReport = z.infer<typeof ReplayReport>;

/** The ledger's published documents (registered in schema-registry.ts). */
export const LEDGER_SCHEMAS: RegisteredSchema[] = [
  { name: 'offroad-record', schema: OffRoadRecord, io: 'output' },
  { name: 'escalation', schema: Escalation, io: 'output' },
  { name: 'run-summary', schema: RunSummary, io: 'output' },
  { name: 'audit-report', schema: AuditReport, io: 'output' },
  { name: 'why-report', schema: WhyReport, io: 'output' },
  { name: 'verify-report', schema: VerifyReport, io: 'output' },
  { name: 'replay-report', schema: ReplayReport, io: 'output' },
];
