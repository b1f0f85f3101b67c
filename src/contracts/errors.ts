import type { ErrorCode } from './error-codes.js';
import type { IssueCode } from './issue-codes.js';

/**
 * Where the offending value is inside its document, as zod's issue path: object keys and array indexes from the
 * root, `['steps', 1, 'next']`; `[]` is the document itself. {@link issuePathText} gives the text form people read.
 */
export type IssuePath = (string | number)[];

interface IssueBase<C extends IssueCode> {
  /** Machine-readable kind of problem, from the closed set ISSUE_CODES (docs/errors.md lists them). */
  code: C;
  /** Where the offending value is inside the document, e.g. `['forensics', 'tests', 'failed']`; `[]` for the whole document. */
  path: IssuePath;
  /** What was expected, in words. */
  message: string;
  /** The file the problem is in, when the document came from one of several (flow loading, `flows validate`). */
  file?: string;
  /** The 1-based line of a JSON-lines document the problem is on. */
  line?: number;
}

/** The data an issue carries beside its code, path and message, per code (codes not listed carry none). */
export interface IssueData {
  /** The missing field. */
  required: { field: string };
  /** The field that is not allowed, the nearest allowed one (if any is close) and every allowed one (if the schema names them). */
  unknown_property: { field: string; suggestion?: string; allowed?: string[] };
  /** The field the kernel does not read, and the field it probably meant. */
  misspelt_field: { field: string; suggestion: string };
  /** The allowed values, and the nearest one to a string given (if any is close). */
  enum: { allowed: unknown[]; suggestion?: string };
  /** The JSON type(s) expected (`string`, `integer`, `object,null`). */
  type: { expected: string };
  minimum: { limit: number };
  maximum: { limit: number };
  exclusiveMinimum: { limit: number };
  exclusiveMaximum: { limit: number };
  minLength: { limit: number };
  maxLength: { limit: number };
  minItems: { limit: number };
  maxItems: { limit: number };
  /** The regular expression the string must match. */
  pattern: { pattern: string };
  /** The limit broken (bytes for a size, levels for a depth). */
  too_large: { limit: number };
  /** The flow id defined twice, and the file that defined it first. */
  duplicate_flow: { flow: string; defined_in: string };
  /** The step id used twice. */
  duplicate_step: { step: string };
  /** The flow id no loaded flow has, and the nearest loaded one (if any is close). */
  unknown_flow: { flow: string; suggestion?: string };
  /** The step id the flow does not have, and the nearest step of it (if any is close). */
  unknown_step: { step: string; suggestion?: string };
  /** The step nothing reaches, and the first step it was judged from. */
  unreachable: { step: string; from: string };
  /** The flow that names itself. */
  self_injection: { flow: string };
  /** The flow a detour injects without listing it in inject_flows. */
  not_injectable: { flow: string };
  /** The ring of flows, first flow repeated at the end (`['a', 'b', 'a']`). */
  injection_cycle: { cycle: string[] };
  /** The detour's signature as written, and the one written before it that names the same signature. */
  duplicate_detour: { signature: string; same_as: string };
  /** The detour's target step, which lacks `returns: true`. */
  detour_not_returning: { step: string };
  /** The terminal step that declares edges. */
  terminal_with_edges: { step: string };
  /** The fields zod does not allow. */
  unrecognized_keys: { keys: string[] };
  /** The registry word that appears twice. */
  duplicate: { word: string };
}

type DataOf<C extends IssueCode> = C extends keyof IssueData ? IssueData[C] : {};

/**
 * One problem found while validating a document: a union keyed on `code` (each member one code of ISSUE_CODES),
 * where a member carries its own data where its code has some ({@link IssueData}).
 */
export type ValidationIssue = { [C in IssueCode]: IssueBase<C> & DataOf<C> }[IssueCode];

/** The member of ValidationIssue for one code. */
export type IssueOf<C extends IssueCode> = Extract<ValidationIssue, { code: C }>;

/** Codes whose issues carry no data of their own. */
export type PlainIssueCode = { [C in IssueCode]: {} extends DataOf<C> ? C : never }[IssueCode];

/** An issue whose code is only known at run time (an ajv keyword or zod code mapped into the set): code, path, message. */
export function validationIssue(code: IssueCode, path: IssuePath, message: string): ValidationIssue {
  return { code, path, message } as ValidationIssue;
}

/** The text form of an issue path, for people: `['steps', 1, 'next']` → `$.steps[1].next`, `['a b']` → `$["a b"]`. */
export function issuePathText(path: readonly (string | number)[]): string {
  let out = '$';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`;
  return out;
}

/**
 * Issues from zod's (tool arguments, navigator and explorer documents): the path's symbols (which JSON cannot
 * hold) become text; an `unrecognized_keys` issue keeps its keys.
 */
export function issuesFromZod(issues: readonly { code: string; path: readonly PropertyKey[]; message: string; keys?: readonly string[] }[], toCode: (code: string) => IssueCode): ValidationIssue[] {
  return issues.map((i) => {
    const path = i.path.map((p) => (typeof p === 'number' ? p : String(p)));
    const code = toCode(i.code);
    return code === 'unrecognized_keys' ? { code, path, message: i.message, keys: [...(i.keys ?? [])] } : validationIssue(code, path, i.message);
  });
}

/**
 * Issue codes about a file or folder itself (missing, not a regular file, unreadable, no flow files in it) rather
 * than a value inside a document: their path says nothing, so {@link formatIssue} leaves it out.
 */
const PATH_LEVEL_CODES: ReadonlySet<IssueCode> = new Set<IssueCode>(['not_found', 'not_a_file', 'unreadable', 'empty']);

/**
 * One issue as a line of text, the one form terminals and error messages use: `FILE: line N: PATH: MESSAGE`, each
 * location part only where the issue has it (`$.steps[0].next: …`), and for a problem with a file or folder itself
 * no `$` (`flows/a.yaml: cannot open: EACCES`).
 */
export function formatIssue(issue: ValidationIssue): string {
  const where: string[] = [];
  if (issue.file !== undefined) where.push(issue.file);
  if (issue.line !== undefined) where.push(`line ${issue.line}`);
  if (!PATH_LEVEL_CODES.has(issue.code) || issue.path.length) where.push(issuePathText(issue.path));
  return [...where, issue.message].join(': ');
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
  const forensicsOnly = issues.length > 0 && issues.every((i) => i.path[0] === 'forensics');
  return new ValidationError(forensicsOnly ? 'INVALID_FORENSICS' : 'INVALID_REQUEST', source, issues);
}

/** One or more flow files are malformed or describe a broken graph. Lists every problem at once. */
export class FlowValidationError extends ValidationError {
  constructor(source: string, issues: ValidationIssue[]) {
    super('INVALID_FLOW', source, issues);
    this.name = 'FlowValidationError';
  }
}
