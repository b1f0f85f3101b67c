import { NavkernelError, type LlmCallOutcome } from '../contracts/index.js';

/** Why a model call failed, as the retry loop sees it. */
export type LlmCallErrorKind =
  | 'timeout'
  | 'rate_limited'
  | 'server_error'
  | 'network_error'
  | 'client_error'
  | 'aborted'
  | 'replay_miss'
  | 'script_exhausted';

const RETRYABLE: ReadonlySet<LlmCallErrorKind> = new Set(['timeout', 'rate_limited', 'server_error', 'network_error']);

/** A model call that failed in transport (not a wrong answer). Its message never holds a key. */
export class LlmCallError extends NavkernelError {
  readonly kind: LlmCallErrorKind;
  readonly status: number | undefined;
  /** Server-requested wait before retrying, from `retry-after` (or Gemini's RetryInfo), in ms. */
  readonly retryAfterMs: number | undefined;
  constructor(kind: LlmCallErrorKind, message: string, opts: { status?: number; retryAfterMs?: number } = {}) {
    super(`LLM_${kind.toUpperCase()}` as Uppercase<`LLM_${LlmCallErrorKind}`>, message);
    this.name = 'LlmCallError';
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
  }

  /** Worth another attempt: timeouts, 429, 5xx and connection failures. */
  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }

  /** The `LlmCallRecord.outcome` for this failure. */
  get outcome(): LlmCallOutcome {
    switch (this.kind) {
      case 'timeout':
        return 'timeout';
      case 'rate_limited':
        return 'rate_limited';
      case 'aborted':
        return 'aborted';
      case 'network_error':
        return 'network_error';
      default:
        // 4xx other than 429, replay misses and exhausted scripts: the call could not be served.
        return 'server_error';
    }
  }
}

/** Kind of failure for an HTTP status. */
export function kindForStatus(status: number): LlmCallErrorKind {
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server_error';
  return 'client_error';
}

/**
 * `retry-after` in ms: delta-seconds or an HTTP date (relative to `nowMs`). Also reads
 * `retry-after-ms` (Anthropic sends it) when present. Undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, nowMs: number): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
