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
  // Issue 38: every code a surface (CLI, co-process, HTTP, MCP, the library) shows, closed. Add new codes at the end,
  // each with its HTTP status and a sentence in docs/errors.md (a test checks both).
  // Options, files and configuration.
  USAGE: { http: 400, summary: 'a bad command line: an unknown command or flag, a missing or extra argument' },
  INVALID_OPTION: { http: 400, summary: 'an option or argument has a value outside what it accepts' },
  INVALID_CONFIG: { http: 400, summary: 'a configuration (a tokens file, an explorer budget or task) is wrong' },
  PATH_NOT_FOUND: { http: 404, summary: 'a file or folder named on the command line or in a request does not exist' },
  PATH_OUTSIDE_ROOT: { http: 403, summary: 'a path resolves outside the folder it must stay in (the repository, the allowed repositories)' },
  CANNOT_READ: { http: 422, summary: 'a named file exists but cannot be read (permissions, a folder where a file is expected)' },
  CANNOT_WRITE: { http: 500, summary: 'an output file or folder cannot be written' },
  FILE_ERROR: { http: 500, summary: 'another filesystem error on a named path' },
  MISSING_PACKAGE: { http: 500, summary: 'a feature needs an optional package that is not installed (the message names it)' },
  // Ledgers.
  LEDGER_NOT_FOUND: { http: 404, summary: 'no ledger at the named location' },
  NOT_A_LEDGER: { http: 422, summary: 'the file or database is not a navkernel ledger; it was not opened' },
  LEDGER_TOO_NEW: { http: 422, summary: 'the ledger was written by a newer navkernel; upgrade to read it (nothing was changed)' },
  LEDGER_NOT_WRITABLE: { http: 403, summary: 'the database role cannot write the ledger (grant it the privileges, or open it read-only)' },
  LEDGER_NOT_EMPTY: { http: 409, summary: 'a copy (migrate) goes into an empty ledger only' },
  // Flows and documents.
  INVALID_FLOW: { http: 422, summary: 'a flow file is malformed or describes a broken graph (every problem is listed)' },
  UNKNOWN_FLOW: { http: 404, summary: 'no flow of that id among the loaded flows' },
  UNKNOWN_STEP: { http: 404, summary: 'no step of that id in the flows of the run' },
  MISSING_NODE: { http: 422, summary: 'a LangGraph graph has no node for a step the flow (or the kernel) routes to' },
  INVALID_CAPSULE: { http: 422, summary: 'a CNF capsule (the navigator\'s task) fails its schema or cannot be read' },
  INVALID_REGISTRY: { http: 422, summary: 'a navigator registry file fails its schema' },
  INVALID_FLIGHT_PLAN: { http: 422, summary: 'a flight plan fails its schema, or one of its custom queries does not compile' },
  // The navigator and the explorer.
  REPO_NOT_FOUND: { http: 404, summary: 'the repository folder does not exist' },
  SESSION_NOT_FOUND: { http: 404, summary: 'no explorer session of that id in the ledger' },
  INVALID_SESSION: { http: 422, summary: 'a stored explorer session does not match its schema' },
  NAVIGATOR_FAULT: { http: 500, summary: 'the navigator stopped on an internal fault (please report)' },
  // Models.
  INVALID_LLM_SPEC: { http: 400, summary: 'an --llm value names no known provider, or lacks the file or model it needs' },
  LLM_KEY_MISSING: { http: 500, summary: "the provider's API key is not set in the environment" },
  LLM_UNPRICED: { http: 422, summary: 'no price is known for the model: add it to the pricing table' },
  INVALID_PRICING: { http: 422, summary: 'a pricing table cannot be read or fails its schema' },
  INVALID_SCRIPT: { http: 422, summary: "a scripted model's script cannot be read or fails its schema" },
  LLM_TIMEOUT: { http: 504, summary: 'a model call took longer than its time limit' },
  LLM_RATE_LIMITED: { http: 429, summary: 'the provider refused the call for its rate limit (429)' },
  LLM_SERVER_ERROR: { http: 502, summary: 'the provider answered with a server error (5xx)' },
  LLM_NETWORK_ERROR: { http: 502, summary: 'the provider could not be reached' },
  LLM_CLIENT_ERROR: { http: 502, summary: 'the provider refused the call (4xx other than 429: a bad key, a model that does not exist)' },
  LLM_ABORTED: { http: 503, summary: 'the model call was cancelled (a deadline or a shutdown)' },
  LLM_REPLAY_MISS: { http: 422, summary: 'a recorded model has no recorded answer for this call' },
  LLM_SCRIPT_EXHAUSTED: { http: 422, summary: 'a scripted model ran out of answers' },
  // The service, MCP and the kernel's own checks.
  UNSAFE_BIND: { http: 500, summary: 'serve refuses to listen beyond loopback without a token or principals' },
  UI_NOT_BUILT: { http: 500, summary: 'the web UI is not built into this install (npm run build)' },
  UNKNOWN_TOOL: { http: 404, summary: 'the MCP server has no tool of that name' },
  INTERNAL_INVALID_DECISION: { http: 500, summary: 'the kernel produced a decision that breaks its own rules and refused to return it (please report)' },
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

/** The HTTP status for a code. A code outside the set does not typecheck; check a foreign string with isErrorCode first. */
export function httpStatusFor(code: ErrorCode): number {
  return ERROR_CODES[code].http;
}
