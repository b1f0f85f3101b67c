// Forensics a person would type (docs/run-states.md, "Forensics"): a misspelt field the schema knows (`concern` for
// `concerns`, `test` for `tests`, at any level) is not read by any rule, and numbers that contradict each other
// (`iteration.current` above `max`, more failures listed than failed) cannot both be true. Each is a warning in the
// decision; with `strict` (createKernel({ strict }), --strict) the request is refused instead (INVALID_FORENSICS, or
// INVALID_REQUEST for `iteration`), and nothing is recorded.
import { issuePathText, type IssuePath, type ValidationIssue } from '../contracts/errors.js';
import { nearestName } from '../contracts/nearest-name.js';
import type { RouteRequest } from '../contracts/route-request.js';

/** A level of the request the schema knows: its fields, and the known levels below them. */
interface Level {
  fields: ReadonlySet<string>;
  /** A field holding an object of a known level. */
  objects?: Readonly<Record<string, Level>>;
  /** A field holding an array of objects of a known level. */
  arrays?: Readonly<Record<string, Level>>;
}

// The fields of each level, as the zod models in src/contracts/route-request.ts name them (plain lists, so the kernel
// entry loads no zod; tests/kernel/run-states.test.ts checks they match the models).
export const KNOWN_FIELDS = {
  forensics: ['tests', 'lint', 'concerns', 'failure_signature', 'error_output', 'git_status', 'types', 'signatures', 'read_from', 'can_further_iteration_help'],
  tests: ['passed', 'failed', 'errored', 'skipped', 'failures', 'failures_omitted'],
  failure: ['type', 'message', 'name', 'file', 'line', 'kind'],
  lint: ['errors', 'warnings', 'fixable', 'output', 'rules', 'rules_omitted', 'findings', 'findings_omitted'],
  finding: ['rule', 'severity', 'file', 'line', 'message'],
  types: ['errors', 'warnings', 'by_code', 'codes_omitted', 'diagnostics', 'diagnostics_omitted'],
  git_status: ['branch', 'upstream', 'behind_upstream', 'ahead', 'diverged', 'conflicts', 'conflicts_omitted', 'output'],
  concern: ['severity', 'description', 'addressed'],
  iteration: ['current', 'max'],
  envelope: ['next_step_id', 'recommendation', 'can_further_iteration_help', 'purpose'],
} as const;

const level = (name: keyof typeof KNOWN_FIELDS, more: Omit<Level, 'fields'> = {}): Level => ({ fields: new Set(KNOWN_FIELDS[name]), ...more });
const FINDING = level('finding');
const FORENSICS: Level = level('forensics', {
  objects: {
    tests: level('tests', { arrays: { failures: level('failure') } }),
    lint: level('lint', { arrays: { findings: FINDING } }),
    types: level('types', { arrays: { diagnostics: FINDING } }),
    git_status: level('git_status'),
  },
  arrays: { concerns: level('concern') },
});
const ITERATION = level('iteration');
const ENVELOPE = level('envelope');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The path of a field: its parent's path (built only when an issue names it) and its key. */
interface At {
  parent: At | undefined;
  key: string | number;
}
const pathOf = (at: At | undefined): IssuePath => {
  const out: IssuePath = [];
  for (let x = at; x; x = x.parent) out.push(x.key);
  return out.reverse();
};

function misspellings(value: unknown, level: Level, at: At, out: ValidationIssue[]): void {
  if (!isObject(value)) return;
  // for…in over a plain parsed object: its own keys, without an array of them (every request passes here).
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (level.fields.has(key)) {
      const obj = level.objects?.[key];
      if (obj) misspellings(value[key], obj, { parent: at, key }, out);
      const arr = level.arrays?.[key];
      const child = value[key];
      if (arr && Array.isArray(child)) {
        const list: At = { parent: at, key };
        child.forEach((item, i) => misspellings(item, arr, { parent: list, key: i }, out));
      }
      continue;
    }
    const near = nearestName(key, level.fields);
    if (near !== undefined && near !== key) {
      const path = pathOf(at);
      out.push({ path: [...path, key], code: 'misspelt_field', message: `is not a field the kernel reads, so it was not read; did you mean "${near}"? (${issuePathText([...path, near])})`, field: key, suggestion: near });
    }
  }
}

const n = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function contradictions(req: RouteRequest, out: ValidationIssue[]): void {
  const it = req.iteration;
  if (it?.max !== undefined && it.current > it.max) out.push({ path: ['iteration', 'current'], code: 'contradiction', message: `${it.current} is above iteration.max ${it.max}: a step cannot have run more times than it may` });
  const tests = req.forensics?.tests;
  if (tests) {
    const failed = n(tests.failed);
    const listed = (Array.isArray(tests.failures) ? tests.failures.length : 0) + (n(tests.failures_omitted) ?? 0);
    if (failed !== undefined && listed > failed + (n(tests.errored) ?? 0))
      out.push({ path: ['forensics', 'tests', 'failures'], code: 'contradiction', message: `lists ${listed} failures, more than tests.failed ${failed}${tests.errored !== undefined ? ` + tests.errored ${tests.errored}` : ''}` });
  }
  const lint = req.forensics?.lint;
  const errors = n(lint?.errors);
  const fixable = n(lint?.fixable);
  if (errors !== undefined && fixable !== undefined && fixable > errors) out.push({ path: ['forensics', 'lint', 'fixable'], code: 'contradiction', message: `${fixable} fixable errors is more than lint.errors ${errors}` });
}

/** What a person may have got wrong in a request's forensics, iteration and envelope: [] when nothing. */
export function forensicIssues(req: RouteRequest): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  if (req.forensics) misspellings(req.forensics, FORENSICS, { parent: undefined, key: 'forensics' }, out);
  if (req.iteration) misspellings(req.iteration, ITERATION, { parent: undefined, key: 'iteration' }, out);
  if (req.envelope) misspellings(req.envelope, ENVELOPE, { parent: undefined, key: 'envelope' }, out);
  if (req.iteration || req.forensics) contradictions(req, out);
  return out;
}

/** The issues as the warnings a decision carries. */
export function forensicWarnings(issues: readonly ValidationIssue[]): string[] {
  return issues.map((i) => `${issuePathText(i.path).slice(2)} ${i.message}`);
}
