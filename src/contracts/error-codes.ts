/**
 * The stable error codes of navkernel's public surfaces: the co-process error line (`navkernel route`), the HTTP
 * problem documents of `navkernel serve`, and the CLI's `--json` error line. Match on the code, never on the
 * message. `http` is the status a server answers with; the CLI and the co-process ignore it.
 *
 * The co-process error line is `{"error":{"code","message","path"?,"line"},"request_id"?,"run_id"?}`
 * (schemas/route-error-line.schema.json).
 */
export const ERROR_CODES = {
  /** The line (or body) is not JSON: a syntax error, a truncated document, bytes that are not UTF-8. */
  INVALID_JSON: { http: 400, summary: 'not valid JSON (syntax, truncated document, or bytes that are not UTF-8)' },
  /**
   * A request-level field (run_id, flow, step_completed, status, iteration, envelope, an unknown member) fails the
   * RouteRequest schema or holds ill-formed Unicode, or the request names an unknown flow or step.
   */
  INVALID_REQUEST: { http: 400, summary: 'a request-level field is wrong, or the request names an unknown flow or step' },
  /** The request's forensics fail the schema or hold ill-formed Unicode in an id (failure_signature) or a key. */
  INVALID_FORENSICS: { http: 422, summary: 'the forensics fail the schema, or an id or key in them holds ill-formed Unicode' },
  /** The request is larger than the size limit or nested deeper than the depth limit. */
  INPUT_TOO_LARGE: { http: 413, summary: 'the request exceeds the size or the depth limit' },
  /** The same request_id was routed before with a different body. Nothing is recorded. */
  IDEMPOTENCY_CONFLICT: { http: 409, summary: 'the same request_id was routed before with a different body' },
  /** A report file (`navkernel forensics`, a request's `reports`) is malformed, truncated, of an unknown format, holds a DTD, or lies outside the reports root. */
  INVALID_REPORT: { http: 422, summary: 'a report file is malformed, truncated, of an unknown format, holds a DTD, or lies outside the reports root' },
  /** Another writer appended to the run first. */
  LEDGER_CONFLICT: { http: 409, summary: 'another writer appended to the run first' },
  UNKNOWN_RUN: { http: 404, summary: 'no such run' },
  UNKNOWN_ESCALATION: { http: 404, summary: 'no such escalation' },
  ESCALATION_ALREADY_RESOLVED: { http: 409, summary: 'the escalation was already resolved' },
  INVALID_RESOLUTION: { http: 422, summary: 'the resolution does not fit the flow graph' },
  /** The store failed (disk, database, connection); the request may be retried. */
  STORE_UNAVAILABLE: { http: 503, summary: 'the store failed; retry later' },
  /** A run bundle that cannot be read, does not verify, or does not fit the ledger it is restored into. */
  ARCHIVE_INVALID: { http: 422, summary: 'the run bundle is unreadable, damaged, or does not fit the ledger' },
  /** A run named for archiving is unknown, not finished (without --include-active), or archived already. */
  RUN_NOT_ARCHIVABLE: { http: 409, summary: 'the run cannot be archived (unknown, unfinished, or archived already)' },
  /** The run was archived out of the ledger: restore it before routing it again. */
  RUN_ARCHIVED: { http: 409, summary: 'the run was archived out of the ledger; restore it first' },
  /** A checkpoint file that cannot be read or whose signature does not verify. */
  CHECKPOINT_INVALID: { http: 422, summary: 'the checkpoint is unreadable or its signature does not verify' },
  /** A replay (or another reader that re-routes a run) was given flows that do not define the run's flow: pass the flows it was routed with. */
  FLOW_NOT_LOADED: { http: 422, summary: "the run's flow is not among the loaded flows (pass --flows DIR with the flows it was routed with)" },
  /** The run reported another step than the one the kernel sent it to (and no `restart`). Nothing is recorded. */
  STEP_MISMATCH: { http: 409, summary: 'the report comes from another step than the one the kernel sent the run to; nothing recorded (send restart to restart from it)' },
  /** The run ended (TERMINATE): no route after it. Nothing is recorded. */
  RUN_ENDED: { http: 409, summary: 'the run ended (TERMINATE); nothing recorded (start a new run id)' },
  /** The run awaits a person: its escalation is open. Nothing is recorded. */
  ESCALATION_OPEN: { http: 409, summary: 'the run awaits a person (an open escalation); nothing recorded until it is resolved' },
  UNAUTHORIZED: { http: 401, summary: 'missing or wrong credentials' },
  // Answered by `navkernel serve` only (HTTP), listed here so that every problem document's code is a stable one.
  /** No endpoint at this method and path. */
  NOT_FOUND: { http: 404, summary: 'no endpoint at this method and path' },
  /** The principal lacks the scope the endpoint needs. */
  FORBIDDEN: { http: 403, summary: 'the principal lacks the scope the endpoint needs' },
  /** The request took longer than `--request-timeout-ms`; its work was stopped and nothing was recorded. */
  TIMEOUT: { http: 503, summary: 'the request took longer than the time limit; its work was stopped' },
  /** A body that is not `application/json`. */
  UNSUPPORTED_MEDIA_TYPE: { http: 415, summary: 'the body must be application/json' },
  /** The event stream has as many subscribers as it allows. */
  TOO_MANY_SUBSCRIBERS: { http: 503, summary: 'the event stream has as many subscribers as it allows' },
  // HTTP-transport refusals of `navkernel serve` (issue 35): the request never reaches a handler.
  /** The path spells a route other than literally (`/%761/runs` for `/v1/runs`): refused, whatever the token. */
  NON_CANONICAL_PATH: { http: 400, summary: 'the path spells an endpoint other than literally (percent-encoded letters, say)' },
  /** The Host header names a host this server does not answer for (DNS rebinding: a loopback server answers loopback names only). */
  HOST_NOT_ALLOWED: { http: 421, summary: 'the Host header names a host this server does not answer for' },
  /** A segment of the path (a run or escalation id) is longer than the server reads (4,096 characters as sent). */
  URI_TOO_LONG: { http: 414, summary: 'a path segment is longer than the server reads' },
  /** The request line and headers together are larger than the server reads (16 KiB). */
  HEADERS_TOO_LARGE: { http: 431, summary: 'the request line and headers are larger than the server reads' },
  /** A heavy read (verify, replay) could not start: as many are running and waiting as the server allows. */
  TOO_BUSY: { http: 503, summary: 'as many heavy reads (verify, replay) are running and waiting as the server allows; retry later' },
  /** A bug in navkernel. Please report it. */
  INTERNAL: { http: 500, summary: 'an internal error (please report)' },
  // Flow versions (issue 39, docs/changing-flows.md).
  /** A run is pinned to a flow version this kernel never loaded and its ledger does not keep. */
  FLOW_VERSION_UNKNOWN: { http: 409, summary: 'the run is pinned to a flow version neither loaded nor kept in the ledger' },
  /** `runs upgrade` refused: the step mapping leaves the run at a step (or return point) the new version does not have. */
  UPGRADE_REFUSED: { http: 409, summary: 'the upgrade would leave the run at a step the new flow version does not have; nothing recorded' },
} as const satisfies Record<string, { http: number; summary: string }>;

/** One of the stable error codes. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Every stable error code, in the order above. */
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];

/** Whether `code` is one of the stable codes. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

/** The HTTP status for a code; codes outside the stable list map to 500. */
export function httpStatusFor(code: string): number {
  return isErrorCode(code) ? ERROR_CODES[code].http : 500;
}
