import { z } from 'zod';
import { Decision, DecisionKind, ProposedNode, Tier } from './decision.js';
import { Flow } from './flow.js';
import { LlmCallRecord } from './llm-call.js';
import { Escalation, RunSummary } from './ledger.js';
import { ERROR_CODE_LIST, type ErrorCode } from './error-codes.js';
import { ValidationIssueDoc } from './issue-schema.js';
import type { RegisteredSchema } from './registered-schema.js';

/**
 * The stable error codes of the HTTP API (`navkernel serve`): the one list of src/contracts/error-codes.ts, which
 * the co-process error line and the CLI's `--json` errors use too (a few of them only HTTP answers).
 */
export const ApiErrorCode = z.enum(ERROR_CODE_LIST as [ErrorCode, ...ErrorCode[]]);
export type ApiErrorCode = z.infer<typeof ApiErrorCode>;

/** An RFC 9457 problem document (`application/problem+json`), with navkernel's stable `code`. */
export const Problem = z.object({
  type: z.string().describe('A URI naming the kind of problem: https://navkernel.dev/problems/<code>'),
  title: z.string().describe('Short, the same for every problem of this code'),
  status: z.int().min(400).max(599),
  detail: z.string().describe('What exactly is wrong, naming the value or JSON path'),
  code: ApiErrorCode,
  instance: z.string().optional().describe('The request path'),
  issues: z.array(ValidationIssueDoc).optional().describe('Every problem found, each with its path, code and the data of its code (docs/errors.md, Validation issues)'),
});
export type Problem = z.infer<typeof Problem>;

/** `GET /v1/runs`: one page of run summaries, oldest first. */
export const RunsPage = z.object({
  runs: z.array(RunSummary),
  total: z.int().min(0).describe('Runs matching the filters'),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
});
export type RunsPage = z.infer<typeof RunsPage>;

/** The per-run state the kernel persists (loop counters, signature attempts, return points, spend). */
export const RunStateDoc = z.object({
  v: z.literal(1),
  run_id: z.string(),
  seq: z.int().min(0),
  loops: z.record(z.string(), z.int()),
  signatures: z.record(z.string(), z.object({ seen: z.int(), detours: z.int() })),
  returns: z.array(z.object({ flow: z.string(), step: z.string(), via: z.enum(['step', 'flow', 'nodes']), target: z.string(), nodes: z.array(ProposedNode).optional() })),
  spent_usd: z.number(),
  lifecycle: z.enum(['routing', 'awaiting_person', 'ended']).optional().describe('Where the run stands (docs/run-states.md); absent in states recorded before navkernel 0.2'),
  at: z.object({ flow: z.string(), step: z.string(), loop: z.string().optional() }).nullable().optional().describe('The step the kernel sent the run to (the next report must come from it, or carry `restart`)'),
  escalation_id: z.string().optional().describe('The open escalation while the run awaits a person'),
  visits: z.record(z.string(), z.int()).optional().describe('`<flow>/<step>` -> times the kernel sent the run there (never reset)'),
  trail: z.array(z.string()).optional().describe('The last steps the kernel sent the run to, oldest first (at most 6)'),
  started_in: z.string().optional().describe('The flow of the run\'s first route (its bounds.max_routes caps the run)'),
}).loose().describe('RunState of src/contracts/ports.ts; fields added there later are passed through');

/** One recorded route of a run as the run page shows it. */
export const RecordedDecision = z.object({
  seq: z.int().min(1),
  flow: z.string(),
  step: z.string(),
  status: z.string().describe("The runner's reported status"),
  ts: z.string(),
  latency_us: z.number().describe('The kernel’s time for this route, in microseconds (routes recorded before ledger schema 5 are converted from the milliseconds they were stored in)'),
  cost_usd: z.number(),
  decision: Decision,
  llm_calls: z.array(LlmCallRecord),
  principal: z
    .string()
    .nullable()
    .describe('Who sent the route: the principal its bearer token belonged to (navkernel serve with --principals, or `shared-token` for the single --token); null when nobody was recorded (no auth, the co-process, routes written before ledger schema 7). Covered by the hash chain'),
});
export type RecordedDecision = z.infer<typeof RecordedDecision>;

/** `GET /v1/runs/{id}`: the run's summary, persisted state, decisions (a page of them) and escalations. */
export const RunDetail = z.object({
  run: RunSummary,
  state: RunStateDoc.nullable(),
  decisions: z.array(RecordedDecision),
  next_after: z.int().nullable().describe('Pass as `after` for the next page of decisions; null when complete'),
  escalations: z.array(Escalation),
});
export type RunDetail = z.infer<typeof RunDetail>;

/** `POST /v1/escalations/{id}/resolve`: a person's decision, checked against the flow graph as `navkernel runs resolve`. */
export const ResolveBody = z
  .object({
    decision: z.string().min(1).describe('CONTINUE, LOOP, DETOUR, INJECT_FLOW or TERMINATE'),
    next: z.string().optional().describe('Step to go on with (CONTINUE, DETOUR; LOOP checks it), or the flow to inject (INJECT_FLOW)'),
    by: z
      .string()
      .min(1)
      .optional()
      .describe('Who resolves: required when the server has no per-person tokens; with --principals the authenticated principal is recorded, and a different name here is refused'),
    reason: z.string().min(1),
  })
  .strict();
export type ResolveBody = z.infer<typeof ResolveBody>;

/** `POST /v1/runs/{id}/replay`. */
export const ReplayBody = z
  .object({ max_divergences: z.int().min(1).optional().describe('Stop after this many divergences') })
  .strict();
export type ReplayBody = z.infer<typeof ReplayBody>;

/** `GET /v1/flows`: the flows the service routes with. */
export const FlowsList = z.object({
  flows_hash: z.string(),
  flows: z.array(Flow),
});
export type FlowsList = z.infer<typeof FlowsList>;

/** `GET /v1/stats`: the whole ledger by tier and rule, and cost over time (the UI's ledger page). */
export const LedgerStats = z.object({
  runs: z.int().min(0),
  routes: z.int().min(0),
  by_tier: z.array(z.object({ tier: Tier, count: z.int() })),
  by_tier_rule: z.array(z.object({ tier: Tier, rule: z.string(), decision: DecisionKind, count: z.int() })),
  bucket_seconds: z.int().min(1).describe('Width of each cost_over_time bucket: 1, 10, 60, 300, 3600 or 86400, the smallest that gives at most 240 buckets'),
  cost_over_time: z
    .array(z.object({ bucket: z.string().describe('Start of the bucket (ISO)'), routes: z.int(), llm_calls: z.int(), usd: z.number() }))
    .describe('Per bucket of route time, oldest first; buckets without routes are left out'),
});
export type LedgerStats = z.infer<typeof LedgerStats>;

/** `GET /v1/healthz`. */
export const Health = z.object({
  status: z.literal('ok'),
  version: z.string(),
  flows_hash: z.string(),
  ledger: z.string().nullable().describe('Ledger file, or null when routes stay in memory'),
});
export type Health = z.infer<typeof Health>;

/** `GET /v1/escalations`: open escalations across runs, for the people who resolve them. */
export const EscalationsInbox = z.object({
  escalations: z.array(Escalation).describe('Open escalations, oldest first'),
  runs_total: z.int().min(0).describe('Runs with an open escalation (the inbox shows those of the first `limit`)'),
});
export type EscalationsInbox = z.infer<typeof EscalationsInbox>;

/** `GET /v1/whoami`: who the presented token belongs to, for the web UI's sign-in. */
export const WhoAmI = z.object({
  auth_required: z.boolean().describe('Whether /v1 needs a bearer token on this server'),
  principal: z.string().nullable().describe('The principal the token belongs to; null without a (valid) token'),
  authenticated: z.boolean().describe('True when the principal is a named person or runner (serve --principals), false for the shared --token or no token'),
  scopes: z.array(z.enum(['route', 'read', 'resolve', 'admin'])).describe('What the caller may do (every scope when the server needs no token)'),
});
export type WhoAmI = z.infer<typeof WhoAmI>;

/** The service's own documents (registered in schema-registry.ts; the OpenAPI document refers to them). */
export const SERVICE_SCHEMAS: RegisteredSchema[] = [
  { name: 'problem', schema: Problem, io: 'output' },
  { name: 'runs-page', schema: RunsPage, io: 'output' },
  { name: 'run-detail', schema: RunDetail, io: 'output' },
  { name: 'resolve-body', schema: ResolveBody, io: 'input' },
  { name: 'replay-body', schema: ReplayBody, io: 'input' },
  { name: 'flows-list', schema: FlowsList, io: 'output' },
  { name: 'ledger-stats', schema: LedgerStats, io: 'output' },
  { name: 'health', schema: Health, io: 'output' },
  { name: 'whoami', schema: WhoAmI, io: 'output' },
  { name: 'escalations-inbox', schema: EscalationsInbox, io: 'output' },
];
