// Issue 36 items 2-3 (and issue 37 item 5): the graph rules validate enforces before a run starts, and validate
// reporting every problem of a file in one run, with suggestions.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlowValidationError, issuePathText, type FlowInput } from '../../../src/contracts/index.js';
import { createKernel, defineFlows, loadFlows } from '../../../src/kernel/index.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const charter = { goal: 'g', key_question: 'q' };

/** The issues defineFlows refuses `flows` with, as `PATH code: message` (PATH without the `flows[i]: ` prefix). */
function refusals(flows: FlowInput[]): { path: string; code: string; message: string }[] {
  try {
    defineFlows(flows);
  } catch (e) {
    expect(e).toBeInstanceOf(FlowValidationError);
    return (e as FlowValidationError).issues.map((i) => ({ path: issuePathText(i.path), code: i.code, message: i.message }));
  }
  return [];
}

describe('branches: {} with a next', () => {
  it('keeps next as the default: a status no branch names continues there, as with any branch table', async () => {
    const flow: FlowInput = {
      flow: 'eb',
      charter,
      steps: [
        { id: 'a', agent: 'x', branches: {}, next: 'b' },
        { id: 'b', agent: 'x', terminal: true },
      ],
    };
    const k = createKernel({ flows: defineFlows([flow]) });
    expect(await k.route({ run_id: 'r1', flow: 'eb', step_completed: 'a', status: 'UNCLEAR' })).toMatchObject({ decision: 'CONTINUE', next_step_id: 'b', rule: 'branch_default' });
    // A failure falling to the default is flagged for a person, as with a non-empty table.
    expect(await k.route({ run_id: 'r2', flow: 'eb', step_completed: 'a', status: 'FAILED' })).toMatchObject({ decision: 'CONTINUE', next_step_id: 'b', needs_human: true });
    await k.close();
    // Without the table the step is linear: an unknown status still escalates.
    const linear = createKernel({ flows: defineFlows([{ ...flow, steps: [{ id: 'a', agent: 'x', next: 'b' }, flow.steps[1]!] }]) });
    expect(await linear.route({ run_id: 'r3', flow: 'eb', step_completed: 'a', status: 'UNCLEAR' })).toMatchObject({ decision: 'ESCALATE' });
    await linear.close();
  });
});

describe('detour targets return', () => {
  it('refuses a detour to a step without returns: true, naming the detour and the target', () => {
    const issues = refusals([
      {
        flow: 'd',
        charter,
        steps: [
          { id: 'work', agent: 'x', next: 'sync' },
          { id: 'sync', agent: 'x', next: 'end' },
          { id: 'end', agent: 'x', terminal: true },
        ],
        detours: { upstream_diverged: 'sync', lint_errors: { step: 'sync', max_attempts: 1 } },
      },
    ]);
    expect(issues.map((i) => `${i.path} ${i.code}`)).toEqual(['$.detours.upstream_diverged detour_not_returning', '$.detours.lint_errors.step detour_not_returning']);
    expect(issues[0]!.message).toContain('detour upstream_diverged goes to step "sync", which does not return (returns: true)');
  });

  it('accepts the same detour once the target returns', () => {
    expect(
      refusals([
        {
          flow: 'd',
          charter,
          steps: [
            { id: 'work', agent: 'x', next: 'end' },
            { id: 'sync', agent: 'x', returns: true },
            { id: 'end', agent: 'x', terminal: true },
          ],
          detours: { upstream_diverged: 'sync' },
        },
      ]),
    ).toEqual([]);
  });
});

describe('injection rings', () => {
  const injecting = (id: string, injects: string[]): FlowInput => ({
    flow: id,
    charter,
    steps: [
      { id: `${id}-1`, agent: 'x', next: `${id}-end` },
      { id: `${id}-end`, agent: 'x', terminal: true },
    ],
    inject_flows: injects,
  });

  it('refuses two flows that inject each other, naming the ring on each side', () => {
    const issues = refusals([injecting('a', ['b']), injecting('b', ['a'])]);
    expect(issues.map((i) => `${i.path} ${i.code}`)).toEqual(['$.inject_flows[0] injection_cycle', '$.inject_flows[0] injection_cycle']);
    expect(issues[0]!.message).toContain('(a -> b -> a)');
  });

  it('refuses a longer ring once, and accepts a chain that does not close', () => {
    const issues = refusals([injecting('a', ['b']), injecting('b', ['c']), injecting('c', ['a'])]);
    expect(issues.filter((i) => i.code === 'injection_cycle')).toHaveLength(3);
    expect(issues[0]!.message).toContain('(a -> b -> c -> a)');
    expect(refusals([injecting('a', ['b']), injecting('b', ['c']), injecting('c', [])])).toEqual([]);
  });
});

describe('blank statuses', () => {
  it('refuses a status that is only blank, wherever a status is declared', () => {
    const issues = refusals([
      {
        flow: 'bl',
        charter,
        steps: [
          { id: 'a', agent: 'x', next: 'b', success: [' '], failure: ['OK', '\t'] },
          { id: 'b', agent: 'x', next: 'c', branches: { ' ': 'c' }, loop: { max_iterations: 2, exit_when: ['  '] } },
          { id: 'c', agent: 'x', terminal: true },
        ],
      },
    ]);
    expect(issues.map((i) => `${i.path} ${i.code}`)).toEqual([
      '$.steps[0].success[0] blank_status',
      '$.steps[0].failure[1] blank_status',
      '$.steps[1].branches blank_status',
      '$.steps[1].loop.exit_when[0] blank_status',
    ]);
    // success: [""] is the schema's: a status of at least one character.
    expect(refusals([{ flow: 'e', charter, steps: [{ id: 'a', agent: 'x', success: [''], terminal: true }] }]).map((i) => `${i.path} ${i.code}`)).toEqual(['$.steps[0].success[0] minLength']);
  });

  it('an empty status escalates without suggesting success: [""], which validate refuses', async () => {
    const k = createKernel({ flows: defineFlows([{ flow: 'f', charter, steps: [{ id: 'a', agent: 'x', next: 'b' }, { id: 'b', agent: 'x', terminal: true }] }]) });
    const d = await k.route({ run_id: 'r', flow: 'f', step_completed: 'a', status: '' });
    expect(d.decision).toBe('ESCALATE');
    expect(d.reason).not.toContain('success: [');
    expect(d.reason).toContain('the status is empty: the runner must report a status word');
    await k.close();
  });
});

describe('validate reports every problem of a file in one run', () => {
  const broken = `flow: fix
charter: { goal: g, key_question: q }
on_exhausted: escalat
steps:
  - { id: reproduce, agent: a, next: fxi, colour: red }
  - { id: fix, agent: b, loop: { max_iterations: 2, on_exhausted: advanc }, next: done }
  - { id: done, agent: c }
detours: { lint_errors: fix }
`;

  it('schema and graph problems together, with did-you-mean for steps, enum values and keys', async () => {
    const dir = tempDir('nk-rules-');
    const file = path.join(dir, 'fix.yaml');
    writeFileSync(file, broken);
    const issues = await loadFlows(file).then(
      () => [],
      (e: FlowValidationError) => e.issues.map((i) => ({ ...i, path: issuePathText(i.path) })),
    );
    const byPath = Object.fromEntries(issues.map((i) => [`${i.path} ${i.code}`, i.message]));
    expect(Object.keys(byPath).sort()).toEqual(
      [
        '$.on_exhausted enum',
        '$.steps[0].colour unknown_property',
        '$.steps[1].loop.on_exhausted enum',
        '$.steps[0].next unknown_step',
        '$.steps no_terminal',
        '$.detours.lint_errors detour_not_returning',
      ].sort(),
    );
    expect(byPath['$.steps[0].next unknown_step']).toContain('did you mean "fix"?');
    expect(byPath['$.on_exhausted enum']).toContain('got "escalat"; did you mean "escalate"?');
    expect(byPath['$.steps[1].loop.on_exhausted enum']).toContain('did you mean "advance"?');
  });

  it('the CLI prints them all at once, and as structured issues with --json', () => {
    const dir = tempDir('nk-rules-');
    const file = path.join(dir, 'fix.yaml');
    writeFileSync(file, broken);
    const r = runCli(['validate', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('$.steps[0].next: next step "fxi" does not exist in flow fix; did you mean "fix"?');
    expect(r.stderr).toContain('$.on_exhausted: expected one of "advance", "escalate", got "escalat"; did you mean "escalate"?');
    expect(r.stderr).toContain('navkernel flows validate: 6 problem(s)');
    const json = JSON.parse(runCli(['validate', '--json', file]).stdout) as { issues: { file: string; path: (string | number)[]; code: string }[] };
    expect(json.issues).toContainEqual(expect.objectContaining({ file, path: ['steps', 0, 'next'], code: 'unknown_step', step: 'fxi', suggestion: 'fix' }));
    expect(json.issues).toHaveLength(6);
  });

  it('suggests the key meant by a misspelt one, the bounds fields included', () => {
    const issues = refusals([{ flow: 'k', charter, steps: [{ id: 'a', agent: 'x', max_visit: 3, terminal: true }], bound: { max_visits: 3 } } as unknown as FlowInput]);
    expect(issues.find((i) => i.path === '$.steps[0].max_visit')?.message).toContain('did you mean "max_visits"?');
    expect(issues.find((i) => i.path === '$.bound')?.message).toContain('did you mean "bounds"?');
  });

  it('says what it checked in words', () => {
    const dir = tempDir('nk-rules-');
    const file = path.join(dir, 'ok.yaml');
    writeFileSync(file, `flow: ok\ncharter: { goal: g, key_question: q }\nsteps:\n  - { id: a, agent: x, next: b }\n  - { id: b, agent: x, terminal: true }\n`);
    expect(runCli(['validate', file]).stdout).toBe('ok: 1 flow, no requests\n');
  });
});
