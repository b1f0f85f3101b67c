// Issue 38 item 4: validation issues are a union keyed on a closed set of codes (ISSUE_CODES), each documented in
// docs/errors.md; every code a producer writes in src/ is in the set, and real bad input gives codes from it.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlowValidationError, ValidationError, formatIssue, issuePathText, type ValidationIssue } from '../../src/contracts/index.js';
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
      for (const m of line.matchAll(/\badd\((?:\[[^\]]*\]|[^,]+), '([a-z][A-Za-z_]*)'/g)) found.set(m[1]!, file);
    }
  }
  return found;
}

describe('issue codes', () => {
  it('docs/errors.md has a row for every issue code and none outside the set', () => {
    expect(ISSUE_CODE_LIST.filter((c) => !rows.has(c))).toEqual([]);
    expect([...rows].filter((c) => !isIssueCode(c))).toEqual([]);
  });

  it("docs/errors.md names each code's data, as the published schema has it", () => {
    const schema = JSON.parse(readFileSync(path.join(ROOT, 'schemas', 'problem.schema.json'), 'utf8')) as { properties: { issues: { items: { oneOf: { properties: Record<string, { const?: string }> }[] } } } };
    const members = schema.properties.issues.items.oneOf;
    expect(members.map((m) => m.properties.code!.const).sort()).toEqual([...ISSUE_CODE_LIST].sort());
    const docs = readFileSync(path.join(ROOT, 'docs', 'errors.md'), 'utf8');
    const missing: string[] = [];
    for (const m of members) {
      const code = m.properties.code!.const!;
      const dataCell = new RegExp(`^\\| \`${code}\` \\| .* \\| (.*) \\|$`, 'm').exec(docs)?.[1] ?? '';
      const fields = Object.keys(m.properties).filter((k) => !['code', 'path', 'message', 'file', 'line'].includes(k));
      for (const f of fields) if (!dataCell.includes(`\`${f}\``)) missing.push(`${code}.${f}`);
      if (!fields.length && dataCell !== '—') missing.push(`${code}: documents data it has not`);
    }
    expect(missing).toEqual([]);
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
      // The path walks to the bad field; the file is a field of its own, and the unknown field and its neighbours are data.
      const stray = issues.find((i) => i.code === 'unknown_property');
      expect(stray).toMatchObject({ file, path: ['steps', 1, 'colour'], field: 'colour' });
      expect(stray?.code === 'unknown_property' && stray.allowed).toEqual(expect.arrayContaining(['id', 'agent', 'next']));
      expect(issues.find((i) => i.code === 'unknown_step')).toMatchObject({ file, path: ['steps', 0, 'next'], step: 'bb', suggestion: 'b' });
      // The text form for people is derived from the array, with the file in front.
      expect(formatIssue(stray!)).toBe(`${file}: $.steps[1].colour: ${stray!.message}`);
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
    expect(issues.find((i) => i.code === 'unknown_step')).toMatchObject({ file: 'flows[0]', path: ['steps', 0, 'next'], step: 'nope' });
  });

  it('a route request with a contradiction and an unknown step', async () => {
    const k = createKernel({ flows: defineFlows([{ flow: 'f', charter, steps: [{ id: 'a', agent: 'x', next: 'b' }, { id: 'b', agent: 'x', terminal: true }] }]) });
    try {
      const bad = await k.route({ run_id: 'r1', flow: 'f', step_completed: 'zz', status: 'PASSED' }).then(() => undefined, (e: unknown) => e);
      expect(bad).toBeInstanceOf(ValidationError);
      expect((bad as ValidationError).issues).toContainEqual(expect.objectContaining({ code: 'unknown_step', path: ['step_completed'], step: 'zz' }));
      const wrongType = await k.route({ run_id: 'r2', flow: 'f', step_completed: 'a', status: 'PASSED', iteration: { current: 'x' } } as never).then(() => undefined, (e: unknown) => e);
      expect(wrongType).toBeInstanceOf(ValidationError);
      expect((wrongType as ValidationError).issues.every((i) => isIssueCode(i.code))).toBe(true);
      expect((wrongType as ValidationError).issues).toContainEqual(expect.objectContaining({ code: 'type', path: ['iteration', 'current'], expected: 'integer' }));
    } finally {
      await k.close();
    }
  });
});

describe('issue paths and data', () => {
  it('issuePathText writes names, indexes and quoted keys', () => {
    expect(issuePathText([])).toBe('$');
    expect(issuePathText(['steps', 12, 'branches', 'FAILED'])).toBe('$.steps[12].branches.FAILED');
    expect(issuePathText(['forensics', 'a.b', 0])).toBe('$.forensics["a.b"][0]');
  });

  it('a ring of injections carries the ring; an unreachable step the step and the first step', () => {
    const flow = (id: string, inject: string[]) => ({ flow: id, charter, inject_flows: inject, steps: [{ id: 'a', agent: 'x', next: 'b' }, { id: 'b', agent: 'x', terminal: true }, { id: 'c', agent: 'x', terminal: true }] });
    const err = (() => {
      try {
        defineFlows([flow('p', ['q']), flow('q', ['p'])]);
      } catch (e) {
        return e as FlowValidationError;
      }
    })();
    const issues = err!.issues;
    expect(issues.find((i) => i.code === 'injection_cycle')).toMatchObject({ path: ['inject_flows', 0], cycle: ['p', 'q', 'p'] });
    expect(issues.find((i) => i.code === 'unreachable')).toMatchObject({ path: ['steps', 2], step: 'c', from: 'a' });
  });

  it('a misspelt forensic field carries the field and the one it probably meant; the warning text is unchanged', async () => {
    const k = createKernel({ flows: defineFlows([{ flow: 'f', charter, steps: [{ id: 'a', agent: 'x', next: 'b' }, { id: 'b', agent: 'x', terminal: true }] }]), strict: true });
    try {
      const bad = await k.route({ run_id: 'r1', flow: 'f', step_completed: 'a', status: 'PASSED', forensics: { tests: { faild: 2 } } } as never).then(() => undefined, (e: unknown) => e);
      expect(bad).toBeInstanceOf(ValidationError);
      expect((bad as ValidationError).code).toBe('INVALID_FORENSICS');
      expect((bad as ValidationError).issues).toEqual([expect.objectContaining({ code: 'misspelt_field', path: ['forensics', 'tests', 'faild'], field: 'faild', suggestion: 'failed' })]);
      expect((bad as ValidationError).message).toContain('$.forensics.tests.faild: is not a field the kernel reads, so it was not read; did you mean "failed"? ($.forensics.tests.failed)');
    } finally {
      await k.close();
    }
  });
});
