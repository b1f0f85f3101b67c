import type { ErrorCode } from './error-codes.js';
import type { IssueCode } from './issue-codes.js';

interface IssueFields<C extends IssueCode> {
  /** Machine-readable kind of problem, from the closed set ISSUE_CODES (docs/errors.md lists them). */
  code: C;
  /** JSON path of the offending value, e.g. `$.forensics.tests.failed`. */
  path: string;
  /** What was expected, in words. */
  message: string;
}

/** One problem found while validating a document: a union keyed on `code`, each member one code of ISSUE_CODES. */
export type ValidationIssue = { [C in IssueCode]: IssueFields<C> }[IssueCode];

/** An issue whose code is only known as an IssueCode (e.g. copied from another issue or mapped from an ajv keyword). */
export function validationIssue(code: IssueCode, path: string, message: string): ValidationIssue {
  return { code, path, message } as ValidationIssue;
}

/**
 * The structured form of an issue's path, as zod's issue path: `$.steps[1].next` → `['steps', 1, 'next']`. A
 * location before the JSON path (`flows/a.yaml: `, `line 3: `) is not part of it; a path with no `$` (a file-level
 * problem) is `[]`. The text form stays in `path` for people; this is for programs that walk to the bad value.
 */
export function issuePathSegments(path: string): (string | number)[] {
  const at = path.lastIndexOf('$');
  if (at < 0) return [];
  const out: (string | number)[] = [];
  const re = /\.([^.[]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
  re.lastIndex = at + 1;
  for (let m = re.exec(path); m; m = re.exec(path)) out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]!) as string)));
  return out;
}

/**
 * Issue codes about a file or folder itself (missing, not a regular file, unreadable, no flow files in it) rather
 * than a value inside a document: their `$` path says nothing, so {@link formatIssue} leaves it out.
 */
const PATH_LEVEL_CODES: ReadonlySet<IssueCode> = new Set<IssueCode>(['not_found', 'not_a_file', 'unreadable', 'empty']);

/**
 * One issue as a line of text: `PATH: MESSAGE` (`$.steps[0].next: …`), or for a problem with the file or folder
 * itself just what is wrong with it (`no such file or folder`, `FILE: cannot open: EACCES`), without a stray `$`.
 */
export function formatIssue(issue: ValidationIssue): string {
  if (!PATH_LEVEL_CODES.has(issue.code)) return `${issue.path}: ${issue.message}`;
  const where = issue.path.replace(/(^|: )\$$/, '');
  return where ? `${where}: ${issue.message}` : issue.message;
}

/** Base of every error navkernel throws on purpose. `code` is stable; match on it, not on the message. */
export class NavkernelError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NavkernelError';
    this.code = code;
  }
}

/** A document (request, flow file, capsule, …) that does not match its schema. */
export class ValidationError extends NavkernelError {
  readonly issues: ValidationIssue[];
  /** Where the document came from: a file, `stdin line 3`, `route()`. */
  readonly source: string;
  constructor(code: ErrorCode, source: string, issues: ValidationIssue[]) {
    // An issue whose path already starts with the source (a flow file's) is not prefixed with it twice.
    const own = `${source}: `;
    super(code, `${source}: ${issues.map((i) => formatIssue(i)).map((t) => (t.startsWith(own) ? t.slice(own.length) : t)).join('; ')}`);
    this.name = 'ValidationError';
    this.source = source;
    this.issues = issues;
  }
}

/**
 * The error for problems of a route request: a ValidationError with code INVALID_FORENSICS when every problem is inside
 * `$.forensics`, else INVALID_REQUEST (a request-level field, or a flow or step the kernel does not know).
 */
export function routeRequestError(source: string, issues: ValidationIssue[]): ValidationError {
  const forensicsOnly = issues.length > 0 && issues.every((i) => i.path === '$.forensics' || i.path.startsWith('$.forensics.') || i.path.startsWith('$.forensics['));
  return new ValidationError(forensicsOnly ? 'INVALID_FORENSICS' : 'INVALID_REQUEST', source, issues);
}

/** One or more flow files are malformed or describe a broken graph. Lists every problem at once. */
export class FlowValidationError extends ValidationError {
  constructor(source: string, issues: ValidationIssue[]) {
    super('INVALID_FLOW', source, issues);
    this.name = 'FlowValidationError';
  }
}
