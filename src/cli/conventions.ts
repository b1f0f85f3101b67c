// The conventions every `navkernel` command follows (docs/cli.md, "Exit codes and --json"):
//
//   exit 0  success
//   exit 1  a finding: the command worked and found something wrong (a divergence, a broken chain, invalid files)
//   exit 2  a usage or input error: a bad flag or argument, an unreadable or invalid input, an unknown run
//
// With `--json`, everything a command prints on stdout is JSON, errors included: one line
// `{"error":{"code":"…","message":"…"}}`, the shape of the co-process's error line. A command signals an error by
// throwing (a NavkernelError, or a UsageError for a bad flag); `main` reports it in one place. A command that
// finds a problem calls `ctx.finding()` (context.ts) and prints its report.
//
// Files named on the command line: a missing input is PATH_NOT_FOUND, an unreadable one CANNOT_READ, an output that
// cannot be written CANNOT_WRITE, each naming the flag and the file (`readInputFile`, `writeOutputFile`); a
// filesystem error that reaches `main` some other way is still an input error (exit 2) naming its path.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CommanderError } from 'commander';
import { NavkernelError } from '../contracts/errors.js';
import type { ErrorCode } from '../contracts/error-codes.js';
import type { CliContext } from './context.js';
import { inLine, jsonLine } from './terminal-text.js';

/** The exit codes shared by every command. Commands with their own outcomes (navigate, explore) use 3 and up. */
export const EXIT = { OK: 0, FINDING: 1, USAGE: 2 } as const;

/** A bad flag, a bad argument or a missing input: exit 2, code USAGE unless given. */
export class UsageError extends NavkernelError {
  constructor(message: string, code: ErrorCode = 'USAGE') {
    super(code, message);
    this.name = 'UsageError';
  }
}

/**
 * A typed error with an exit code of its own: a command's documented outcome beyond 2 (explore's 4, model error).
 * Reported like any other error (one line, or the JSON error line with `--json`).
 */
export class ExitCodeError extends NavkernelError {
  readonly exitCode: number;
  constructor(code: ErrorCode, message: string, exitCode: number, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'ExitCodeError';
    this.exitCode = exitCode;
  }
}

/** A Node.js filesystem error (ENOENT, EACCES, …) with the path it was about. */
function fsError(err: unknown): (NodeJS.ErrnoException & { path: string }) | undefined {
  if (!(err instanceof Error)) return undefined;
  const e = err as NodeJS.ErrnoException;
  return typeof e.code === 'string' && typeof e.path === 'string' && typeof e.syscall === 'string' ? (e as NodeJS.ErrnoException & { path: string }) : undefined;
}

/** Why a filesystem call failed, in words ("no such file or folder", "permission denied", …). */
function fsReason(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ENOENT':
      return 'no such file or folder';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    case 'EISDIR':
      return 'a folder, not a file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    default:
      return e.message;
  }
}

/** The input error for a filesystem error on `file`, named after the flag that gave it (if any). */
function fileError(err: unknown, file: string, flag: string | undefined, mode: 'read' | 'write'): unknown {
  const e = fsError(err);
  if (!e) return err;
  const where = flag ? `${flag} ${file}` : file;
  if (mode === 'write') return new UsageError(`${where}: cannot write: ${fsReason(e)}`, 'CANNOT_WRITE');
  const missing = e.code === 'ENOENT' || e.code === 'ENOTDIR';
  return new UsageError(`${where}: ${missing ? 'no such file' : `cannot read: ${fsReason(e)}`}`, missing ? 'PATH_NOT_FOUND' : 'CANNOT_READ');
}

/** Reads an input file named on the command line (by `flag`); a missing or unreadable file is an input error (exit 2). */
export function readInputFile(file: string, flag?: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw fileError(err, file, flag, 'read');
  }
}

/** Writes an output file named on the command line (by `flag`), its folder first with `mkdir`; one that cannot be written is an input error (exit 2). */
export function writeOutputFile(file: string, data: string, flag?: string, { mkdir = false }: { mkdir?: boolean } = {}): void {
  try {
    if (mkdir) mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    writeFileSync(file, data);
  } catch (err) {
    throw fileError(err, file, flag, 'write');
  }
}

/**
 * The option to suggest for a mistyped `flag`: the options the typed name is the start of (`--budget` →
 * `--budget-tokens`) before commander's edit-distance guess, which knows nothing of prefixes (`--budget` → `--quiet`).
 * Undefined when no option starts with it.
 */
export function prefixSuggestion(flag: string, candidates: readonly string[]): string | undefined {
  const typed = flag.split('=')[0]!;
  if (!typed.startsWith('--') || typed.length < 3) return undefined;
  const matches = [...new Set(candidates.filter((c) => c.startsWith(typed) && c !== typed))].sort();
  if (matches.length === 0) return undefined;
  return matches.length === 1 ? matches[0] : `one of ${matches.join(', ')}`;
}

/** A flag's value as a positive integer; anything else (`bad`, `0`, `-2`, `1.5`) is INVALID_OPTION naming the flag (exit 2). */
export function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n) || n <= 0) throw new NavkernelError('INVALID_OPTION', `${flag} must be a positive integer (got ${JSON.stringify(value)})`);
  return n;
}

/** Whether `--json` was passed (before any `--`), known even when parsing the rest failed. */
export function jsonRequested(argv: readonly string[]): boolean {
  for (const a of argv.slice(2)) {
    if (a === '--') return false;
    if (a === '--json') return true;
  }
  return false;
}

/** A parsed error: what `main` prints and the exit code it returns. */
export interface CliError {
  code: ErrorCode;
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
  if (err instanceof ExitCodeError) return { code: err.code, message: err.message, exitCode: err.exitCode };
  if (err instanceof NavkernelError) return { code: err.code, message: err.message, exitCode: EXIT.USAGE };
  // A filesystem error no command turned into a typed one: still an input error naming the path, not INTERNAL.
  const fs = fsError(err);
  if (fs) {
    const missing = fs.code === 'ENOENT' || fs.code === 'ENOTDIR';
    return { code: missing ? 'PATH_NOT_FOUND' : 'FILE_ERROR', message: `${fs.path}: ${fsReason(fs)}`, exitCode: EXIT.USAGE };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'INTERNAL', message, exitCode: EXIT.USAGE };
}

/**
 * Reports an error the way the conventions say (one line on stderr, or the JSON error line on stdout with
 * `--json`) and returns the exit code. `hint` is appended to the text form only (e.g. "see navkernel route --help").
 */
export function reportError(err: unknown, { json, hint, ctx }: { json: boolean; hint?: string; ctx: CliContext }): number {
  const e = classifyError(err);
  if (e.exitCode === EXIT.OK) return EXIT.OK;
  // `navkernel` alone: commander has printed the usage on stderr already.
  if (err instanceof CommanderError && err.code === 'commander.help') return EXIT.USAGE;
  if (json) ctx.json({ error: { code: e.code, message: e.message } });
  else {
    ctx.printError(`navkernel: ${inLine(e.message)}${hint ? ` (${hint})` : ''}\n`);
    if (e.code === 'INTERNAL' && err instanceof Error && ctx.io.env.NAVKERNEL_DEBUG) ctx.printError(`${err.stack}\n`);
  }
  return e.exitCode;
}
