import { z } from 'zod';

// The arguments of the MCP tools other than `route` (whose arguments are the published RouteRequest). Strict: a
// misspelled argument is an error naming it, not silently ignored.

const positive = z.int().min(1);

/** `navigate`: a task and a repository (inside the server's --repo roots), with the navigator's budgets. */
export const NavigateArgs = z
  .object({
    repo: z.string().min(1).describe('The repository folder: absolute, or relative to the first --repo root; must be inside a --repo root'),
    task: z.string().min(1).describe('The task, verbatim: an issue, a question, a traceback'),
    max_files: positive.optional().describe('Most files loaded (default 8, or the server\'s --max-files)'),
    max_lines: positive.optional().describe('Most lines read (default 400, or --max-lines)'),
    max_tool_calls: positive.optional().describe('Most navigator tool calls (default 30, or --max-tool-calls)'),
    budget_tokens: positive.optional().describe('Token budget of the loaded context (default 8000, or --budget-tokens)'),
    scope: z.array(z.string().min(1)).optional().describe('Only files matching these globs may be loaded'),
    hint: z.array(z.string().min(1)).optional().describe('Magic words to prefer (MAGIC_WORDS_HINT)'),
  })
  .strict();

/** `list_runs`: filters and a page. */
export const ListRunsArgs = z
  .object({
    status: z.enum(['active', 'escalated', 'terminated']).optional(),
    flow: z.string().min(1).optional().describe('Only runs that routed in this flow'),
    has_open_escalation: z.boolean().optional(),
    limit: z.int().min(1).max(1000).optional().describe('Most runs returned (default 100)'),
    cursor: z.string().min(1).optional().describe('next_cursor of the previous page'),
  })
  .strict();

export const AuditArgs = z.object({ run_id: z.string().min(1) }).strict();
export const WhyArgs = z.object({ run_id: z.string().min(1), step: z.string().min(1).describe('A step id of the run') }).strict();
export const VerifyArgs = z.object({ run_id: z.string().min(1).optional().describe('Only this run (default: the whole ledger)') }).strict();
export const ReplayArgs = z
  .object({ run_id: z.string().min(1), max_divergences: positive.optional().describe('Stop after this many divergences') })
  .strict();
export const ResolveArgs = z
  .object({
    escalation_id: z.string().min(1),
    decision: z.enum(['CONTINUE', 'LOOP', 'DETOUR', 'INJECT_FLOW', 'TERMINATE']),
    next: z.string().min(1).optional().describe('The step to go on with (CONTINUE, DETOUR; LOOP checks it), or the flow to inject (INJECT_FLOW)'),
    by: z.string().min(1).describe('Who decides'),
    reason: z.string().min(1).describe('Why'),
  })
  .strict();

/** What `navigate` returns. */
export const NavigateResult = z.object({
  exit: z.enum(['EXIT_PASS', 'EXIT_NEED_INFO', 'EXIT_BLOCKED']),
  stop_reason: z.string(),
  context: z.string().describe('The loaded context (context.md): each file\'s chosen lines, numbered'),
  files: z.array(
    z.object({
      path: z.string(),
      level: z.int().describe('Verbosity level rendered, L1 (names) to L4 (whole file)'),
      tokens: z.int(),
      lines_read: z.int(),
      ranges: z.array(z.tuple([z.int(), z.int()])).describe('1-based inclusive line ranges shown'),
    }),
  ),
  magic_words: z.array(z.string()),
  context_loaded_tokens: z.int(),
  compression_ratio: z.number(),
  violations: z.array(z.object({ state: z.string(), at: z.string(), detail: z.string() })),
});
export type NavigateResult = z.infer<typeof NavigateResult>;
