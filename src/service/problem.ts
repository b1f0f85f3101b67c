import { ERROR_CODES, NavkernelError, ValidationError, type ApiErrorCode, type ErrorCode, type Problem, type ValidationIssue } from '../contracts/index.js';

/** HTTP status of each code, as src/contracts/error-codes.ts says. */
export const STATUS_OF: Record<ApiErrorCode, number> = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, c]) => [code, c.http])) as Record<ErrorCode, number>;

/** Titles of the codes the service answers most; the others take their summary from error-codes.ts. */
const TITLES: { readonly [K in ApiErrorCode]?: string } = {
  INVALID_JSON: 'The body is not valid JSON',
  INVALID_REQUEST: 'The request is malformed',
  UNAUTHORIZED: 'Missing or wrong bearer token',
  NOT_FOUND: 'No such endpoint',
  FORBIDDEN: 'The principal lacks the scope this endpoint needs',
  TOO_MANY_SUBSCRIBERS: 'The event stream has as many subscribers as it allows',
  UNKNOWN_RUN: 'Unknown run',
  UNKNOWN_ESCALATION: 'Unknown escalation',
  IDEMPOTENCY_CONFLICT: 'The request_id was used with a different request',
  LEDGER_CONFLICT: 'Another writer routed this run at the same time',
  ESCALATION_ALREADY_RESOLVED: 'The escalation is already resolved',
  INPUT_TOO_LARGE: 'The body is too large or too deep',
  UNSUPPORTED_MEDIA_TYPE: 'The body must be application/json',
  INVALID_FORENSICS: 'The forensics of the route request do not match their schema',
  INVALID_RESOLUTION: 'The flow graph does not allow this resolution',
  INVALID_REPORT: 'A report file named by the request cannot be read',
  FLOW_NOT_LOADED: "The run's flow is not among the served flows",
  INTERNAL: 'Internal error',
  STORE_UNAVAILABLE: 'The ledger is unavailable',
  TIMEOUT: 'The request took longer than the time limit',
  ARCHIVE_INVALID: 'The run bundle is unreadable, damaged, or does not fit the ledger',
  RUN_NOT_ARCHIVABLE: 'The run cannot be archived',
  RUN_ARCHIVED: 'The run was archived out of the ledger',
  CHECKPOINT_INVALID: 'The checkpoint is unreadable or its signature does not verify',
  NON_CANONICAL_PATH: 'The path spells the endpoint other than literally',
  HOST_NOT_ALLOWED: 'The Host header names a host this server does not answer for',
  URI_TOO_LONG: 'A path segment is too long',
  HEADERS_TOO_LARGE: 'The request line and headers are too large',
  TOO_BUSY: 'As many heavy reads are running and waiting as the server allows',
  STEP_MISMATCH: 'The report comes from another step than the one the run was sent to',
  RUN_ENDED: 'The run ended',
  ESCALATION_OPEN: 'The run awaits a person: its escalation is open',
  FLOW_VERSION_UNKNOWN: 'The run is pinned to a flow version that is not kept',
  UPGRADE_REFUSED: 'The upgrade would leave the run at a step the new flow version does not have',
};

/** A problem the service answers on purpose, with its stable code. */
export class ApiError extends NavkernelError {
  readonly issues: ValidationIssue[] | undefined;
  constructor(code: ApiErrorCode, message: string, issues?: ValidationIssue[]) {
    super(code, message);
    this.name = 'ApiError';
    this.issues = issues;
  }
}

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** Builds a problem document. */
export function problem(code: ApiErrorCode, detail: string, instance?: string, issues?: ValidationIssue[]): Problem {
  return {
    type: `https://navkernel.dev/problems/${code.toLowerCase().replace(/_/g, '-')}`,
    title: TITLES[code] ?? capitalized(ERROR_CODES[code].summary),
    status: STATUS_OF[code],
    detail,
    code,
    ...(instance !== undefined ? { instance } : {}),
    ...(issues && issues.length ? { issues } : {}),
  };
}

function isCode(code: string): code is ApiErrorCode {
  return Object.hasOwn(STATUS_OF, code);
}

/** Fastify's own error codes that are the client's fault, as stable codes. */
const FASTIFY_CODES: Record<string, ApiErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'INPUT_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_REQUEST',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
};

/**
 * The problem document for anything a handler threw. Typed navkernel errors keep their code and message (they
 * name what is wrong and never hold secrets); anything else is INTERNAL with a generic detail.
 */
export function problemFor(err: unknown, instance: string): Problem {
  if (err instanceof ValidationError) {
    const code = isCode(err.code) ? err.code : 'INVALID_FORENSICS';
    return problem(code, err.message, instance, err.issues);
  }
  if (err instanceof ApiError && isCode(err.code)) {
    return problem(err.code, err.message, instance, err.issues);
  }
  if (err instanceof NavkernelError) {
    if (isCode(err.code)) return problem(err.code, err.message, instance);
  }
  const e = err as { code?: unknown; message?: unknown; statusCode?: unknown } | null;
  const fcode = typeof e?.code === 'string' ? e.code : '';
  if (FASTIFY_CODES[fcode]) {
    const code = FASTIFY_CODES[fcode]!;
    const detail = code === 'INVALID_JSON' ? `the body is not valid JSON: ${String(e?.message ?? '')}` : String(e?.message ?? code);
    return problem(code, detail, instance);
  }
  if (e instanceof SyntaxError) return problem('INVALID_JSON', `the body is not valid JSON: ${e.message}`, instance);
  if (fcode.startsWith('SQLITE_')) return problem('STORE_UNAVAILABLE', `the ledger failed (${fcode}); nothing was recorded for this request`, instance);
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return problem('INVALID_REQUEST', String(e.message ?? 'bad request'), instance);
  return problem('INTERNAL', 'internal error; see the server log', instance);
}
