import { describe, expect, it } from 'vitest';
import type { Forensics } from '../../src/contracts/index.js';
import { DEFAULT_SIGNATURES, buildSignatureTable, deriveSignature } from '../../src/kernel/index.js';

const table = buildSignatureTable([]);

describe('failure signatures', () => {
  it.each<[string, Forensics]>([
    ['upstream_diverged', { git_status: { behind_upstream: 2 } }],
    ['upstream_diverged', { error_output: "Your branch and 'origin/main' have diverged" }],
    ['merge_conflict', { git_status: { conflicts: ['src/a.ts'] } }],
    ['merge_conflict', { error_output: 'CONFLICT (content): Merge conflict in src/a.ts\nAutomatic merge failed' }],
    ['lint_errors', { lint: { errors: 4 } }],
    ['lint_errors', { lint: { output: 'ruff check: error E501 line too long' } }],
    ['missing_import', { error_output: "Error: Cannot find module './db' imported from src/x.ts" }],
    ['missing_import', { error_output: "ImportError: cannot import name 'Session' from 'app.models'" }],
    ['type_mismatch', { error_output: "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'." }],
    ['test_fixture_error', { tests: { failed: 1, failures: [{ type: 'FixtureNotFoundError' }] } }],
    ['test_fixture_error', { error_output: "E       fixture 'db_session' not found" }],
    // The shapes real tools print (issue 23), for runners that send raw output rather than `navkernel forensics`.
    ['missing_import', { error_output: "src/a.ts(1,25): error TS2307: Cannot find module 'lodash-es' or its corresponding type declarations." }],
    ['missing_import', { error_output: 'main.go:3:8: cannot find package "example.com/gone" in any of:' }],
    ['type_mismatch', { error_output: 'm.py:8: error: Argument 1 to "double" has incompatible type "str"; expected "int"  [arg-type]' }],
    ['test_fixture_error', { tests: { failures: [{ kind: 'error', message: 'failed on setup with "RuntimeError: db down"' }] } }],
    ['merge_conflict', { error_output: 'Unmerged paths:\n  both modified:   src/a.ts' }],
    // `navkernel forensics` lists every signature its reports show; without failure_signature the table picks.
    ['lint_errors', { signatures: ['type_mismatch', 'lint_errors'] }],
    ['dependency_error', { error_output: 'npm ERR! 404 Not Found - GET https://registry.npmjs.org/left-padd' }],
    ['dependency_error', { error_output: 'ERROR: Could not find a version that satisfies the requirement torch==9.9' }],
  ])('recognises %s', (expected, f) => {
    expect(deriveSignature(f, table)).toBe(expected);
  });

  it('prefers the runner-given signature, and finds none in clean or prose-only forensics', () => {
    expect(deriveSignature({ failure_signature: 'mine', lint: { errors: 3 } }, table)).toBe('mine');
    expect(deriveSignature({ tests: { passed: 3, failed: 0 } }, table)).toBeUndefined();
    expect(deriveSignature({ concerns: [{ severity: 'HIGH', description: 'lint errors: 5 errors found' }] }, table)).toBeUndefined();
    expect(deriveSignature(undefined, table)).toBeUndefined();
  });

  it('names type errors type_mismatch (seed 003) and accepts type_error as an alias, from runners and in flows', () => {
    expect(deriveSignature({ failure_signature: 'type_error' }, table)).toBe('type_mismatch');
    expect(deriveSignature({ failure_signature: 'type_mismatch' }, table)).toBe('type_mismatch');
    const flowTable = buildSignatureTable([{ id: 'type_error', priority: 99, patterns: ['Flow type clash'] }]);
    expect(flowTable.filter((m) => m.id === 'type_mismatch')).toHaveLength(1);
    expect(flowTable.some((m) => m.id === 'type_error')).toBe(false);
    expect(deriveSignature({ error_output: 'Flow type clash at a.js:3' }, flowTable)).toBe('type_mismatch');
    expect(deriveSignature({ error_output: 'error TS2322: nope' }, flowTable)).toBe('type_mismatch');
  });

  it('orders by priority (structured divergence beats lint text) and lets flows extend or override the table', () => {
    expect(deriveSignature({ git_status: { behind_upstream: 1 }, lint: { errors: 3 } }, table)).toBe('upstream_diverged');
    const extended = buildSignatureTable([
      { id: 'flaky_network', priority: 99, patterns: ['ECONNRESET'] },
      { id: 'lint_errors', priority: 10, patterns: ['stylelint'] },
    ]);
    expect(deriveSignature({ error_output: 'read ECONNRESET', lint: { errors: 2 } }, extended)).toBe('flaky_network');
    expect(deriveSignature({ error_output: 'stylelint: 3 problems' }, extended)).toBe('lint_errors');
    expect(extended.find((m) => m.id === 'lint_errors')!.priority).toBe(10);
    expect(extended).toHaveLength(DEFAULT_SIGNATURES.length + 1);
  });

  it('looks only at the tail of very long output, so matching stays linear', () => {
    const f = { error_output: 'eslint found 3 errors\n' + 'x'.repeat(200_000) };
    expect(deriveSignature(f, table)).toBeUndefined();
    expect(deriveSignature({ error_output: 'x'.repeat(200_000) + '\neslint: 2 errors' }, table)).toBe('lint_errors');
  });
});
