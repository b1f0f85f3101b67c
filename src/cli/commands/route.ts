import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { EXIT, UsageError } from '../conventions.js';
import { addRoutingOptions, openRoutingKernel, type RoutingCliOptions } from '../kernel-options.js';
import { createRedactor } from '../../redact.js';
import { withReports } from '../../forensics/with-reports.js';
import { serveCoProcess } from '../route-coprocess.js';

interface RouteCliOptions extends RoutingCliOptions {
  failFast?: boolean;
  multiline?: boolean;
  maxDepth?: string;
  maxBytes?: string;
  redactPattern?: string[];
  redact?: boolean;
  reportsRoot?: string;
  quiet?: boolean;
}

function positiveInt(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${flag} must be a positive integer (got ${JSON.stringify(v)})`);
  return n;
}

/**
 * `navkernel route`: the co-process. One answer line per input line, in input order (docs/coprocess.md); exit 0 when every line got a decision, 1 when some got an error, 2 when --fail-fast stopped it.
 */
export function registerRouteCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('route')
    .description('Route step results read from stdin, one JSON document per line (JSONL); answers each line with one line of JSON, in order')
    .option('--fail-fast', 'stop at the first line that gets an error (exit 2); lines are then routed one at a time')
    .option('--multiline', 'accept pretty-printed JSON documents spanning several lines (a syntax error ends the input)')
    .option('--max-depth <n>', 'deepest nesting of a request (default 64)')
    .option('--max-bytes <n>', 'largest request or line, in bytes (default 1048576)')
    .option('--redact-pattern <regex>', 'an extra secret shape to redact (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--no-redact', 'do not redact secrets from requests (they are then stored and may be sent to a model)')
    .option('--reports-root <dir>', 'read the report files a request names in `reports` (under this folder only) into its forensics')
    .option('-q, --quiet', 'do not print the start-up line (which ledger and flows) on stderr')
    .addHelpText(
      'after',
      '\nExample:\n  echo \'{"run_id":"r1","flow":"build","step_completed":"build-step-1","status":"VERIFIED"}\' | navkernel route --flows charters\n\n' +
        'Each line is answered with the decision (plus run_id and request_id) or an error line\n' +
        '{"error":{"code","message","path","line"},"request_id","run_id"}; the co-process keeps serving after an error.\n' +
        'Exit 0 when every line got a decision, 1 when some got an error, 2 when --fail-fast stopped at one.',
    );
  addRoutingOptions(cmd, {}, ctx.io).action(async (opts: RouteCliOptions) => {
    const maxDepth = positiveInt('--max-depth', opts.maxDepth);
    const maxBytes = positiveInt('--max-bytes', opts.maxBytes);
    let patterns: RegExp[] = [];
    try {
      patterns = (opts.redactPattern ?? []).map((p) => new RegExp(p, 'g'));
    } catch (e) {
      throw new UsageError(`--redact-pattern: ${(e as Error).message}`);
    }
    const kernel = await openRoutingKernel(opts, {
      limits: { ...(maxDepth ? { maxDepth } : {}), ...(maxBytes ? { maxBytes } : {}) },
      redact: opts.redact === false ? false : { patterns },
    }, opts.quiet ? undefined : 'route', ctx);
    // SIGTERM / SIGINT: stop reading, answer what was read (its routes commit), close the ledger, exit 143 / 130.
    const stop = new AbortController();
    let stoppedBy: NodeJS.Signals | undefined;
    const onSignal = (sig: NodeJS.Signals) => {
      stoppedBy = sig;
      stop.abort();
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    try {
      const routed = withReports(kernel, { root: opts.reportsRoot, ...(opts.redact === false ? { redact: false } : { redact: { patterns } }) });
      const outcome = await serveCoProcess(routed, process.stdin, process.stdout, {
        signal: stop.signal,
        failFast: opts.failFast ?? false,
        multiline: opts.multiline ?? false,
        ...(maxBytes ? { maxLineBytes: maxBytes } : {}),
        ...(opts.redact === false ? {} : { scrub: createRedactor({ patterns }).text }),
        onError: (e) => ctx.printError(`navkernel route: ${e.error.message.startsWith(`line ${e.error.line}:`) ? '' : `line ${e.error.line}: `}${e.error.message}\n`),
      });
      if (outcome.interrupted) {
        process.stdin.destroy();
        ctx.setExitCode(stoppedBy === 'SIGINT' ? 130 : 143);
      } else if (outcome.outputError) {
        ctx.printError(`navkernel route: stopped: cannot write answers (${outcome.outputError})\n`);
        ctx.setExitCode(EXIT.FINDING);
      } else if (outcome.stoppedEarly) ctx.setExitCode(EXIT.USAGE);
      else if (outcome.errors > 0) ctx.setExitCode(EXIT.FINDING);
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      await kernel.close();
    }
  });
}
