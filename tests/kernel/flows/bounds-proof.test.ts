// Issue 36 item 1: termination proved before a run starts. proveBounds finds every cycle a run can take (next,
// branches, loops, side trips and their returns), names the counter that bounds each, and warns about a cycle only
// the kernel's default bounds, with a witness path.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BOUNDS, type FlowInput } from '../../../src/contracts/index.js';
import { defineFlows, flowWarnings, loadFlows, proveBounds } from '../../../src/kernel/index.js';
import { runCli } from '../../support/cli.js';
import { CHARTERS } from '../../support/kernel-fixtures.js';
import { tempDir } from '../../support/temp.js';

const charter = { goal: 'g', key_question: 'q' };

/** implement loops on itself; review BOUNCEs back to implement: the endless review. */
function bouncing(over: { flow?: Partial<FlowInput>; review?: object; implement?: object } = {}): FlowInput {
  return {
    flow: 'fix',
    charter,
    steps: [
      { id: 'reproduce', agent: 'a', next: 'implement' },
      { id: 'implement', agent: 'b', loop: { max_iterations: 3, exit_when: ['VERIFIED'] }, next: 'review', ...over.implement },
      { id: 'review', agent: 'c', branches: { APPROVED: 'done', BOUNCE: 'implement' }, next: 'done', ...over.review },
      { id: 'done', agent: 'd', terminal: true },
    ],
    ...over.flow,
  } as FlowInput;
}

describe('proveBounds', () => {
  it('names a review that bounces back with a witness path and the default that alone bounds it', () => {
    const proof = proveBounds(defineFlows([bouncing()]));
    expect(proof.unstated).toHaveLength(1);
    const [c] = proof.unstated;
    expect(c).toMatchObject({ flow: 'fix', steps: ['implement', 'review'], text: 'review -BOUNCE-> implement -VERIFIED-> review', path: ['steps', 2] });
    expect(c!.bound).toEqual({ kind: 'visits', value: DEFAULT_BOUNDS.max_visits, stated: false });
    expect(c!.witness.map((e) => [e.from.step, e.kind, e.label, e.to.step])).toEqual([
      ['review', 'branch', 'BOUNCE', 'implement'],
      ['implement', 'next', 'VERIFIED', 'review'],
    ]);
    const w = flowWarnings(defineFlows([bouncing()]));
    expect(w).toEqual([
      expect.objectContaining({ code: 'unstated_bound', flow: 'fix', step: 'review', path: ['steps', 2], steps: ['implement', 'review'], bound: expect.objectContaining({ kind: 'visits', stated: false }) }),
    ]);
    expect(w[0]!.message).toContain("cycle review -BOUNCE-> implement -VERIFIED-> review (steps implement, review) is bounded only by the kernel's default of 25 visits per step");
  });

  it('validate prints the warning with its witness path and still exits 0 (a warning, not a problem)', () => {
    const dir = tempDir('nk-bounds-');
    writeFileSync(path.join(dir, 'fix.json'), JSON.stringify(bouncing()));
    const r = runCli(['validate', dir]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "warning: fix: $.steps[2]: cycle review -BOUNCE-> implement -VERIFIED-> review (steps implement, review) is bounded only by the kernel's default of 25 visits per step (and 500 routes per run); state max_visits on its steps, or bounds.max_visits on the flow\n",
    );
    expect(r.stdout).toBe('ok: 1 flow, no requests\n');
  });

  it('a stated visit cap on any step of the cycle bounds it: no warning, and the proof names the cap', () => {
    for (const over of [{ review: { max_visits: 4 } }, { implement: { max_visits: 9 } }, { flow: { bounds: { max_visits: 7 } } }]) {
      const set = defineFlows([bouncing(over)]);
      const proof = proveBounds(set);
      expect(proof.unstated).toEqual([]);
      expect(set.warnings).toEqual([]);
      const cycle = proof.bounded.find((c) => c.steps.includes('review'))!;
      expect(cycle.text).toBe('review -BOUNCE-> implement -VERIFIED-> review');
      expect(cycle.bound).toMatchObject({ kind: 'visits', stated: true });
    }
    expect(proveBounds(defineFlows([bouncing({ review: { max_visits: 4 } })])).bounded[0]!.bound).toEqual({ kind: 'visits', value: 4, stated: true, step: 'review' });
  });

  it('a stated route budget bounds every cycle of the flow', () => {
    const proof = proveBounds(defineFlows([bouncing({ flow: { bounds: { max_routes: 90 } } })]));
    expect(proof.unstated).toEqual([]);
    expect(proof.bounded[0]!.bound).toEqual({ kind: 'routes', value: 90, stated: true });
  });

  it('a microloop bounds its own cycle, but not once its step can go on inside the cycle (the counter resets)', () => {
    const loopBack: FlowInput = {
      flow: 'lp',
      charter,
      steps: [
        { id: 'write', agent: 'a', next: 'check' },
        { id: 'check', agent: 'b', loop: { to: 'write', max_iterations: 3 }, next: 'done' },
        { id: 'done', agent: 'c', terminal: true },
      ],
    };
    const ok = proveBounds(defineFlows([loopBack]));
    expect(ok.unstated).toEqual([]);
    expect(ok.bounded).toEqual([expect.objectContaining({ text: 'check -LOOP-> write -VERIFIED-> check', bound: { kind: 'microloop', value: 3, stated: true, step: 'check' } })]);
    // check's branch goes back to write as well: leaving the loop by CONTINUE resets its counter, so nothing stated bounds it.
    const resetting = structuredClone(loopBack);
    resetting.steps[1] = { ...resetting.steps[1]!, branches: { REDO: 'write' } };
    const bad = proveBounds(defineFlows([resetting]));
    expect(bad.unstated.map((c) => c.text)).toEqual(['check -REDO-> write -VERIFIED-> check']);
  });

  it('side trips (a detour and its return) are cycles; one warning names every step that takes them', () => {
    const flow: FlowInput = {
      flow: 'st',
      charter,
      steps: [
        { id: 'a', agent: 'x', next: 'b' },
        { id: 'b', agent: 'x', next: 'done' },
        { id: 'lint', agent: 'l', returns: true },
        { id: 'done', agent: 'x', terminal: true },
      ],
      detours: { lint_errors: 'lint' },
    };
    const proof = proveBounds(defineFlows([flow]));
    expect(proof.unstated).toHaveLength(1);
    expect(proof.unstated[0]).toMatchObject({ steps: ['a', 'b'], sideTrip: true, text: 'a -DETOUR lint_errors-> lint -RETURN-> a' });
    expect(flowWarnings(defineFlows([flow]))[0]!.message).toMatch(/^side trips from steps a, b \(cycle a -DETOUR lint_errors-> lint -RETURN-> a\) are bounded only/);
    // A stated cap on the utility step bounds every trip to it (each trip visits it).
    const capped = structuredClone(flow);
    capped.steps[2] = { ...capped.steps[2]!, max_visits: 3 };
    expect(proveBounds(defineFlows([capped])).unstated).toEqual([]);
  });

  it('an injected flow is a side trip through its steps to its end and back: the witness walks it', () => {
    const parent: FlowInput = {
      flow: 'parent',
      charter,
      steps: [
        { id: 'work', agent: 'x', next: 'end' },
        { id: 'end', agent: 'x', terminal: true },
      ],
      detours: { upstream_diverged: { flow: 'sync' } },
      inject_flows: ['sync'],
    };
    const sync: FlowInput = {
      flow: 'sync',
      charter,
      steps: [
        { id: 'fetch', agent: 'x', next: 'apply' },
        { id: 'apply', agent: 'x', next: 'synced' },
        { id: 'synced', agent: 'x', terminal: true },
      ],
    };
    const proof = proveBounds(defineFlows([parent, sync]));
    expect(proof.unstated.map((c) => c.text)).toEqual(['work -INJECT sync-> sync/fetch -VERIFIED-> sync/apply -VERIFIED-> sync/synced -RETURN-> work']);
    expect(proof.depth).toEqual([
      { flow: 'parent', depth: 1, max_depth: DEFAULT_BOUNDS.max_depth },
      { flow: 'sync', depth: 0, max_depth: DEFAULT_BOUNDS.max_depth },
    ]);
    // Stating the injected flow's caps bounds every injection of it (each visits its first step).
    const boundedSync = { ...sync, bounds: { max_visits: 5 } };
    expect(proveBounds(defineFlows([parent, boundedSync])).unstated).toEqual([]);
  });

  it('warns when side trips can nest deeper than the flow allows', () => {
    const flow = (id: string, injects: string[], extra: Partial<FlowInput> = {}): FlowInput => ({
      flow: id,
      charter,
      steps: [
        { id: `${id}-1`, agent: 'x', next: `${id}-end`, max_visits: 3 },
        { id: `${id}-fix`, agent: 'x', returns: true, max_visits: 3 },
        { id: `${id}-end`, agent: 'x', terminal: true },
      ],
      detours: { lint_errors: `${id}-fix` },
      inject_flows: injects,
      ...extra,
    });
    // outer injects middle injects inner, and inner detours: three return points at once.
    const flows = [flow('outer', ['middle'], { bounds: { max_depth: 2 } }), flow('middle', ['inner']), flow('inner', [])];
    expect(proveBounds(defineFlows(flows)).depth.find((d) => d.flow === 'outer')).toEqual({ flow: 'outer', depth: 3, max_depth: 2 });
    const w = flowWarnings(defineFlows(flows)).filter((x) => x.code === 'depth_exceeds');
    expect(w).toEqual([expect.objectContaining({ flow: 'outer', path: ['bounds', 'max_depth'], max_depth: expect.any(Number), depth: expect.any(Number) })]);
    expect(w[0]!.message).toContain('can nest 3 deep');
    flows[0]!.bounds = { max_depth: 3 };
    expect(flowWarnings(defineFlows(flows)).filter((x) => x.code === 'depth_exceeds')).toEqual([]);
  });

  it('gives a worst case of routes per run: the visit caps of what the run can reach, or the route budget', () => {
    const set = defineFlows([bouncing({ flow: { bounds: { max_visits: 3 } } })]);
    expect(proveBounds(set).routes).toEqual([{ flow: 'fix', routes: 12, by: 'visits', stated: true }]);
    // Four steps at the default 25 visits each: 100 routes, under the default budget of 500.
    expect(proveBounds(defineFlows([bouncing()])).routes).toEqual([{ flow: 'fix', routes: 4 * DEFAULT_BOUNDS.max_visits, by: 'visits', stated: false }]);
    expect(proveBounds(defineFlows([bouncing({ flow: { bounds: { max_routes: 10 } } })])).routes).toEqual([{ flow: 'fix', routes: 10, by: 'max_routes', stated: true }]);
  });

  it('is deterministic: the same flows in another order give the same proof', () => {
    const a = bouncing();
    const b = { ...bouncing(), flow: 'other' };
    expect(JSON.stringify(proveBounds(defineFlows([a, b])))).toBe(JSON.stringify(proveBounds(defineFlows([b, a]))));
  });
});

describe('the shipped flows state their bounds', () => {
  it('every cycle of charters/ is bounded by a stated bound, and validate prints no warning', async () => {
    const set = await loadFlows(CHARTERS);
    const proof = proveBounds(set);
    expect(proof.unstated).toEqual([]);
    expect(set.warnings).toEqual([]);
    // build's review: its visit cap, not the default, holds the BOUNCE cycle.
    expect(proof.bounded).toContainEqual(expect.objectContaining({ flow: 'build', text: 'build-review -BOUNCE-> build-step-3 -VERIFIED-> build-review', bound: { kind: 'visits', value: 5, stated: true, step: 'build-review' } }));
    for (const f of set.flows.values()) expect(f.statedBounds).toMatchObject({ max_visits: expect.any(Number), max_routes: expect.any(Number), max_depth: expect.any(Number) });
    for (const d of proof.depth) expect(d.depth).toBeLessThanOrEqual(d.max_depth);
    const r = runCli(['validate', 'charters']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('ok: 7 flows, no requests\n');
  });

  it('validate --bounds prints the proof; --json carries it', () => {
    const r = runCli(['validate', '--bounds', 'charters']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('build: a run takes at most 300 routes here and in the flows it injects (its route budget)');
    expect(r.stdout).toContain("  bounded: build-review -BOUNCE-> build-step-3 -VERIFIED-> build-review by build-review's visit cap (max_visits 5)");
    const json = JSON.parse(runCli(['validate', '--json', 'charters']).stdout) as { bounds: { unstated: unknown[]; bounded: unknown[] } };
    expect(json.bounds.unstated).toEqual([]);
    expect(json.bounds.bounded.length).toBeGreaterThan(5);
  });
});
