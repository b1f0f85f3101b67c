import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { addFormerFlag, sharedOption } from '../shared-options.js';
import { NavkernelError } from '../../contracts/errors.js';
import type { LlmCallRecord } from '../../contracts/llm-call.js';
import {
  contextMarkdown,
  copyToClipboard,
  createLineAsker,
  formatTurnReport,
  verboseStepDetails,
  exitCodeFor,
  flightPlanFile,
  progressLine,
  resumeExplorer,
  runExplorer,
  type ExplorerResult,
  type ExplorerRunOptions,
} from '../../explorer/index.js';
import { openExplorerStore, type SqliteExplorerSessionStore } from '../../ledger/index.js';
import { createLanguageModel, parsePersonaChoice, type LanguageModel } from '../../llm/index.js';
import { cliConfig } from '../config.js';
import { ExitCodeError, UsageError, writeOutputFile } from '../conventions.js';
import { addLedgerOption } from '../ledger-option.js';
import { inLine } from '../terminal-text.js';

interface ExploreOptions {
  repo?: string;
  task?: string;
  budgetTokens?: string;
  budgetUsd?: string;
  /** The model's spec; false with `--no-llm`. */
  llm?: string | false;
  interactive?: boolean;
  maxIterations?: string;
  out?: string;
  flightPlan?: string;
  resume?: string;
  session?: string;
  list?: boolean;
  json?: boolean;
  quiet?: boolean;
  ledger: string;
  cacheDir?: string;
  cache: boolean;
  registry?: string;
  llmTimeoutMs?: string;
  escalateTo?: string;
  stallTurns?: string;
  repeatLimit?: string;
  persona?: string;
  verbose?: boolean;
  copy?: boolean;
}

/**
 * Exit codes of reference/cli-navigate-interface.md, within the CLI convention (src/cli/conventions.ts): 2 is every
 * usage or input error (a bad flag, no model or key, a repository that does not exist: code REPO_NOT_FOUND).
 */
export const EXPLORE_EXIT_CODES = { success: 0, budget_exhausted_empty: 1, invalid_config: 2, agent_error: 4, user_cancelled: 5 } as const;

/** Errors of the command line or its inputs (exit 2); any other typed error is the agent's (exit 4). */
const INPUT_ERRORS = new Set(['USAGE', 'INVALID_OPTION', 'INVALID_CONFIG', 'REPO_NOT_FOUND', 'CANNOT_WRITE', 'LLM_KEY_MISSING', 'LLM_UNPRICED', 'INVALID_LLM_SPEC', 'INVALID_SCRIPT', 'SESSION_NOT_FOUND', 'INVALID_SESSION', 'NOT_A_LEDGER', 'LEDGER_TOO_NEW', 'LEDGER_NOT_FOUND']);

/** The error `main` reports (one line, or the JSON error line with --json), with explore's exit code. */
function exploreError(err: NavkernelError): NavkernelError {
  return INPUT_ERRORS.has(err.code) ? err : new ExitCodeError(err.code, err.message, EXPLORE_EXIT_CODES.agent_error, { cause: err });
}

function num(value: string | undefined, name: string, kind: 'int' | 'usd'): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (kind === 'int' ? !Number.isInteger(n) || n <= 0 : !(n > 0)) throw new NavkernelError('INVALID_OPTION', `${name} must be ${kind === 'int' ? 'a positive integer' : 'a number > 0'} (got ${JSON.stringify(value)})`);
  return n;
}

/**
 * The model `--llm` names, or the default: Gemini when GEMINI_API_KEY/GOOGLE_API_KEY is set, else Claude
 * when ANTHROPIC_API_KEY is. With neither, a clear error instead of a network attempt.
 */
function resolveModel(spec: string | undefined, env: NodeJS.ProcessEnv = process.env): { model: LanguageModel; spec: string } {
  let s = spec;
  if (!s) {
    if (env.GEMINI_API_KEY || env.GOOGLE_API_KEY) s = 'gemini';
    else if (env.ANTHROPIC_API_KEY) s = 'anthropic';
    else {
      throw new NavkernelError(
        'LLM_KEY_MISSING',
        'no model available: set GEMINI_API_KEY (or GOOGLE_API_KEY) or ANTHROPIC_API_KEY, pass --llm anthropic[:MODEL] | gemini[:MODEL] | scripted:FILE, or run --no-llm for the deterministic plan only',
      );
    }
  }
  const model = createLanguageModel(s);
  return { model, spec: model.provider === 'scripted' ? s : `${model.provider}:${model.modelId}` };
}

function zeroOrMore(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new NavkernelError('INVALID_OPTION', `${name} must be an integer >= 0 (got ${JSON.stringify(value)})`);
  return n;
}

function write(file: string, text: string, flag: string): void {
  writeOutputFile(file, text, flag, { mkdir: true });
}

function summary(r: ExplorerResult, files: string[]): string {
  const s = r.state;
  const lines = [
    `explore: ${s.completion_reason ?? 'incomplete'} after ${s.decision_log.length} step(s) | ${r.output.token_count.toLocaleString('en-US')} tokens | ${s.map_metadata.file_count} files | $${r.output.total_cost.toFixed(4)} spent of $${s.budget_config.max_spend_usd}`,
    `session: ${r.session_id}`,
    `reasoning: ${r.output.reasoning_summary}`,
    ...(r.error ? [`error: ${r.error}`] : []),
    ...files.map((f) => `wrote ${f}`),
  ];
  return lines.join('\n') + '\n';
}

/**
 * `navkernel explore`: the seed-000 explorer. Starts from the navigator's deterministic plan, then lets a
 * model refine the FlightPlan under a USD budget; saves the state after every step in the ledger file.
 */
export function registerExploreCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('explore')
    .description('Refine a repository map for a goal with an LLM agent under a USD budget (starts from the navigator\'s deterministic plan)')
    .option('--repo <dir>', 'the repository to explore')
    .addOption(sharedOption.task('the task or goal'))
    .addOption(sharedOption.budgetTokens('token budget of the context (default 20000)'))
    .addOption(sharedOption.budgetUsd('USD to spend at most (default: config "budget_usd", else 2.0)'))
    .addOption(sharedOption.llm('the model (default: config "llm", else gemini if GEMINI_API_KEY is set, else anthropic if ANTHROPIC_API_KEY is)'))
    .option('--persona <name>', 'style prior loaded last in every prompt: shannon | knuth | feynman | auto (from the goal, default) | none')
    .option('--interactive', 'pause after each step: continue, finalize, change the token or USD budget, or abort')
    .option('--max-iterations <n>', 'model steps at most (default 20)')
    .addOption(sharedOption.out('write the final context (Markdown) to FILE'))
    .option('-f, --flight-plan <file>', 'write the final FlightPlan (YAML) to FILE')
    .option('-c, --copy', "copy the final context to the clipboard (pbcopy, clip, wl-copy, xclip or xsel; a message says when none is found)")
    .option('-v, --verbose', "full TurnReports after every step, with the model's reasoning, its diff and each call's tokens, cost and latency")
    .option('--no-llm', 'the deterministic plan only: no model call')
    .option('--resume <session>', 'carry on a saved session')
    .option('--session <id>', 'id of a new session (default generated)')
    .option('--list', 'list saved sessions')
    .option('--json', 'print NavigatorOutput (with session and completion reason) as JSON')
    .option('-q, --quiet', 'no progress output')
    .option('--cache-dir <dir>', 'index/registry cache (default runs/.cache)')
    .option('--no-cache', 'do not read or write the cache')
    .option('--registry <file>', "a magic-words.jsonl tier registry for the navigator's start")
    .addOption(sharedOption.llmTimeoutMs('per-call timeout of the model in ms (default 5000)'))
    .option('--escalate-to <spec>', 'a stronger model (same forms as --llm, e.g. claude-sonnet-4-5) the session moves to when it stalls on --llm, if its next call fits the USD budget')
    .option('--stall-turns <n>', 'steps in a row without a plan change that are a stall: escalate, or warn the model (default 3)')
    .option('--repeat-limit <n>', 'identical tool calls in a row that are a stall: escalate, or end the session as stalled (default 3)');
  addLedgerOption(cmd, {}, ctx.io);
  // The former names of the shared options (docs/cli-conventions.md), hidden, for a release.
  addFormerFlag(cmd, '-g, --goal <text>', 'task');
  addFormerFlag(cmd, '-t, --tokens <n>', 'budgetTokens');
  addFormerFlag(cmd, '--cost-limit <usd>', 'budgetUsd');
  addFormerFlag(cmd, '-m, --model <spec>', 'llm');
  addFormerFlag(cmd, '--output <file>', 'out');
  addFormerFlag(cmd, '--timeout-ms <n>', 'llmTimeoutMs');
  cmd.action(async (o: ExploreOptions) => {
    let store: SqliteExplorerSessionStore | undefined;
    let asker: ReturnType<typeof createLineAsker> | undefined;
    try {
      if (o.list) {
        store = openExplorerStore(o.ledger, { create: false });
        const rows = store.list();
        if (o.json) ctx.json(rows);
        else ctx.print(rows.map((r) => `${inLine(r.session_id)}  ${r.updated_ts}  ${r.steps} step(s)  ${inLine(r.complete ? (r.completion_reason ?? 'complete') : 'open')}  $${r.spent_usd.toFixed(4)}  ${inLine(r.user_task)}`).join('\n') + (rows.length ? '\n' : ''));
        return;
      }
      const tokens = num(o.budgetTokens, '--budget-tokens', 'int');
      // The configuration file's "budget_usd" and "llm" (README, Configuration), as every command reads them; flags win.
      const config = cliConfig(ctx.io.cwd);
      const costLimit = o.budgetUsd !== undefined ? num(o.budgetUsd, '--budget-usd', 'usd') : config.budget_usd;
      const maxIterations = num(o.maxIterations, '--max-iterations', 'int');
      const timeoutMs = num(o.llmTimeoutMs, '--llm-timeout-ms', 'int');
      const persona = parsePersonaChoice(o.persona);
      const showProgress = !o.quiet && !o.json && !o.interactive && ctx.io.stderr.isTTY;
      if (o.interactive) asker = createLineAsker(process.stdin, process.stderr);
      const stepCalls: LlmCallRecord[] = [];
      const onStep: ExplorerRunOptions['onStep'] = o.verbose
        ? (r, state) => {
            // Interactive mode prints the box at the breakpoint; autonomous mode prints it here.
            ctx.io.stderr.write((o.interactive ? '' : formatTurnReport(r)) + verboseStepDetails(state, stepCalls));
            stepCalls.length = 0;
          }
        : showProgress
          ? (r) => ctx.io.stderr.write(progressLine(r))
          : undefined;
      const runOptions: ExplorerRunOptions = {
        cacheDir: o.cache === false ? false : path.resolve(o.cacheDir ?? path.join('runs', '.cache')),
        ...(asker ? { ask: asker } : {}),
        ...(onStep ? { onStep } : {}),
        onLlmCall: (record) => {
          stepCalls.push(record);
        },
        ...(timeoutMs ? { retry: { timeoutMs, totalTimeMs: timeoutMs * 3 } } : {}),
      };
      let result: ExplorerResult;
      store = openExplorerStore(o.ledger);
      if (o.resume) {
        const saved = store.load(o.resume);
        if (!saved) throw new NavkernelError('SESSION_NOT_FOUND', `no explorer session ${o.resume} in ${o.ledger}`);
        // The session's own model before the configuration's: a resumed session keeps its model unless --llm says otherwise.
        const spec = (o.llm || undefined) ?? saved.config.model ?? config.llm;
        const model = !saved.state.exploration_complete && spec ? resolveModel(spec, ctx.io.env).model : undefined;
        const escalateTo = o.escalateTo ?? saved.config.escalate_to;
        const escalation = !saved.state.exploration_complete && escalateTo ? resolveModel(escalateTo, ctx.io.env) : undefined;
        if (!o.quiet && !o.json) ctx.io.stderr.write(`explore: resuming session ${o.resume} at step ${saved.state.decision_log.length + 1}\n`);
        result = await resumeExplorer(store, o.resume, { ...runOptions, ...(model ? { model } : {}), ...(escalation ? { escalation: { model: escalation.model, modelSpec: escalation.spec } } : {}), ...(o.interactive ? { interactive: true } : {}) });
      } else {
        if (!o.repo) throw new UsageError('--repo is required (or --resume SESSION, or --list)');
        if (!o.task?.trim()) throw new UsageError('--task is required and must be non-empty');
        if (!existsSync(o.repo) || !statSync(o.repo).isDirectory()) throw new NavkernelError('REPO_NOT_FOUND', `repository not found: ${o.repo}`);
        const chosen = o.llm === false ? undefined : resolveModel(o.llm ?? config.llm, ctx.io.env);
        const escalation = chosen && o.escalateTo ? resolveModel(o.escalateTo, ctx.io.env) : undefined;
        const stallTurns = o.stallTurns !== undefined ? zeroOrMore(o.stallTurns, '--stall-turns') : undefined;
        const repeatLimit = o.repeatLimit !== undefined ? zeroOrMore(o.repeatLimit, '--repeat-limit') : undefined;
        const sessionId = o.session ?? `exp-${randomUUID().slice(0, 8)}`;
        if (!o.quiet && !o.json) ctx.io.stderr.write(`explore: session ${sessionId} (carry on later with --resume ${sessionId})\n`);
        result = await runExplorer({
          ...runOptions,
          repo: o.repo,
          task: o.task,
          sessionId,
          store,
          ...(tokens ? { tokens } : {}),
          ...(costLimit ? { maxSpendUsd: costLimit } : {}),
          ...(maxIterations ? { maxIterations } : {}),
          ...(chosen ? { model: chosen.model, modelSpec: chosen.spec } : { noLlm: true }),
          ...(o.interactive ? { interactive: true } : {}),
          ...(o.registry ? { registryFile: o.registry } : {}),
          ...(escalation ? { escalation: { model: escalation.model, modelSpec: escalation.spec } } : {}),
          ...(stallTurns !== undefined || repeatLimit !== undefined ? { stall: { ...(stallTurns !== undefined ? { noChangeTurns: stallTurns } : {}), ...(repeatLimit !== undefined ? { repeatedCalls: repeatLimit } : {}) } } : {}),
          persona,
        });
      }
      const code = exitCodeFor(result);
      const written: string[] = [];
      if (code !== EXPLORE_EXIT_CODES.user_cancelled) {
        const now = new Date();
        if (o.out) write(o.out, contextMarkdown(result.output, result.state, now), '--out'), written.push(o.out);
        if (o.flightPlan) write(o.flightPlan, flightPlanFile(result.output, result.state, now), '--flight-plan'), written.push(o.flightPlan);
      }
      if (o.json) {
        ctx.write(`${JSON.stringify({ ...result.output, exit_code: code, steps: result.state.decision_log.length, ...(result.error ? { error: result.error } : {}), files_written: written })}\n`);
      } else if (code === EXPLORE_EXIT_CODES.user_cancelled) {
        ctx.io.stderr.write(`explore: cancelled by the user; no output written (session ${result.session_id})\n`);
      } else if (o.out) {
        ctx.write(summary(result, written));
      } else {
        if (!o.quiet) ctx.io.stderr.write(summary(result, written));
        ctx.write(result.output.context_string);
      }
      if (o.copy && code !== EXPLORE_EXIT_CODES.user_cancelled) {
        const copied = copyToClipboard(result.output.context_string);
        ctx.io.stderr.write(copied.ok ? `explore: copied the context (${result.output.token_count} tokens) to the clipboard with ${copied.tool}\n` : `explore: --copy: ${copied.message}\n`);
      }
      ctx.setExitCode(code);
    } catch (err) {
      throw err instanceof NavkernelError ? exploreError(err) : err;
    } finally {
      asker?.close();
      store?.close();
    }
  });
}
