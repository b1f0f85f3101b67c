// One input rule for every transport (the co-process `navkernel route`, `navkernel serve`, and anything else
// that carries route requests as bytes): how bytes become a request, and how a refusal is worded and coded.
// Both transports call these functions, so the same bad input gets the same code and the same text everywhere.
import type { ErrorCode } from './error-codes.js';
import { isErrorCode } from './error-codes.js';
import { NavkernelError, ValidationError, formatIssue, issuePathText, type IssuePath, type ValidationIssue } from './errors.js';
import { InputTooLargeError } from './limits.js';

/** The flag that sets the size limit, on `navkernel route` and on `navkernel serve` alike. */
export const SIZE_LIMIT_FLAG = '--max-bytes';

/** The words for bytes that are not UTF-8, on every transport. */
export const NOT_UTF8 = 'not valid UTF-8 (requests are UTF-8 encoded JSON)';

// Strict: a byte sequence that is not UTF-8 is refused, never repaired (a repaired id would collide). A leading
// byte-order mark is dropped.
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const lossy = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/** Bytes as text, or `undefined` when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The run_id and request_id of a document that is not JSON (truncated, say), when they can still be read: a
 * string member `"run_id": "…"` anywhere in it. Lets a pipelining runner match even that answer by id.
 */
export function idsFromText(text: string): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const key of ['run_id', 'request_id']) {
    const m = new RegExp(`"${key}"\\s*:\\s*("(?:[^"\\\\]|\\\\.){1,1024}")`).exec(text);
    if (!m) continue;
    try {
      const v: unknown = JSON.parse(m[1]!);
      // An id that held the bad bytes itself is not echoed: it would not be the id the runner sent.
      if (typeof v === 'string' && !v.includes('\uFFFD')) (out ??= {})[key] = v;
    } catch {
      // an escape that does not parse: not readable
    }
  }
  return out;
}

/** The ids of bytes that are not UTF-8, read around the bad bytes (an id holding them is not echoed). */
export function idsFromBytes(bytes: Uint8Array): Record<string, string> | undefined {
  return idsFromText(lossy.decode(bytes));
}

/** V8's JSON.parse message without the excerpt of the input it quotes (which may hold a secret). */
export function jsonSyntaxMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.replace(/, .* is not valid JSON$/s, '');
}

/** The words for a request (line, body) over the size limit: the limit, and the flag that sets it. */
export function tooLargeMessage(what: string, bytes: number | undefined, limit: number): string {
  return `${what} ${bytes !== undefined ? `is ${bytes} bytes, ` : 'is '}larger than the limit of ${limit} bytes (${SIZE_LIMIT_FLAG} sets it)`;
}

/** A refusal as every transport words it: the stable code, the text, the JSON path of the first problem. */
export interface RouteRefusal {
  code: ErrorCode;
  message: string;
  path?: IssuePath;
  issues?: ValidationIssue[];
}

/** The code, text and path of anything `route()` (or the framing) threw: the same on every transport. */
export function classifyRouteError(err: unknown): RouteRefusal {
  if (err instanceof InputTooLargeError) {
    const message = `${issuePathText(err.path)}: ${err.reason}`;
    return { code: 'INPUT_TOO_LARGE', message: err.limit === 'size' ? `${message} (${SIZE_LIMIT_FLAG} sets it)` : message, path: err.path };
  }
  if (err instanceof ValidationError) {
    const first = err.issues[0];
    const code: ErrorCode = isErrorCode(err.code) ? err.code : 'INVALID_FORENSICS';
    return {
      code,
      message: err.issues.map(formatIssue).join('; '),
      ...(first ? { path: first.path } : {}),
      issues: err.issues,
    };
  }
  if (err instanceof NavkernelError) return { code: isErrorCode(err.code) ? err.code : 'INTERNAL', message: err.message };
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  // SQLite and file-system failures (disk full, I/O error, locked past the busy timeout) come from the store.
  if (typeof code === 'string' && /^(SQLITE_|E[A-Z]{2,}$)/.test(code)) return { code: 'STORE_UNAVAILABLE', message };
  return { code: 'INTERNAL', message };
}
