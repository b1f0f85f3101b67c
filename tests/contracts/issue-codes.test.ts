// Issue 38 item 4: validation issues are a union keyed on a closed set of codes (ISSUE_CODES), each documented in
// docs/errors.md; every code a producer writes in src/ is in the set, and real bad input gives codes from it.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlowValidationError, ValidationError, issuePathSegments, type ValidationIssue } from '../../src/contracts/index.js';
import { ISSUE_CODE_LIST, isIssueCode } from '../../src/contracts/issue-codes.js';
import { createKernel, defineFlows, loadFlows } from '../../src/kernel/index.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

const rows = new Set([...readFileSync(path.join(ROOT, 'docs', 'errors.md'), 'utf8').matchAll(/^\| `([a-z][A-Za-z_]*)` \| .{10,} \|$/gm)].map((m) => m[1]!));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sourceFiles(path.join(dir, d.name)) : d.name.endsWith('.ts') ? [path.join(dir, d.name)] : []));
}

/** Issue codes written as literals in src/: `{ path…, code: 'x' }` objects and check-graph's `add(PATH, 'x', …)`. */
function codesInSource(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of sourceFiles(path.join(ROOT, 'src'))) {
    if (file.endsWith('flow-warnings.ts') || file.endsWith('compiled-flow.ts')) continue; // warnings, not issues
    const text = readFileSync(file, 'utf8');
    for (const line of text.split('\n')) {
      if (/\bpath\b/.test(line)) for (const m of line.matchAll(/\bcode: '([a-z][A-Za-z_]*)'/g)) found.set(m[1]!, file);
      for (const m of line.matchAll(/\badd\([^,]+, '([a-z][A-Za-z_]*)'/g)) found.set(m[1]!, file);
    }
  }
  return found;
}

describe('issue codes', () => {
  it('docs/errors.md has a row for every issue code and none outside the set', () => {
    expect(ISSUE_CODE_LIST.filter((c) => !rows.has(c))).toEqual([]);
    expect([...rows].filter((c) => !isIssueCode(c))).toEqual([]);
  });

  it('every issue code written in src/ is in the set', () => {
    const found = codesInSource();
    expect(found.size).toBeGreaterThan(20); // the scan sees the producers
    expect([...found].filter(([c]) => !isIssueCode(c)).map(([c, f]) => `${c} (${path.relative(ROOT, f)})`)).toEqual([]);
  });
});

const charter = { goal: 'g', key_question: 'q' };
const codesOf = (issues: readonly ValidationIssue[]) => issues.map((i) => i.code);

describe('real bad input gives issues from the set, at the bad field', () => {
  it('a flow file with a misspelt next and a stray field', async () => {
    const file = path.join(tempDir(), 'bad.yaml');
    writeFileSync(file, 'flow: bad\ncharter: { goal: g, key_question: q }\nsteps:\n  - { id: a, agent: x, next: bb }\n  - { id: b, agent: x, terminal: true, colour: red }\n');
    {
      const err = await loadFlows(file).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(FlowValidationError);
      const issues = (err as FlowValidationError).issues;
      expect(issues.every((i) => isIssueCode(i.code))).toBe(true);
      expect(issues.map((i) => [i.code, i.path.replace(/^.*: /, '')])).toEqual(expect.arrayContaining([['unknown_property', '$.steps[1].colour']]));
      // The structured path walks to the bad field (the file prefix is not part of it).
      expect(issues.map((i) => issuePathSegments(i.path))).toContainEqual(['steps', 1, 'colour']);
    }
  });

  it('a flow graph with an unknown next step', () => {
    const err = (() => {
      try {
        defineFlows([{ flow: 'g', charter, steps: [{ id: 'a', agent: 'x', next: 'nope' }, { id: 'b', agent: 'x', terminal: true }] }]);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(FlowValidationError);
    const issues = (err as FlowValidationError).issues;
    expect(codesOf(issues).every(isIssueCode)).toBe(true);
    expect(issues.find((i) => i.code === 'unknown_step')?.path).toMatch(/\$\.steps\[0\]\.next$/);
    expect(issuePathSegments(issues.find((i) => i.code === 'unknown_step')!.path)).toEqual(['steps', 0, 'next']);
  });

  it('a route request with a contradiction and an unknown step', async () => {
    const k = createKernel({ flows: defineFlows([{ flow: 'f', charter, steps: [{ id: 'a', agent: 'x', next: 'b' }, { id: 'b', agent: 'x', terminal: true }] }]) });
    try {
      const bad = await k.route({ run_id: 'r1', flow: 'f', step_completed: 'zz', status: 'PASSED' }).then(() => undefined, (e: unknown) => e);
      expect(bad).toBeInstanceOf(ValidationError);
      expect((bad as ValidationError).issues.map((i) => [i.code, i.path])).toContainEqual(['unknown_step', '$.step_completed']);
      const wrongType = await k.route({ run_id: 'r2', flow: 'f', step_completed: 'a', status: 'PASSED', iteration: { current: 'x' } } as never).then(() => undefined, (e: unknown) => e);
      expect(wrongType).toBeInstanceOf(ValidationError);
      expect((wrongType as ValidationError).issues.every((i) => isIssueCode(i.code))).toBe(true);
      expect((wrongType as ValidationError).issues.map((i) => i.path)).toContain('$.iteration.current');
      expect((wrongType as ValidationError).issues.map((i) => issuePathSegments(i.path))).toContainEqual(['iteration', 'current']);
    } finally {
      await k.close();
    }
  });
});

describe('issuePathSegments', () => {
  it('parses names, indexes and quoted keys, after any file or line prefix', () => {
    expect(issuePathSegments('$')).toEqual([]);
    expect(issuePathSegments('no such file or folder')).toEqual([]);
    expect(issuePathSegments('flows/a.yaml: $.steps[12].branches.FAILED')).toEqual(['steps', 12, 'branches', 'FAILED']);
    expect(issuePathSegments('line 3: $.word')).toEqual(['word']);
    expect(issuePathSegments('$.forensics["a.b"][0]')).toEqual(['forensics', 'a.b', 0]);
  });
});
