import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlowValidationError, issuePathText } from '../../src/contracts/index.js';
import { defineFlows, loadFlows } from '../../src/kernel/index.js';
import { CHARTERS, TEST_FLOWS } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

async function problemsOf(files: Record<string, string>): Promise<string[]> {
  const dir = tempDir('nk-flows-');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  try {
    await loadFlows(dir);
  } catch (e) {
    expect(e).toBeInstanceOf(FlowValidationError);
    return (e as FlowValidationError).issues.map((i) => `${path.basename(i.file ?? '')}:${issuePathText(i.path)} ${i.code}`);
  }
  return [];
}

describe('loadFlows', () => {
  it('loads the shipped SDLC flows, including the injectable rebase flow', async () => {
    const set = await loadFlows(CHARTERS);
    expect([...set.flows.keys()]).toEqual(['build', 'deploy', 'gate', 'plan', 'rebase', 'review', 'signal']);
    expect(set.get('build')!.injectFlows).toEqual(['rebase']);
    expect(set.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes flow definitions deterministically, independent of load order', () => {
    expect(defineFlows(TEST_FLOWS).hash).toBe(defineFlows([...TEST_FLOWS].reverse()).hash);
    const changed = structuredClone(TEST_FLOWS);
    changed[0]!.steps[1]!.loop!.max_iterations = 4;
    expect(defineFlows(changed).hash).not.toBe(defineFlows(TEST_FLOWS).hash);
  });

  it('reports every graph problem at once, with file and JSON path', async () => {
    const problems = await problemsOf({
      'a.yaml': `flow: a
charter: { goal: g, key_question: q }
steps:
  - { id: s1, agent: x, next: nowhere }
  - { id: s2, agent: x, branches: { OK: ghost }, loop: { to: phantom, max_iterations: 2 } }
  - { id: s1, agent: x }
detours: { lint_errors: missing-fixer, upstream_diverged: { flow: nope } }
inject_flows: [absent]
`,
      'b.yaml': `flow: b
charter: { goal: g, key_question: q }
steps:
  - { id: b1, agent: x, next: b3 }
  - { id: b2, agent: x, next: b3 }
  - { id: b3, agent: x, terminal: true }
`,
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'a.yaml:$.steps[2].id duplicate_step',
        'a.yaml:$.steps[0].next unknown_step',
        'a.yaml:$.steps[1].branches.OK unknown_step',
        'a.yaml:$.steps[1].loop.to unknown_step',
        'a.yaml:$.steps no_terminal',
        'a.yaml:$.detours.lint_errors unknown_step',
        'a.yaml:$.detours.upstream_diverged.flow unknown_flow',
        'a.yaml:$.inject_flows[0] unknown_flow',
        'b.yaml:$.steps[1] unreachable',
      ]),
    );
  });

  it('accepts utility steps reached only by a detour', async () => {
    expect(
      await problemsOf({
        'c.yaml': `flow: c
charter: { goal: g, key_question: q }
steps:
  - { id: c1, agent: x, next: c2 }
  - { id: fixer, agent: fixer, returns: true }
  - { id: c2, agent: x, terminal: true }
detours: { lint_errors: fixer }
`,
      }),
    ).toEqual([]);
  });

  it('names the JSON path of schema errors and YAML syntax errors with their line', async () => {
    const problems = await problemsOf({
      'bad.yaml': `flow: bad
charter: { goal: g }
steps:
  - { id: s1, next: s2, colour: red }
`,
      'broken.yaml': 'flow: x\nsteps: [ {id: a\n',
    });
    expect(problems).toEqual(expect.arrayContaining(['bad.yaml:$.charter.key_question required', 'bad.yaml:$.steps[0].agent required', 'bad.yaml:$.steps[0].colour unknown_property']));
    expect(problems.some((p) => p.startsWith('broken.yaml:$ syntax'))).toBe(true);
  });

  it('fails clearly on a folder with no flow files', async () => {
    await expect(loadFlows(tempDir('nk-empty-'))).rejects.toThrow(/no flow files/);
  });
});
