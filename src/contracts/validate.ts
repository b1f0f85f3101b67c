import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { issuePathText, validationIssue, type IssuePath, type ValidationIssue } from './errors.js';
import { toIssueCode } from './issue-codes.js';
import { didYouMean, suggest } from './nearest-name.js';
import { packageRoot } from '../package-root.js';

/** Result of validating a document at a boundary: expected outcomes are data, not exceptions. */
export type ValidationResult<T> = { success: true; data: T } | { success: false; issues: ValidationIssue[] };

/** A compiled validator for one published schema. */
export type CompiledValidator<T> = (doc: unknown) => ValidationResult<T>;

/** `schemas/` of this package. */
export function schemasDir(): string {
  return path.join(packageRoot(), 'schemas');
}

const ajvs = new Map<boolean, Ajv2020>();
const cache = new Map<string, { fn: ValidateFunction; schema: unknown }>();

function sharedAjv(useDefaults: boolean): Ajv2020 {
  let ajv = ajvs.get(useDefaults);
  // allErrors: a user fixing a file wants every problem at once, not one per run. validateSchema: false: the only
  // schemas compiled here are the shipped, generated schemas/ files, checked against the 2020-12 meta-schema by
  // tests/contracts/schemas-drift.test.ts; compiling the meta-schema at run time cost two thirds of the first compile
  // (a fifth of `navkernel runs replay`'s start-up).
  if (!ajv) {
    // ajv (CommonJS, ~60 ms to load) is required on the first compile, not at import: `navkernel/kernel` stays light.
    const { Ajv2020: Ajv } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    ajvs.set(useDefaults, (ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, validateSchema: false, useDefaults })));
  }
  return ajv;
}

/** The issue path (`['a', 'b', 2]`) of an ajv instancePath (`/a/b/2`), with `extra` appended. */
export function pathOfPointer(instancePath: string, extra?: string): IssuePath {
  const parts: IssuePath = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (extra !== undefined) parts.push(extra);
  return parts;
}

/** The value at an ajv instancePath of `doc` (undefined when it is not there). */
function valueAt(doc: unknown, instancePath: string): unknown {
  let v = doc;
  for (const p of instancePath.split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

/** The schema node at a JSON pointer (`#/$defs/Step`) of the root schema. */
function schemaAt(root: unknown, pointer: string): unknown {
  let v = root;
  for (const p of pointer.replace(/^#/, '').split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

/** What a JSON value is, in words: `a string ("3")`, `a number`, `null`. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `a string (${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)})`;
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a number';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function describe(err: ErrorObject, doc: unknown, root: unknown): ValidationIssue {
  const p = err.params as Record<string, unknown>;
  const path = pathOfPointer(err.instancePath);
  switch (err.keyword) {
    case 'required': {
      const field = String(p.missingProperty);
      return { path: pathOfPointer(err.instancePath, field), code: 'required', message: 'is required', field };
    }
    case 'additionalProperties': {
      const field = String(p.additionalProperty);
      const props = (schemaAt(root, err.schemaPath.replace(/\/additionalProperties$/, '')) as { properties?: Record<string, unknown> } | undefined)?.properties;
      const allowed = props ? Object.keys(props) : [];
      const hint = allowed.length ? `${didYouMean(field, allowed)} (allowed: ${allowed.join(', ')})` : '';
      return { path: pathOfPointer(err.instancePath, field), code: 'unknown_property', message: `is not an allowed property${hint}`, field, ...suggest(field, allowed), ...(allowed.length ? { allowed } : {}) };
    }
    case 'enum': {
      const allowed = p.allowedValues as unknown[];
      const got = valueAt(doc, err.instancePath);
      const names = allowed.filter((v): v is string => typeof v === 'string');
      const hint = typeof got === 'string' ? didYouMean(got, names) : '';
      return {
        path,
        code: 'enum',
        message: `expected one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}${typeof got === 'string' ? `, got ${JSON.stringify(got.length > 40 ? `${got.slice(0, 40)}…` : got)}` : ''}${hint}`,
        allowed,
        ...(typeof got === 'string' ? suggest(got, names) : {}),
      };
    }
    case 'type':
      return { path, code: 'type', message: `expected ${String(p.type)}, got ${kindOf(valueAt(doc, err.instancePath))}`, expected: String(p.type) };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { path, code: err.keyword, message: `expected a number ${String(p.comparison)} ${String(p.limit)}`, limit: Number(p.limit) };
    case 'minLength':
      return { path, code: err.keyword, message: `expected a string of at least ${String(p.limit)} character(s)`, limit: Number(p.limit) };
    case 'maxLength':
      return { path, code: err.keyword, message: `expected a string of at most ${String(p.limit)} character(s)`, limit: Number(p.limit) };
    case 'minItems':
      return { path, code: err.keyword, message: `expected at least ${String(p.limit)} item(s)`, limit: Number(p.limit) };
    case 'maxItems':
      return { path, code: err.keyword, message: `expected value that ${err.message ?? 'matches the schema'}`, limit: Number(p.limit) };
    case 'pattern':
      return { path, code: err.keyword, message: `expected a string matching ${String(p.pattern)}`, pattern: String(p.pattern) };
    default:
      return validationIssue(toIssueCode(err.keyword), path, `expected value that ${err.message ?? 'matches the schema'}`);
  }
}

/** Issues from ajv errors, de-duplicated (unions report each branch) and in a stable order. */
export function issuesFromAjv(errors: ErrorObject[] | null | undefined, doc?: unknown, schema?: unknown): ValidationIssue[] {
  const seen = new Set<string>();
  const out: ValidationIssue[] = [];
  for (const e of errors ?? []) {
    const issue = describe(e, doc, schema);
    const key = `${issuePathText(issue.path)}|${issue.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(issue);
    }
  }
  return out;
}

/**
 * Compile (once) the validator of `schemas/<name>.schema.json`. With `applyDefaults`, a valid document comes back
 * as a copy with the schema's `default`s filled in (the input is never changed), as the zod model's `parse` would
 * give it, without loading zod.
 */
export function compileValidator<T>(name: string, options: { applyDefaults?: boolean } = {}): CompiledValidator<T> {
  const applyDefaults = options.applyDefaults ?? false;
  const key = `${applyDefaults ? 'defaults:' : ''}${name}`;
  let hit = cache.get(key);
  if (!hit) {
    const file = path.join(schemasDir(), `${name}.schema.json`);
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    hit = { fn: sharedAjv(applyDefaults).compile(schema), schema };
    cache.set(key, hit);
  }
  const { fn: validate, schema } = hit;
  if (applyDefaults) {
    return (doc: unknown) => {
      let copy: unknown;
      try {
        copy = structuredClone(doc);
      } catch {
        return { success: false, issues: [{ path: [], code: 'type', message: 'expected plain JSON data (it holds a function or another value that cannot be copied)', expected: 'plain JSON data' }] };
      }
      return validate(copy) ? { success: true, data: copy as T } : { success: false, issues: issuesFromAjv(validate.errors, copy, schema) };
    };
  }
  return (doc: unknown) => (validate(doc) ? { success: true, data: doc as T } : { success: false, issues: issuesFromAjv(validate.errors, doc, schema) });
}
