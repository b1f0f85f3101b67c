// The run machine's synchronous steps without an actor (src/kernel/machine-steps.ts) against xstate's own pure
// transition(): the same machine, the same state and event give the same state and context; a step into tier 3 is
// handed to an actor; a machine the module cannot step is refused when compiled.
import { describe, expect, it } from 'vitest';
import { assign, createMachine, setup, transition, type EventObject } from 'xstate';
import type { ArbiterPort, RouteRequest, RunState } from '../../src/contracts/index.js';
import { buildRouteWork } from '../../src/kernel/build-work.js';
import { compileSteps, HAND_OFF } from '../../src/kernel/machine-steps.js';
import { runMachineKit, type RunMachineKit } from '../../src/kernel/run-actor.js';
import type { RunContext } from '../../src/kernel/run-machine.js';
import { emptyRunState } from '../../src/kernel/run-state.js';
import { req, testFlows } from '../support/kernel-fixtures.js';

const flows = testFlows();
const TS = '2026-01-01T00:00:00.000Z';

const base = emptyRunState('run-1');
/** Runs standing everywhere the machine knows: new, sent to a step, after a LOOP, awaiting a person, ended. */
const RUNS: Record<string, RunState> = {
  new: base,
  sentToCheck: { ...base, seq: 1, at: { flow: 'build', step: 'check' }, visits: { 'build/check': 1 }, trail: ['build/check'] },
  loopedToWrite: { ...base, seq: 2, loops: { 'build/check': 1 }, at: { flow: 'build', step: 'write', loop: 'check' } },
  sentToRebase: { ...base, seq: 3, at: { flow: 'rebase', step: 'rebase-apply' }, returns: [{ flow: 'build', step: 'review', via: 'flow', target: 'rebase' }] },
  awaiting: { ...base, seq: 4, lifecycle: 'awaiting_person', escalation_id: 'esc-run-1-4' },
  ended: { ...base, seq: 5, lifecycle: 'ended' },
};

/** Reports from the right step, another step, a restart, another flow; statuses every tier answers. */
const REPORTS: RouteRequest[] = [
  req('check', 'VERIFIED'),
  req('check', 'UNVERIFIED', { iteration: { current: 3, max: 3 } }),
  req('check', 'WHATEVER'),
  req('write', 'VERIFIED'),
  req('review', 'TRIAGE'),
  req('review', 'APPROVED', { restart: { reason: 'the runner restarted' } }),
  req('linear', 'FAILED', { forensics: { lint: { errors: 2 } } }),
  req('done', 'DONE'),
  { ...req('rebase-apply', 'DONE'), flow: 'rebase' },
];

function events(run: RunState, hasArbiter: boolean): { name: string; make: () => EventObject }[] {
  const out: { name: string; make: () => EventObject }[] = REPORTS.map((r) => ({
    name: `ROUTE ${r.flow}/${r.step_completed} ${r.status}${r.restart ? ' (restart)' : ''}`,
    // A fresh work per side: the tiers memoise their answers in it.
    make: () => ({ type: 'ROUTE', report: { flow: r.flow, step: r.step_completed, restart: r.restart !== undefined }, work: buildRouteWork(r, flows, run, TS, hasArbiter) }),
  }));
  for (const [name, other] of Object.entries(RUNS)) out.push({ name: `LOAD ${name}`, make: () => ({ type: 'LOAD', run: other }) });
  out.push({ name: 'RESOLVED to ended', make: () => ({ type: 'RESOLVED', run: { ...run, lifecycle: 'ended' } }) });
  out.push({ name: 'RESOLVED to routing', make: () => ({ type: 'RESOLVED', run: { ...run, lifecycle: 'routing', at: { flow: 'build', step: 'review' } } }) });
  return out;
}

const arbiter: ArbiterPort = () => Promise.resolve({ rejected: [], calls: [], cost_usd: 0 });

function compare(kit: RunMachineKit): { steps: number; handedOff: number } {
  const { machine, steps } = kit;
  let stepped = 0;
  let handedOff = 0;
  for (const [runName, run] of Object.entries(RUNS)) {
    // Where the machine puts the run (LOAD), then every event from there.
    const start = steps.step({ node: steps.initial, context: { run, hasArbiter: kit.hasArbiter } }, { type: 'LOAD', run });
    if (start === HAND_OFF) throw new Error('LOAD handed off');
    for (const e of events(run, kit.hasArbiter)) {
      const snapshot = machine.resolveState({ value: steps.valueOf(start.node), context: start.context as never });
      const [theirs] = transition(machine, snapshot, e.make() as never);
      const ours = steps.step(start, e.make());
      const where = `${runName}: ${e.name}`;
      if (ours === HAND_OFF) {
        handedOff++;
        // Only tier 3 is handed to an actor.
        expect(theirs.value, where).toEqual({ routing: 'arbitrating' });
        continue;
      }
      stepped++;
      expect(steps.valueOf(ours.node), where).toEqual(theirs.value);
      expect(ours.context, where).toEqual(theirs.context);
    }
  }
  return { steps: stepped, handedOff };
}

describe('the run machine stepped without an actor', () => {
  it('takes every synchronous transition as xstate does: same state, same context (outcome, run, refusal)', () => {
    const r = compare(runMachineKit(undefined, 1000));
    expect(r.handedOff).toBe(0);
    expect(r.steps).toBeGreaterThan(80);
  });

  it('hands a route that asks tier 3 to an actor, and steps the rest as xstate does', () => {
    const r = compare(runMachineKit(arbiter, 1000));
    expect(r.handedOff).toBeGreaterThan(0);
    expect(r.steps).toBeGreaterThan(80);
  });

  it('states the refusal of a report from another step in the context, where the kernel reads it', () => {
    const kit = runMachineKit(undefined, 1000);
    const run = RUNS.sentToCheck!;
    const stand = kit.steps.step({ node: kit.steps.initial, context: { run, hasArbiter: false } }, { type: 'LOAD', run });
    if (stand === HAND_OFF) throw new Error('LOAD handed off');
    const r = req('review', 'APPROVED');
    const next = kit.steps.step(stand, { type: 'ROUTE', report: { flow: 'build', step: 'review', restart: false }, work: buildRouteWork(r, flows, run, TS, false) });
    if (next === HAND_OFF) throw new Error('handed off');
    expect((next.context as RunContext).refusal).toMatchObject({ code: 'STEP_MISMATCH', expected: { flow: 'build', step: 'check' } });
    expect((next.context as RunContext).run).toBe(run);
  });

  it('refuses to compile a machine it cannot step', () => {
    const always = createMachine({ id: 'a', initial: 'x', states: { x: { always: { target: 'y' } }, y: {} } });
    expect(() => compileSteps(always)).toThrow(/machine a: state a\.x has eventless or delayed transitions/);
    const parallel = createMachine({ id: 'p', type: 'parallel', states: { x: {}, y: {} } });
    expect(() => compileSteps(parallel)).toThrow(/state p is parallel/);
    const wildcard = createMachine({ id: 'w', initial: 'x', states: { x: { on: { '*': 'x' } } } });
    expect(() => compileSteps(wildcard)).toThrow(/wildcard/);
    const custom = setup({ actions: { shout: () => undefined } }).createMachine({ id: 'c', initial: 'x', states: { x: { on: { GO: { actions: 'shout' } } } } });
    expect(() => compileSteps(custom)).toThrow(/action "shout" is not an assign\(\) of a function/);
  });

  it('hands off a transition into a state with entry actions, and steps plain ones with their assigns in order', () => {
    const m = setup({ types: { context: {} as { n: number; log: string[] } } }).createMachine({
      id: 'm',
      initial: 'a',
      context: { n: 0, log: [] },
      states: {
        a: {
          on: {
            ADD: { actions: [assign(({ context }) => ({ n: context.n + 1 })), assign(({ context }) => ({ log: [...context.log, `n=${context.n}`] }))] },
            NOISY: 'noisy',
            QUIET: { target: 'b', guard: ({ context }) => context.n > 1 },
          },
        },
        b: {},
        noisy: { entry: assign({ n: 100 }) },
      },
    });
    const steps = compileSteps<{ n: number; log: string[] }>(m);
    const a = { node: steps.initial, context: { n: 0, log: [] as string[] } };
    expect(steps.step(a, { type: 'NOISY' })).toBe(HAND_OFF);
    expect(steps.step(a, { type: 'QUIET' })).toBe(a); // the guard holds: no transition
    expect(steps.step(a, { type: 'NOTHING' })).toBe(a);
    let s = steps.step(a, { type: 'ADD' });
    if (s === HAND_OFF) throw new Error('handed off');
    expect(s.context).toEqual({ n: 1, log: ['n=1'] });
    s = steps.step(s, { type: 'ADD' });
    if (s === HAND_OFF) throw new Error('handed off');
    const b = steps.step(s, { type: 'QUIET' });
    if (b === HAND_OFF) throw new Error('handed off');
    expect(steps.valueOf(b.node)).toBe('b');
    expect(steps.nodeAt('b')).toBe(b.node);
  });
});
