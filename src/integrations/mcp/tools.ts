import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { NavkernelError, ValidationError, issuesFromZod, schemasDir, toIssueCode, type ValidationIssue, type CnfCapsuleInput, type Ledger, type RunPageKey } from '../../contracts/index.js';
import type { Kernel } from '../../kernel/index.js';
import { verifyLedger } from '../../ledger/index.js';
import type { NavigationOutcome } from '../../navigator/index.js';
import { auditRun, replayRun, resolveEscalation, runsPage, whyStep } from '../../runs/index.js';
import { indexProgress, type IndexProgressHooks, type ReportProgress } from './index-progress.js';
import { repoInsideRoots } from './repo-roots.js';
import { AuditArgs, ListRunsArgs, NavigateArgs, NavigateResult, ReplayArgs, ResolveArgs, VerifyArgs, WhyArgs } from './tool-inputs.js';

/** What the tools work on: the server's kernel, its ledger, the repositories it may read. */
export interface ToolContext {
  kernel: Kernel;
  ledger: Ledger;
  /** Repositories `navigate` may read (absolute or relative to the working directory). */
  roots: readonly string[];
  /** Runs a navigation; `progress`, when the client asked for progress, follows its indexing. */
  navigate: (capsule: CnfCapsuleInput, progress?: IndexProgressHooks) => Promise<NavigationOutcome>;
  /** Budgets of `navigate` when a call gives none (the server's --max-files, …). */
  navigateDefaults: { max_files?: number; max_lines?: number; max_tool_calls?: number; max_tokens?: number };
  /** Whether `resolve` is offered (`navkernel mcp --allow-resolve`). */
  allowResolve: boolean;
}

/** MCP's tool annotations (hints to the client). */
interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One MCP tool: its JSON Schemas, and what it does with arguments already checked against the input schema. */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
  /** Checks the arguments (a typed error naming each bad one) and runs the tool; the result is the structured output. */
  call(args: unknown, ctx: ToolContext, report?: ReportProgress): Promise<Record<string, unknown>>;
}

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** A published schema (schemas/NAME.schema.json) as a tool schema: without `$schema` / `$id`, which MCP clients' validators (JSON Schema draft-07) do not know. */
function published(name: string): Record<string, unknown> {
  const { $schema: _s, $id: _i, ...schema } = JSON.parse(readFileSync(path.join(schemasDir(), `${name}.schema.json`), 'utf8')) as Record<string, unknown>;
  return schema;
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _s, ...out } = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  return out;
}

/** Parses tool arguments, or throws INVALID_REQUEST naming each bad argument by its JSON path. */
function parse<T>(schema: z.ZodType<T>, args: unknown, tool: string): T {
  const r = schema.safeParse(args ?? {});
  if (r.success) return r.data;
  throw new ValidationError(
    'INVALID_REQUEST',
    `${tool} arguments`,
    issuesFromZod(r.error.issues, toIssueCode).flatMap((i): ValidationIssue[] =>
      // A misspelled argument is named by its own path.
      i.code === 'unrecognized_keys' ? i.keys.map((field) => ({ path: [...i.path, field], code: 'unknown_property', message: 'is not an argument of this tool', field })) : [i],
    ),
  );
}

// The run listing's cursor: the sort key of the page's last run, opaque to the client (the format `serve` uses).
const encodeCursor = (k: RunPageKey) => Buffer.from(JSON.stringify([k.created_ts, k.run_id]), 'utf8').toString('base64url');
function decodeCursor(cursor: string): RunPageKey {
  try {
    const k = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(k) && k.length === 2 && typeof k[0] === 'string' && typeof k[1] === 'string') return { created_ts: k[0], run_id: k[1] };
  } catch {
    // fall through
  }
  throw new NavkernelError('INVALID_REQUEST', `cursor is not a next_cursor this server gave (got ${JSON.stringify(cursor)})`);
}

async function navigateTool(a: z.infer<typeof NavigateArgs>, ctx: ToolContext, report?: ReportProgress): Promise<NavigateResult> {
  const repo = repoInsideRoots(ctx.roots, a.repo);
  const d = ctx.navigateDefaults;
  const budget: Record<string, number> = {};
  const put = (k: string, v: number | undefined) => v !== undefined && (budget[k] = v);
  put('max_files', a.max_files ?? d.max_files);
  put('max_lines', a.max_lines ?? d.max_lines);
  put('max_tool_calls', a.max_tool_calls ?? d.max_tool_calls);
  put('max_tokens', a.budget_tokens ?? d.max_tokens);
  const capsule = { task: a.task, repo_root: repo, budget, ...(a.hint ? { magic_words_hint: a.hint } : {}), ...(a.scope ? { constraints: { scope: a.scope } } : {}) } as CnfCapsuleInput;
  const o = await (report ? ctx.navigate(capsule, indexProgress(a.repo ?? repo, report)) : ctx.navigate(capsule));
  // The receipt names each file's lines shown, as ranges.
  const ranges = new Map(o.artifacts.context_load_receipt.files_loaded.map((f) => [f.path, f.ranges.map(([a, b]) => [a, b] as [number, number])]));
  return {
    exit: o.exit,
    stop_reason: o.stop_reason,
    context: o.artifacts.context_md,
    files: o.loaded.map((f) => ({ path: f.path, level: f.level, tokens: f.tokens, lines_read: f.lines_read, ranges: ranges.get(f.path) ?? [] })),
    magic_words: o.magic_words.map((w) => w.word),
    context_loaded_tokens: o.artifacts.compression_report.context_loaded_tokens,
    compression_ratio: o.artifacts.compression_report.compression_ratio,
    violations: o.violations.map((v) => ({ state: v.state, at: v.at, detail: v.detail })),
  };
}

/** A tool whose arguments are checked against a zod model (INVALID_REQUEST naming each bad one) before it runs. */
function tool<A>(
  name: string,
  title: string,
  description: string,
  args: z.ZodType<A>,
  output: Record<string, unknown>,
  annotations: ToolAnnotations,
  run: (a: A, ctx: ToolContext, report?: ReportProgress) => Promise<unknown>,
): ToolDef {
  return { name, title, description, inputSchema: jsonSchema(args), outputSchema: output, annotations, call: async (raw, ctx, report) => (await run(parse(args, raw, name), ctx, report)) as Record<string, unknown> };
}

const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** Every tool the server offers (`resolve` only with allowResolve). */
export function toolDefs(allowResolve: boolean): ToolDef[] {
  const tools: ToolDef[] = [
    tool(
      'navigate',
      'Load the least context a task needs',
      "Runs navkernel's context navigator (a deterministic state machine, no LLM) on a repository for a task and returns the context: each chosen file's lines, numbered, the line ranges, and why it stopped. The repository must be inside one of the server's --repo roots.",
      NavigateArgs,
      jsonSchema(NavigateResult),
      READ,
      navigateTool,
    ),
    {
      name: 'route',
      title: 'Route a finished step',
      description:
        'Routes the step a flow runner just finished (a route request: run_id, flow, step_completed, status, forensics, …) through the 5-tier kernel and records the decision in the ledger. Returns the decision: CONTINUE, LOOP, DETOUR, INJECT_FLOW, INJECT_NODES, ESCALATE or TERMINATE, with the next step, tier, rule and reason. The same request_id twice returns the recorded decision.',
      inputSchema: published('route-request'),
      outputSchema: published('decision'),
      annotations: WRITE,
      // The kernel checks the request against the same schema, and names the bad field (INVALID_REQUEST, or INVALID_FORENSICS inside forensics).
      call: async (args, ctx) => (await ctx.kernel.route(args ?? {})) as unknown as Record<string, unknown>,
    },
    tool(
      'list_runs',
      'List the runs in the ledger',
      'Lists the runs in the ledger, oldest first, with flow, routes, off-road decisions, LLM calls, cost, open escalations and status. Pass next_cursor as cursor for the next page.',
      ListRunsArgs,
      published('runs-page'),
      READ,
      async (a, ctx) => {
        const page = await runsPage(ctx.ledger, {
          limit: a.limit ?? 100,
          ...(a.status ? { status: a.status } : {}),
          ...(a.flow ? { flow: a.flow } : {}),
          ...(a.has_open_escalation !== undefined ? { has_open_escalation: a.has_open_escalation } : {}),
          ...(a.cursor ? { after: decodeCursor(a.cursor) } : {}),
        });
        return { runs: page.runs, total: page.total, next_cursor: page.next ? encodeCursor(page.next) : null };
      },
    ),
    tool(
      'audit',
      'Explain how a run was routed',
      'How a run was routed: decisions by tier and rule, every off-road decision with its reason, loops per step, failure signatures, LLM cost, escalations and how they were resolved.',
      AuditArgs,
      published('audit-report'),
      READ,
      (a, ctx) => auditRun(ctx.ledger, a.run_id),
    ),
    tool(
      'why',
      'Why a step was reached',
      'The decisions of a run that touched one step (routed from it, to it, looped or detoured there), each with its tier, rule and reason, and the escalations at that step.',
      WhyArgs,
      published('why-report'),
      READ,
      async (a, ctx) => {
        const r = await whyStep(ctx.ledger, a.run_id, a.step, ctx.kernel.flows);
        if (r.unknown_step) {
          const near = r.unknown_step.did_you_mean;
          throw new NavkernelError('UNKNOWN_STEP', `step ${JSON.stringify(a.step)} does not exist in the flows of run ${a.run_id}${near ? `; did you mean ${JSON.stringify(near)}?` : ''} (steps: ${r.unknown_step.steps.join(', ')})`);
        }
        if (r.entries.length === 0 && r.escalations.length === 0) throw new NavkernelError('UNKNOWN_STEP', `no decision of run ${a.run_id} touched step ${JSON.stringify(a.step)}`);
        return r;
      },
    ),
    tool(
      'verify',
      "Check the ledger's hash chains",
      "Re-computes each run's hash chain (or one run's) and compares decisions.jsonl with the database. Read-only: reports problems, repairs nothing (navkernel ledger verify does).",
      VerifyArgs,
      published('verify-report'),
      READ,
      (a, ctx) => verifyLedger(ctx.ledger, { repair: false, ...(a.run_id !== undefined ? { run: a.run_id } : {}) }),
    ),
    tool(
      'replay',
      "Replay a run with today's flows",
      "Re-routes a recorded run through a fresh in-memory kernel with the server's flows, using the recorded LLM answers (no model is called, nothing is written), and reports every decision that would now differ.",
      ReplayArgs,
      published('replay-report'),
      READ,
      (a, ctx) => replayRun(ctx.ledger, a.run_id, ctx.kernel.flows, a.max_divergences ? { maxDivergences: a.max_divergences } : {}),
    ),
  ];
  if (allowResolve) {
    tools.push(
      tool(
        'resolve',
        'Resolve an open escalation',
        "Records a person's decision on an open escalation (from audit), checked against the flow graph, as `navkernel runs resolve` does. Offered only because the server was started with --allow-resolve.",
        ResolveArgs,
        published('escalation'),
        WRITE,
        (a, ctx) => resolveEscalation(ctx.ledger, ctx.kernel.flows, { escalation_id: a.escalation_id, decision: a.decision, by: a.by, reason: a.reason, ...(a.next ? { next: a.next } : {}) }),
      ),
    );
  }
  return tools;
}
