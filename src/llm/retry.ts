import type { LanguageModel, LlmGenerateRequest, LlmGenerateResult } from './language-model.js';
import { LlmCallError } from './llm-call-error.js';

/** How long to wait for a model and how often to try again. */
export interface RetryPolicy {
  /** Per-attempt timeout (ms). */
  timeoutMs: number;
  /** Attempts including the first. */
  maxAttempts: number;
  /** Bound on the whole sequence, waits included (ms): no attempt starts or waits past it. */
  totalTimeMs: number;
  /** First back-off step (ms); doubles each retry, full jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { timeoutMs: 5_000, maxAttempts: 3, totalTimeMs: 15_000, baseDelayMs: 250, maxDelayMs: 4_000 };

/** Clock, sleep and randomness, injectable so tests and replays control them. */
export interface RetryEnv {
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
}

export const realRetryEnv: RetryEnv = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (ms <= 0 || signal?.aborted) return resolve();
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
  random: Math.random,
};

/** One attempt: its result or its error, and how long it took. */
export type AttemptOutcome =
  | { ok: true; result: LlmGenerateResult; latencyMs: number }
  | { ok: false; error: LlmCallError; latencyMs: number };

/**
 * Calls `model.generate` with a per-attempt timeout, retrying timeouts, 429, 5xx and connection failures
 * with jittered exponential back-off (a server's `retry-after` is honoured as the wait), all within
 * `totalTimeMs`. Never throws: every attempt is returned, the last one decides.
 */
export async function generateWithRetry(
  model: LanguageModel,
  request: Omit<LlmGenerateRequest, 'signal'>,
  opts: { policy?: Partial<RetryPolicy>; signal?: AbortSignal; env?: Partial<RetryEnv> } = {},
): Promise<AttemptOutcome[]> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...opts.policy };
  const env = { ...realRetryEnv, ...opts.env };
  const started = env.now();
  const attempts: AttemptOutcome[] = [];
  for (let n = 1; n <= policy.maxAttempts; n++) {
    const remaining = policy.totalTimeMs - (env.now() - started);
    const outcome = await attemptOnce(model, request, Math.max(1, Math.min(policy.timeoutMs, remaining)), opts.signal, env);
    attempts.push(outcome);
    if (outcome.ok || !outcome.error.retryable || n === policy.maxAttempts) break;
    const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
    const delay = model.replay ? 0 : (outcome.error.retryAfterMs ?? Math.round(env.random() * backoff));
    // A wait that would end past the bound is not worth starting: fall through now.
    if (env.now() - started + delay >= policy.totalTimeMs) break;
    await env.sleep(delay, opts.signal);
    if (opts.signal?.aborted) break;
  }
  return attempts;
}

async function attemptOnce(
  model: LanguageModel,
  request: Omit<LlmGenerateRequest, 'signal'>,
  timeoutMs: number,
  callerSignal: AbortSignal | undefined,
  env: RetryEnv,
): Promise<AttemptOutcome> {
  const t0 = env.now();
  const timer = new AbortController();
  const handle = setTimeout(() => timer.abort(), timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, timer.signal]) : timer.signal;
  // Guards against an adapter that ignores the signal: the attempt ends when the signal fires, whatever it does.
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new LlmCallError('aborted', 'request aborted'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const result = await Promise.race([model.generate({ ...request, signal }), aborted]);
    return { ok: true, result, latencyMs: env.now() - t0 };
  } catch (err) {
    let error = err instanceof LlmCallError ? err : new LlmCallError('network_error', errorText(err));
    if (timer.signal.aborted && !callerSignal?.aborted) error = new LlmCallError('timeout', `no answer within ${timeoutMs} ms`);
    else if (callerSignal?.aborted) error = new LlmCallError('aborted', 'aborted by the caller');
    return { ok: false, error, latencyMs: env.now() - t0 };
  } finally {
    clearTimeout(handle);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    aborted.catch(() => {});
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
