// The conventions every `navkernel` command follows (docs/cli.md, "Exit codes and --json"):
//
//   exit 0  success
//   exit 1  a finding: the command worked and found something wrong (a divergence, a broken chain, invalid files)
//   exit 2  a usage or input error: a bad flag or argument, an unreadable or invalid input, an unknown run
//
// With `--json`, everything a command prints on stdout is JSON, errors included: one line
// `{"error":{"code":"…","message":"…"}}`, the shape of the co-process's error line. A command signals an error by
// throwing (a NavkernelError, or a UsageError for a bad flag); `main` reports it in one place. A command that
// finds a problem sets `process.exitCode = EXIT.FINDING` (or calls `finding()`) and prints its report.
import { CommanderError } from 'commander';
import { NavkernelError } from '../contracts/errors.js';

/** The exit codes shared by every command. Commands with their own outcomes (navigate, explore) use 3 and up. */
export const EXIT = { OK: 0, FINDING: 1, USAGE: 2 } as const;

/** A bad flag, a bad argument or a missing input: exit 2, code USAGE unless given. */
export class UsageError extends NavkernelError {
  constructor(message: string, code = 'USAGE') {
    super(code, message);
    this.name = 'UsageError';
  }
}

/** Whether `--json` was passed (before any `--`), known even when parsing the rest failed. */
export function jsonRequested(argv: readonly string[]): boolean {
  for (const a of argv.slice(2)) {
    if (a === '--') return false;
    if (a === '--json') return true;
  }
  return false;
}

/** Prints one value as one line of JSON on stdout. */
export function writeJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

/** Marks the command's outcome as a finding (exit 1) without throwing. */
export function finding(): void {
  process.exitCode = EXIT.FINDING;
}

/** A parsed error: what `main` prints and the exit code it returns. */
export interface CliError {
  code: string;
  message: string;
  exitCode: number;
}

/**
 * Turns commander's two-line complaint ("error: unknown option '--ledgr'\n(Did you mean --ledger?)") into one
 * line ("unknown option '--ledgr', did you mean --ledger?").
 */
export function oneLine(commanderMessage: string): string {
  return commanderMessage
    .replace(/^error:\s*/, '')
    .replace(/\s*\n\s*\(Did you mean ([^)]*)\)\s*$/s, ', did you mean $1')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** Classifies anything a command threw. */
export function classifyError(err: unknown): CliError {
  if (err instanceof CommanderError) {
    return { code: 'USAGE', message: oneLine(err.message), exitCode: err.exitCode === 0 ? EXIT.OK : EXIT.USAGE };
  }
  if (err instanceof NavkernelError) return { code: err.code, message: err.message, exitCode: EXIT.USAGE };
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'INTERNAL', message, exitCode: EXIT.USAGE };
}

/**
 * Reports an error the way the conventions say (one line on stderr, or the JSON error line on stdout with
 * `--json`) and returns the exit code. `hint` is appended to the text form only (e.g. "see navkernel route --help").
 */
export function reportError(err: unknown, { json, hint }: { json: boolean; hint?: string }): number {
  const e = classifyError(err);
  if (e.exitCode === EXIT.OK) return EXIT.OK;
  // `navkernel` alone: commander has printed the usage on stderr already.
  if (err instanceof CommanderError && err.code === 'commander.help') return EXIT.USAGE;
  if (json) writeJson({ error: { code: e.code, message: e.message } });
  else {
    process.stderr.write(`navkernel: ${e.message}${hint ? ` (${hint})` : ''}\n`);
    if (e.code === 'INTERNAL' && err instanceof Error && process.env.NAVKERNEL_DEBUG) process.stderr.write(`${err.stack}\n`);
  }
  return e.exitCode;
}
