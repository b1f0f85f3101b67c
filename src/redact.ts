import { rules as secretlintRules } from '@secretlint/secretlint-rule-preset-recommend';

/** Replaces every occurrence of each secret (at least 8 characters long) by `[REDACTED]`. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= 8) out = out.split(s).join('[REDACTED]');
  }
  return out;
}

/** The same for any JSON value: strings are redacted at every depth. */
export function redactValue<T>(value: T, secrets: readonly (string | undefined)[]): T {
  if (!secrets.some((s) => s && s.length >= 8)) return value;
  if (typeof value === 'string') return redactSecrets(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redactSecrets(k, secrets)] = redactValue(v, secrets);
    return out as T;
  }
  return value;
}

/** Secrets of the environment that must never leave navkernel: provider API keys. */
export function environmentSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  return ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'GEMINI_API_KEY', 'GOOGLE_API_KEY']
    .map((k) => env[k])
    .filter((v): v is string => typeof v === 'string' && v.length >= 8);
}

// ---------------------------------------------------------------------------------------------------------------
// Secret detection: known secret shapes and secret-named fields, redacted before a request is stored, logged or
// sent to a model (SECURITY.md "Threat model", docs/security.md).


/** What replaces a detected secret. */
export const REDACTED = '[REDACTED]';

/** Options of `createRedactor` (and of `createKernel({ redact })`). */
export interface RedactOptions {
  /** Extra secret shapes (regular expressions, or their source text): every match is replaced. */
  patterns?: readonly (RegExp | string)[];
  /** Field names whose string values are secrets whatever they look like. Default: SECRET_FIELD_NAME. */
  fieldNames?: RegExp;
  /** Exact values to redact (e.g. keys held by the caller). Values shorter than 8 characters are ignored. */
  values?: readonly string[];
}

/** Field names holding secrets: `*key*`, `*token*`, `*secret*`, `password`/`passwd`, credentials, authorization, cookies. */
export const SECRET_FIELD_NAME = /key|token|secret|passw(?:or)?d|credential|authorization|cookie|private/i;

/**
 * Shapes the secretlint preset misses or only matches in full (measured: it requires an Anthropic key's exact
 * length, has no Google API key or bearer-header rule, and scans AWS key ids only when asked).
 */
const SUPPLEMENTARY_SHAPES: readonly RegExp[] = [
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g, // bearer tokens
  /\b(?:Proxy-)?Authorization\s*["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token|Digest)\s+)?[^\s"',;]{8,}/gi, // Authorization header values
  /\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}/g, // Anthropic / OpenAI keys, any length
  /\bAIza[0-9A-Za-z_-]{30,}/g, // Google API keys
  /\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b/g, // AWS access key ids
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, // GitHub tokens
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\b(?:glpat-|npm_|hf_)[A-Za-z0-9_-]{20,}/g, // GitLab, npm, Hugging Face tokens
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|$)/g, // private key blocks, even cut off
  /\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/@]+:[^\s@/]+@/g, // user:password@ in URLs
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JSON Web Tokens
];

/** All supplementary shapes in one expression: one scan tells whether any of them needs running. */
// 'i': a superset of every shape, the case-insensitive ones included.
const ANY_SUPPLEMENTARY = new RegExp(SUPPLEMENTARY_SHAPES.map((r) => `(?:${r.source})`).join('|'), 'i');

/**
 * Cheap first look before the secretlint rules (25 rules cost 10-40 µs per string): a token-like run of 16+
 * characters holding both a letter and a digit (random keys do; paths and identifiers mostly do not), a
 * `://…@`, a `-----BEGIN`, an auth scheme or a secret-ish word. The supplementary shapes, which start with
 * literal prefixes and cost little, always run.
 */
const TOKEN_RUN = /[A-Za-z0-9_+/=-]{16,}/g;
const SECRET_HINT = /:\/\/\S*@|-----BEGIN|\bBearer\s|authorization|secret|passw|api.?key|access.?key|credential/i;
function maybeSecret(text: string): boolean {
  if (text.length < 16) return false;
  if (SECRET_HINT.test(text)) return true;
  for (const m of text.matchAll(TOKEN_RUN)) if (/\d/.test(m[0]) && /[A-Za-z]/.test(m[0])) return true;
  return false;
}

interface SecretlintSource {
  content: string;
  filePath: string;
  ext: string;
  contentType: 'text';
  sourceContent: string;
  sourceContentType: 'text';
}
type FileHandler = (source: SecretlintSource) => void;

let ruleHandlers: { handlers: FileHandler[]; found: [number, number][] } | undefined;

/** The secretlint recommended preset's rules, driven synchronously through a minimal rule context. */
function secretlint(): { handlers: FileHandler[]; found: [number, number][] } {
  if (ruleHandlers) return ruleHandlers;
  const found: [number, number][] = [];
  const context = {
    report: (r: { range: readonly [number, number] }) => found.push([r.range[0], r.range[1]]),
    ignore: () => {},
    createTranslator: () => () => ({ message: '', data: {} }),
  };
  const handlers: FileHandler[] = [];
  for (const rule of secretlintRules as unknown as { meta: { id: string }; create(ctx: unknown, opts: unknown): { file?: FileHandler } }[]) {
    if (rule.meta.id.endsWith('filter-comments')) continue; // handles `secretlint-disable` comments, not secrets
    const h = rule.create(context, rule.meta.id.endsWith('-aws') ? { enableIDScanRule: true } : {});
    if (h.file) handlers.push(h.file);
  }
  return (ruleHandlers = { handlers, found });
}

/** Ranges of `text` that hold a secret: the secretlint preset, the supplementary shapes, then `extra`. */
function secretRanges(text: string, extra: readonly RegExp[]): [number, number][] {
  const out: [number, number][] = [];
  if (text.length >= 16 && ANY_SUPPLEMENTARY.test(text)) {
    for (const re of SUPPLEMENTARY_SHAPES) for (const m of text.matchAll(re)) out.push([m.index, m.index + m[0].length]);
  }
  if (maybeSecret(text)) {
    const sl = secretlint();
    sl.found.length = 0;
    const source: SecretlintSource = { content: text, filePath: 'forensics.txt', ext: '.txt', contentType: 'text', sourceContent: text, sourceContentType: 'text' };
    for (const h of sl.handlers) {
      try {
        h(source);
      } catch {
        // A rule that throws on odd input must not stop the others (or the route).
      }
    }
    out.push(...sl.found);
  }
  for (const re of extra) for (const m of text.matchAll(re)) if (m[0].length) out.push([m.index, m.index + m[0].length]);
  return out;
}

/** Replaces each range (merged where they overlap or touch) by REDACTED. */
function cut(text: string, ranges: [number, number][]): string {
  if (!ranges.length) return text;
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = '';
  let at = 0;
  let open: [number, number] | undefined;
  for (const r of ranges) {
    if (open && r[0] <= open[1]) open[1] = Math.max(open[1], r[1]);
    else {
      if (open) (out += text.slice(at, open[0]) + REDACTED), (at = open[1]);
      open = [r[0], r[1]];
    }
  }
  if (open) (out += text.slice(at, open[0]) + REDACTED), (at = open[1]);
  return out + text.slice(at);
}

/** Redacts strings and JSON values. */
export interface Redactor {
  /** `text` with every detected secret replaced by REDACTED. */
  text(text: string): string;
  /** A copy of `value` (shared where nothing changed) with secrets redacted at every depth, and every string under a secret-named field replaced whole. */
  value<T>(value: T): T;
}

function globalRegExp(p: RegExp | string): RegExp {
  if (typeof p === 'string') return new RegExp(p, 'g');
  return p.global ? p : new RegExp(p.source, p.flags + 'g');
}

/** A redactor for known secret shapes (secretlint's recommended preset plus supplements), secret-named fields, and the options' extras. */
export function createRedactor(options: RedactOptions = {}): Redactor {
  const extra = (options.patterns ?? []).map(globalRegExp);
  const values = (options.values ?? []).filter((v) => v.length >= 8);
  const fieldNames = options.fieldNames ?? SECRET_FIELD_NAME;
  const text = (s: string): string => {
    let out = values.length ? redactSecrets(s, values) : s;
    out = cut(out, secretRanges(out, extra));
    return out;
  };
  // Whether a field name is secret-ish, memoised (requests repeat the same few names).
  const names = new Map<string, boolean>();
  const walk = (v: unknown, secretField: boolean): unknown => {
    if (typeof v === 'string') return secretField ? (v === '' ? v : REDACTED) : text(v);
    if (Array.isArray(v)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const r = walk(v[i], secretField);
        if (r !== v[i]) (copy ??= v.slice())[i] = r;
      }
      return copy ?? v;
    }
    if (v !== null && typeof v === 'object') {
      let copy: Record<string, unknown> | undefined;
      const o = v as Record<string, unknown>;
      for (const k in o) {
        const x = o[k];
        if (typeof x !== 'string' && (x === null || typeof x !== 'object')) continue;
        let named = secretField;
        if (!named) {
          named = names.get(k) ?? fieldNames.test(k);
          if (names.size < 10_000) names.set(k, named);
        }
        const r = walk(x, named);
        if (r !== x) (copy ??= { ...o })[k] = r;
      }
      return copy ?? v;
    }
    return v;
  };
  return { text, value: <T>(v: T) => walk(v, false) as T };
}
