import { routeRequestError } from '../contracts/errors.js';
import { checkInputLimits, repairStrings, resolveLimits, type InputLimits } from '../contracts/limits.js';
import type { RouteRequest } from '../contracts/route-request.js';
import { compileValidator } from '../contracts/validate.js';
import { createRedactor, type RedactOptions } from '../redact.js';
import { forensicIssues } from './forensic-checks.js';

/** Warnings about a request the guard repaired (free text with a lone surrogate), kept beside it until it is routed. */
export const inputWarnings = new WeakMap<RouteRequest, string[]>();

/** How `route()` checks a request before any tier, store or model sees it. */
export interface RequestGuardOptions {
  /** Check the limits, then validate against the RouteRequest schema (default true; `false` skips both). */
  validate?: boolean;
  /** Depth and size limits (defaults 64 levels, 1 MiB); checked with ill-formed Unicode before validation. */
  limits?: Partial<InputLimits>;
  /** Secret redaction (on by default); `false` turns it off. */
  redact?: RedactOptions | false;
  /**
   * Refuse a request with a misspelt forensic field or numbers that contradict each other (INVALID_FORENSICS, or
   * INVALID_REQUEST for `iteration`) instead of routing it with a warning. Default false.
   */
  strict?: boolean;
}

/**
 * The contract at `route()`'s door, in order: limits and well-formed Unicode (InputTooLargeError /
 * a ValidationError naming the path), the schema (ValidationError, INVALID_REQUEST or INVALID_FORENSICS), then secrets redacted from
 * everything but the identifiers (run_id, flow, step_completed, request_id), so nothing downstream — the run
 * state, the ledger, decisions.jsonl, a prompt, a log — ever holds them.
 */
export function createRequestGuard(options: RequestGuardOptions = {}, source = 'route()'): (request: unknown) => RouteRequest {
  const validate = options.validate ?? true;
  const limits = resolveLimits(options.limits);
  const redactor = options.redact === false ? undefined : createRedactor(options.redact ?? {});
  // Compiled only when used: `validate: false` (replay, recorded requests) skips ajv's compile, a fifth of start-up.
  const validateRequest = validate ? compileValidator<RouteRequest>('route-request') : undefined;
  return (request) => {
    let req = request as RouteRequest;
    if (validate) {
      const repaired = checkInputLimits(request, limits, source, { repairFreeText: true });
      if (repaired) request = repairStrings(request, repaired);
      const r = validateRequest!(request);
      if (!r.success) throw routeRequestError(source, r.issues);
      req = r.data;
      if (options.strict) {
        const issues = forensicIssues(req);
        if (issues.length) throw routeRequestError(source, issues);
      }
      if (repaired) inputWarnings.set(req, repaired.map((x) => `${x.path} held a lone surrogate (ill-formed Unicode); it was replaced with U+FFFD`));
    }
    if (!redactor) return req;
    const status = redactor.text(req.status);
    const agent = req.agent === undefined ? undefined : redactor.text(req.agent);
    const forensics = req.forensics === undefined ? undefined : redactor.value(req.forensics);
    const envelope = req.envelope === undefined ? undefined : redactor.value(req.envelope);
    if (status === req.status && agent === req.agent && forensics === req.forensics && envelope === req.envelope) return req;
    const out: RouteRequest = { ...req, status };
    const notes = inputWarnings.get(req);
    if (notes) inputWarnings.set(out, notes);
    if (agent !== undefined) out.agent = agent;
    if (forensics !== undefined) out.forensics = forensics;
    if (envelope !== undefined) out.envelope = envelope;
    return out;
  };
}
