import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { validationIssue, type ValidationIssue } from './errors.js';
import { toIssueCode } from './issue-codes.js';
import { didYouMean } from './nearest-name.js';
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

/** JSON path (`$.a.b[2]`) from an ajv instancePath (`/a/b/2`). */
export function toJsonPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  let out = '$';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`;
  return out;
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
  switch (err.keyword) {
    case 'required':
      return { path: toJsonPath(err.instancePath, String(p.missingProperty)), code: 'required', message: 'is required' };
    case 'additionalProperties': {
      const name = String(p.additionalProperty);
      const props = (schemaAt(root, err.schemaPath.replace(/\/additionalProperties$/, '')) as { properties?: Record<string, unknown> } | undefined)?.properties;
      const known = props ? Object.keys(props) : [];
      const hint = known.length ? `${didYouMean(name, known)} (allowed: ${known.join(', ')})` : '';
      return { path: toJsonPath(err.instancePath, name), code: 'unknown_property', message: `is not an allowed property${hint}` };
    }
    case 'enum': {
      const allowed = p.allowedValues as unknown[];
      const got = valueAt(doc, err.instancePath);
      const hint = typeof got === 'string' ? didYouMean(got, allowed.filter((v): v is string => typeof v === 'string')) : '';
      return { path: toJsonPath(err.instancePath), code: 'enum', message: `expected one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}${typeof got === 'string' ? `, got ${JSON.stringify(got.length > 40 ? `${got.slice(0, 40)}…` : got)}` : ''}${hint}` };
    }
    case 'type':
      return { path: toJsonPath(err.instancePath), code: 'type', message: `expected ${String(p.type)}, got ${kindOf(valueAt(doc, err.instancePath))}` };
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
      return validationIssue(toIssueCode(err.keyword), toJsonPath(err.instancePath), `expected value that ${err.message ?? 'matches the schema'}`);
  }
}

/** Issues from ajv errors, de-duplicated (unions report each branch) and in a stable order. */
export function issuesFromAjv(errors: ErrorObject[] | null | undefined, doc?: unknown, schema?: unknown): ValidationIssue[] {
  const seen = new Set<string>();
  const out: ValidationIssue[] = [];
  for (const e of errors ?? []) {
    const issue = describe(e, doc, schema);
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
        return { success: false, issues: [{ path: '$', code: 'type', message: 'expected plain JSON data (it holds a function or another value that cannot be copied)' }] };
      }
      return validate(copy) ? { success: true, data: copy as T } : { success: false, issues: issuesFromAjv(validate.errors, copy, schema) };
    };
  }
  return (doc: unknown) => (validate(doc) ? { success: true, data: doc as T } : { success: false, issues: issuesFromAjv(validate.errors, doc, schema) });
}
