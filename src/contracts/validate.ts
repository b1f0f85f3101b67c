import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ValidationIssue } from './errors.js';
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
const cache = new Map<string, ValidateFunction>();

function sharedAjv(useDefaults: boolean): Ajv2020 {
  let ajv = ajvs.get(useDefaults);
  // allErrors: a user fixing a file wants every problem at once, not one per run.
  if (!ajv) ajvs.set(useDefaults, (ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, useDefaults })));
  return ajv;
}

/** JSON path (`$.a.b[2]`) from an ajv instancePath (`/a/b/2`). */
export function toJsonPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  let out = '$';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`;
  return out;
}

function describe(err: ErrorObject): ValidationIssue {
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required':
      return { path: toJsonPath(err.instancePath, String(p.missingProperty)), code: 'required', message: 'is required' };
    case 'additionalProperties':
      return { path: toJsonPath(err.instancePath, String(p.additionalProperty)), code: 'unknown_property', message: 'is not an allowed property' };
    case 'enum':
      return { path: toJsonPath(err.instancePath), code: 'enum', message: `expected one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'type':
      return { path: toJsonPath(err.instancePath), code: 'type', message: `expected ${String(p.type)}` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { path: toJsonPath(err.instancePath), code: err.keyword, message: `expected a number ${String(p.comparison)} ${String(p.limit)}` };
    case 'minLength':
      return { path: toJsonPath(err.instancePath), code: err.keyword, message: `expected a string of at least ${String(p.limit)} character(s)` };
    case 'maxLength':
      return { path: toJsonPath(err.instancePath), code: err.keyword, message: `expected a string of at most ${String(p.limit)} character(s)` };
    case 'minItems':
      return { path: toJsonPath(err.instancePath), code: err.keyword, message: `expected at least ${String(p.limit)} item(s)` };
    case 'pattern':
      return { path: toJsonPath(err.instancePath), code: err.keyword, message: `expected a string matching ${String(p.pattern)}` };
    default:
      return { path: toJsonPath(err.instancePath), code: err.keyword, message: `expected value that ${err.message ?? 'matches the schema'}` };
  }
}

/** Issues from ajv errors, de-duplicated (unions report each branch) and in a stable order. */
export function issuesFromAjv(errors: ErrorObject[] | null | undefined): ValidationIssue[] {
  const seen = new Set<string>();
  const out: ValidationIssue[] = [];
  for (const e of errors ?? []) {
    const issue = describe(e);
    const key = `${issue.path}|${issue.message}`;
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
  let fn = cache.get(key);
  if (!fn) {
    const file = path.join(schemasDir(), `${name}.schema.json`);
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    fn = sharedAjv(applyDefaults).compile(schema);
    cache.set(key, fn);
  }
  const validate = fn;
  if (applyDefaults) {
    return (doc: unknown) => {
      let copy: unknown;
      try {
        copy = structuredClone(doc);
      } catch {
        return { success: false, issues: [{ path: '$', code: 'type', message: 'expected plain JSON data (it holds a function or another value that cannot be copied)' }] };
      }
      return validate(copy) ? { success: true, data: copy as T } : { success: false, issues: issuesFromAjv(validate.errors) };
    };
  }
  return (doc: unknown) => (validate(doc) ? { success: true, data: doc as T } : { success: false, issues: issuesFromAjv(validate.errors) });
}
