import { NavkernelError, issuePathText, routeRequestError, type IssuePath } from './errors.js';

/** Limits every request is held to before anything else looks at it (docs/security.md). */
export interface InputLimits {
  /** Deepest nesting of objects and arrays; `$` is depth 0, `$.forensics.tests` depth 2. Default 64. */
  maxDepth: number;
  /** Largest request, in bytes of its compact JSON (UTF-8). Default 1 MiB. */
  maxBytes: number;
}

export const DEFAULT_LIMITS: Readonly<InputLimits> = Object.freeze({ maxDepth: 64, maxBytes: 1024 * 1024 });

/** A request (or co-process line) over the size or depth limit. Code INPUT_TOO_LARGE; `path` names where. */
export class InputTooLargeError extends NavkernelError {
  /** What is wrong, without the source and path. */
  readonly reason: string;
  constructor(
    readonly source: string,
    readonly path: IssuePath,
    readonly limit: 'depth' | 'size',
    message: string,
    /** The limit broken: levels for a depth, bytes for a size. */
    readonly max: number,
  ) {
    super('INPUT_TOO_LARGE', `${source}: ${issuePathText(path)}: ${message}`);
    this.reason = message;
    this.name = 'InputTooLargeError';
  }
}

/** Limits with defaults filled in, checked to be positive integers. */
export function resolveLimits(limits: Partial<InputLimits> = {}): InputLimits {
  const out = { ...DEFAULT_LIMITS, ...Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)) } as InputLimits;
  for (const [k, v] of Object.entries(out)) {
    if (!Number.isSafeInteger(v) || v <= 0) throw new NavkernelError('INVALID_OPTION', `limit ${k} must be a positive integer, got ${String(v)}`);
  }
  return out;
}

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | undefined;
  key: string | number | undefined;
}

function pathOf(f: Frame | undefined, extraKey?: string): IssuePath {
  const keys: IssuePath = [];
  if (extraKey !== undefined) keys.push(extraKey);
  for (let x = f; x && x.key !== undefined; x = x.parent) keys.push(x.key);
  return keys.reverse();
}

const isWellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: () => boolean }).isWellFormed === 'function'
    ? (s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (s) => !/[\uD800-\uDFFF]/u.test(s);

/**
 * Checks a parsed request before validation, without recursion (a 100,000-deep document cannot overflow the
 * stack here): nesting depth, size, and that every string and key is well-formed Unicode (a lone surrogate
 * would make two different ids collide once encoded as UTF-8), and that it is JSON at all (no NaN, Infinity,
 * BigInt, function, symbol, Date or class instance: what a library caller might pass). Throws InputTooLargeError
 * or a ValidationError (issue codes `ill_formed_unicode`, `not_json`), each naming the JSON path.
 */
export function checkInputLimits(value: unknown, limits: InputLimits = DEFAULT_LIMITS, source = 'route()', options: { repairFreeText?: boolean } = {}): RepairedString[] | undefined {
  // The common case, a well-formed request far inside the limits, is confirmed by a walk that allocates nothing; any
  // doubt (a limit near, a bad value) takes the walk below, which names the path.
  if (limits.maxDepth <= FAST_MAX_DEPTH && limits.maxBytes >= FAST_MIN_BYTES) {
    const size = fastSize(value, 0, limits.maxDepth);
    if (size >= 0 && size * 3 <= limits.maxBytes) return undefined;
  }
  return checkInputLimitsSlowly(value, limits, source, options);
}

/** Deepest maxDepth the recursive walk serves (its stack is that deep at most). */
const FAST_MAX_DEPTH = 256;
/** Smallest maxBytes the recursive walk serves: below it, the exact walk measures from the start. */
const FAST_MIN_BYTES = 4096;

/**
 * A lower bound of the JSON size of `v` (as the walk below sums it), or -1 when `v` is not plain well-formed JSON
 * within `maxDepth` levels, or grows past 1 GiB: the caller then walks again with paths.
 */
function fastSize(v: unknown, depth: number, maxDepth: number): number {
  if (typeof v === 'string') return isWellFormed(v) ? v.length + 2 : -1;
  if (typeof v === 'number') return Number.isFinite(v) ? 8 : -1;
  if (v === null || v === undefined || typeof v === 'boolean') return 8;
  if (typeof v !== 'object' || depth >= maxDepth) return -1;
  let size = 0;
  if (Array.isArray(v)) {
    size = 2 + v.length;
    for (let i = 0; i < v.length; i++) {
      const s = fastSize(v[i], depth + 1, maxDepth);
      if (s < 0) return -1;
      size += s;
    }
  } else {
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return -1;
    for (const k in v) {
      if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
      if (!isWellFormed(k)) return -1;
      const s = fastSize((v as Record<string, unknown>)[k], depth + 1, maxDepth);
      if (s < 0) return -1;
      size += s + k.length + 4;
    }
    size += 2;
  }
  return size > 1 << 30 ? -1 : size;
}

function checkInputLimitsSlowly(value: unknown, limits: InputLimits, source: string, options: { repairFreeText?: boolean }): RepairedString[] | undefined {
  let repaired: RepairedString[] | undefined;
  // A lower bound of the JSON size, summed as the walk goes: string lengths in UTF-16 units (never more than
  // their UTF-8 bytes) plus punctuation. Exact bytes are computed only when the bound gets close to the limit.
  let approx = 0;
  const stack: Frame[] = [{ value, depth: 0, parent: undefined, key: undefined }];
  while (stack.length) {
    const f = stack.pop()!;
    const v = f.value;
    if (typeof v === 'string') {
      approx += v.length + 2;
      if (!isWellFormed(v)) {
        const path = pathOf(f);
        if (!(options.repairFreeText && isFreeText(path))) throw routeRequestError(source, [{ path, code: 'ill_formed_unicode', message: 'expected well-formed Unicode (the string holds a lone surrogate)' }]);
        (repaired ??= []).push({ path: issuePathText(path), keys: path });
      }
    } else if (v !== null && typeof v === 'object') {
      const proto = Object.getPrototypeOf(v) as unknown;
      if (!Array.isArray(v) && proto !== Object.prototype && proto !== null)
        throw routeRequestError(source, [{ path: pathOf(f), code: 'not_json', message: `expected a JSON value, got ${(v as object).constructor?.name ?? 'an object'}` }]);
      if (f.depth >= limits.maxDepth) throw new InputTooLargeError(source, pathOf(f), 'depth', `nested deeper than the limit of ${limits.maxDepth} levels`, limits.maxDepth);
      if (Array.isArray(v)) {
        approx += 2 + v.length;
        if (approx > limits.maxBytes) throw new InputTooLargeError(source, pathOf(f), 'size', `the request is larger than the limit of ${limits.maxBytes} bytes (crossed at this value)`, limits.maxBytes);
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: f.depth + 1, parent: f, key: i });
      } else {
        const keys = Object.keys(v);
        approx += 2 + keys.length;
        if (approx > limits.maxBytes) throw new InputTooLargeError(source, pathOf(f), 'size', `the request is larger than the limit of ${limits.maxBytes} bytes (crossed at this value)`, limits.maxBytes);
        for (let i = keys.length - 1; i >= 0; i--) {
          const k = keys[i]!;
          approx += k.length + 3;
          if (!isWellFormed(k)) throw routeRequestError(source, [{ path: pathOf(f, k), code: 'ill_formed_unicode', message: 'expected a well-formed Unicode key (the key holds a lone surrogate)' }]);
          stack.push({ value: (v as Record<string, unknown>)[k], depth: f.depth + 1, parent: f, key: k });
        }
      }
    } else if (typeof v === 'number' ? !Number.isFinite(v) : typeof v !== 'boolean' && v !== null && v !== undefined) {
      throw routeRequestError(source, [{ path: pathOf(f), code: 'not_json', message: `expected a JSON value, got ${typeof v === 'number' ? String(v) : `a ${typeof v}`}` }]);
    } else approx += 8;
    if (approx > limits.maxBytes) throw new InputTooLargeError(source, pathOf(f), 'size', `the request is larger than the limit of ${limits.maxBytes} bytes (crossed at this value)`, limits.maxBytes);
  }
  // UTF-8 takes at most 3 bytes per UTF-16 unit: only a request within a factor 3 of the limit needs measuring.
  if (approx * 3 > limits.maxBytes) {
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
    if (bytes > limits.maxBytes) throw new InputTooLargeError(source, [], 'size', `the request is ${bytes} bytes, larger than the limit of ${limits.maxBytes} bytes`, limits.maxBytes);
  }
  return repaired;
}

/** A free-text string that held a lone surrogate: where it is (JSON path and keys from the root). */
export interface RepairedString {
  path: string;
  keys: (string | number)[];
}

/**
 * Strings the kernel never interprets as an id: every string under `$.forensics` but `failure_signature` (a
 * Python runner's `surrogateescape` log text lands there). A lone surrogate in one is replaced with U+FFFD (with a
 * warning) instead of refusing the route; in an id, a key, or anything outside the forensics it is still refused.
 */
function isFreeText(path: IssuePath): boolean {
  const text = issuePathText(path);
  return text.startsWith('$.forensics.') && text !== '$.forensics.failure_signature';
}

const toWellFormed = (s: string): string => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/** A copy of `value` with each repaired string's lone surrogates replaced by U+FFFD (the input is not changed). */
export function repairStrings<T>(value: T, repaired: readonly RepairedString[]): T {
  const out = structuredClone(value);
  for (const { keys } of repaired) {
    let parent = out as unknown as Record<string | number, unknown>;
    for (const k of keys.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
    const last = keys[keys.length - 1]!;
    parent[last] = toWellFormed(parent[last] as string);
  }
  return out;
}
