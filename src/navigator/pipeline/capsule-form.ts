import { createRequire } from 'node:module';
import { ValidationError, type ValidationIssue } from '../../contracts/errors.js';

/**
 * Seed 002 §4 writes the CNF capsule as a template of upper-case keys:
 *
 *     TASK: <verbatim query requiring navigation>
 *     CONSTRAINTS: <max_files / max_lines / scope restriction>
 *     REPO_ROOT: <relative path reference>
 *     MAGIC_WORDS_HINT: <optional list of known magic words to seed extraction>
 *     PRIOR_ARTIFACTS: <links only — no inline content>
 *     SKILL_PACK: [prime-safety, phuc-magic-words, phuc-gps]
 *     BUDGET: {max_files: 8, max_lines: 400, max_tool_calls: 30}
 *
 * This module reads that form — as a YAML/JSON object with those keys, or as the seed's plain text — into
 * the JSON form `CnfCapsule` validates (lower-case keys). The JSON form passes through unchanged.
 */

/** Template key → the capsule field. NORTHSTAR and ECOSYSTEM_NORTHSTAR are the seed's NORTHSTAR section's fields. */
export const TEMPLATE_KEYS = {
  TASK: 'task',
  CONSTRAINTS: 'constraints',
  REPO_ROOT: 'repo_root',
  MAGIC_WORDS_HINT: 'magic_words_hint',
  PRIOR_ARTIFACTS: 'prior_artifacts',
  SKILL_PACK: 'skill_pack',
  BUDGET: 'budget',
  NORTHSTAR: 'northstar',
  ECOSYSTEM_NORTHSTAR: 'ecosystem_northstar',
} as const;
type TemplateKey = keyof typeof TEMPLATE_KEYS;
const isTemplateKey = (k: string): k is TemplateKey => Object.hasOwn(TEMPLATE_KEYS, k);
const LIST_KEYS: ReadonlySet<string> = new Set(['MAGIC_WORDS_HINT', 'SKILL_PACK', 'PRIOR_ARTIFACTS']);
const MAP_KEYS: ReadonlySet<string> = new Set(['BUDGET', 'CONSTRAINTS']);
/** Budget limits a CONSTRAINTS line may state ("max_files / max_lines / scope restriction"). */
const LIMIT_KEYS = ['max_files', 'max_lines', 'max_tool_calls', 'max_tokens'] as const;

let yaml: typeof import('yaml') | undefined;
// yaml is loaded with the first template capsule that needs it, not with the navigator.
const loadYaml = (): typeof import('yaml') => (yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

class CapsuleFormError {
  constructor(readonly issues: ValidationIssue[]) {}
}
// `path` is `$` or `$.KEY` (a top-level key of the capsule): the issue's path is [] or [KEY].
const fail = (path: string, message: string): never => {
  throw new CapsuleFormError([{ path: path === '$' ? [] : [path.slice(2)], code: 'invalid_capsule', message }]);
};

/** A YAML flow value (`[a, b]`, `{max_files: 8}`), or undefined when it is not one. */
function flow(text: string): unknown {
  try {
    return loadYaml().parse(text);
  } catch {
    return undefined;
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value of one template key, from the object form: lists may be one string, maps may use upper-case keys, no value means absent. */
function templateValue(key: TemplateKey, value: unknown): unknown {
  if (value === null || value === undefined) return key === 'TASK' || key === 'REPO_ROOT' ? null : undefined;
  if (LIST_KEYS.has(key) && typeof value === 'string') return listOf(key, value);
  if (MAP_KEYS.has(key)) {
    if (typeof value === 'string') return mapOf(key, value);
    if (isPlainObject(value))
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => {
          const field = /^[A-Z_]+$/.test(k) ? k.toLowerCase() : k;
          return [field, key === 'CONSTRAINTS' && (field === 'scope' || field === 'exclude') && typeof v === 'string' ? [v] : v];
        }),
      );
  }
  return value;
}

/** A list written as text: `[a, b]` (YAML flow), `- a` lines, or `a, b`. PRIOR_ARTIFACTS' content stays one entry (refused as inline content). */
function listOf(key: string, text: string): unknown {
  const t = text.trim();
  if (t === '') return undefined;
  if (t.startsWith('[')) {
    const v = flow(t);
    if (!Array.isArray(v)) fail(`$.${key}`, `${key}: ${JSON.stringify(t.slice(0, 60))} is not a list`);
    return v;
  }
  const lines = t.split(/\r?\n/);
  if (lines.every((l) => /^\s*-\s+\S/.test(l))) return lines.map((l) => l.replace(/^\s*-\s+/, '').trim());
  if (key === 'PRIOR_ARTIFACTS' && (lines.length > 1 || /^[{<"'`]/.test(t))) return [text];
  if (lines.length > 1) fail(`$.${key}`, `${key}: a list is one line ("a, b" or "[a, b]") or "- item" lines`);
  return t.split(',').map((s) => s.trim()).filter(Boolean);
}

/** A map written as text: `{max_files: 8}` or `max_files: 8, max_lines: 400`; CONSTRAINTS in prose become its notes. */
function mapOf(key: string, text: string): unknown {
  const t = text.trim();
  if (t === '') return undefined;
  const v = t.startsWith('{') ? flow(t) : /^[A-Za-z_]+[ \t]*:/.test(t) ? flow(`{${t}}`) : undefined;
  if (isPlainObject(v)) return templateValue(key as TemplateKey, v);
  if (key === 'CONSTRAINTS') return { notes: t };
  return fail(`$.${key}`, `${key}: ${JSON.stringify(t.slice(0, 80))} is not a map like {max_files: 8, max_lines: 400, max_tool_calls: 30}`);
}

/** CONSTRAINTS may state limits ("max_files / max_lines"): they join the BUDGET, the tighter of the two winning. */
function foldLimits(out: Record<string, unknown>): void {
  const c = out.constraints;
  if (!isPlainObject(c) || !LIMIT_KEYS.some((k) => k in c)) return;
  const budget: Record<string, unknown> = isPlainObject(out.budget) ? { ...out.budget } : {};
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) {
    if (!(LIMIT_KEYS as readonly string[]).includes(k)) rest[k] = v;
    else budget[k] = typeof budget[k] === 'number' && typeof v === 'number' ? Math.min(budget[k], v) : (budget[k] ?? v);
  }
  out.constraints = rest;
  out.budget = budget;
}

/**
 * The seed's plain-text form: `KEY: value` lines, a value running on until the next key (a TASK may span
 * lines and keeps `#`, `:` and quotes verbatim: it is never read as YAML). Lists are `[a, b]`, `a, b` or
 * `- a` lines; BUDGET and CONSTRAINTS `{max_files: 8}` or `max_files: 8, max_lines: 400` (CONSTRAINTS in
 * prose become its notes). Returns the JSON form; a malformed template is a ValidationError.
 */
export function parseCapsuleText(text: string): Record<string, unknown> {
  return normalizeCapsule(text) as Record<string, unknown>;
}

function readText(text: string): Record<string, unknown> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  // The seed shows the template inside a ``` fence: a pasted fence is not part of it.
  while (lines.length && /^\s*(```\w*)?\s*$/.test(lines[0]!)) lines.shift();
  while (lines.length && /^\s*(```)?\s*$/.test(lines[lines.length - 1]!)) lines.pop();
  const fields = new Map<TemplateKey, { line: number; value: string[] }>();
  let current: { line: number; value: string[] } | undefined;
  lines.forEach((line, i) => {
    const m = /^([A-Z][A-Z_]*)[ \t]*:(.*)$/.exec(line);
    if (m && isTemplateKey(m[1]!)) {
      const key = m[1] as TemplateKey;
      if (fields.has(key)) fail(`$.${key}`, `${key} is given twice (lines ${fields.get(key)!.line} and ${i + 1})`);
      current = { line: i + 1, value: [m[2]!.replace(/^[ \t]/, '')] };
      fields.set(key, current);
    } else if (current) current.value.push(line);
    else if (line.trim() !== '') {
      const key = /^\s*([A-Za-z_]+)\s*:/.exec(line)?.[1];
      fail('$', `line ${i + 1}: ${key ? `${key} is not a key of the seed's template (${Object.keys(TEMPLATE_KEYS).join(', ')})` : 'text before the first KEY: line'}`);
    }
  });
  if (!fields.size) fail('$', `no KEY: line: the plain-text capsule has lines ${Object.keys(TEMPLATE_KEYS).join(':, ')}:`);
  const out: Record<string, unknown> = {};
  for (const [key, { value }] of fields) {
    while (value.length > 1 && value[value.length - 1]!.trim() === '') value.pop();
    const raw = key === 'TASK' ? value.join('\n').trimEnd() : value.join('\n').trim();
    if (/^<[^<>]*>$/.test(raw.trim())) fail(`$.${key}`, `${key} is still the template's placeholder ${raw.trim()}`);
    const v = LIST_KEYS.has(key) ? listOf(key, raw) : MAP_KEYS.has(key) ? mapOf(key, raw) : raw === '' ? null : raw;
    if (v !== undefined && !(v === null && key !== 'TASK' && key !== 'REPO_ROOT')) out[key] = v;
  }
  return normalizeFields(out);
}

/** An object in either form → the JSON form. Upper-case template keys become their fields; both spellings of one field are refused. */
function normalizeFields(doc: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const from = new Map<string, string>();
  for (const [k, v] of Object.entries(doc)) {
    const field = isTemplateKey(k) ? TEMPLATE_KEYS[k] : k;
    if (from.has(field)) fail(`$.${k}`, `${k} and ${from.get(field)} are the same field, given twice`);
    from.set(field, k);
    const value = isTemplateKey(k) ? templateValue(k, v) : v;
    if (value !== undefined) out[field] = value;
  }
  foldLimits(out);
  return out;
}

/**
 * Any capsule form → the JSON form `CnfCapsule` validates: a string is the seed's plain text; an object
 * may use the template's upper-case keys (YAML or JSON). Anything else is returned as is (the schema
 * refuses it). A malformed template is a ValidationError INVALID_CAPSULE naming the key.
 */
export function normalizeCapsule(raw: unknown): unknown {
  try {
    if (typeof raw === 'string') return readText(raw);
    if (isPlainObject(raw)) return normalizeFields(raw);
    return raw;
  } catch (err) {
    if (err instanceof CapsuleFormError) throw new ValidationError('INVALID_CAPSULE', 'CNF capsule', err.issues);
    throw err;
  }
}
