// A state machine's synchronous steps without an actor. An XState actor pays for a whole macrostep on every event
// (snapshots, transition sets, exit and entry sets, eventless checks: several µs, about half a tier-1 route), yet the
// run machine's synchronous transitions are only guards and assigns. This module takes them from the machine itself
// — its state nodes' transitions, tried in XState's order, and the guards and assigns it was provided with — and
// applies them as XState would; it names no state, event, guard or action of its own. A transition into (or out of)
// a state that starts or stops something (an invoked actor, entry or exit actions) is not taken here: `step` says
// HAND_OFF and the caller sends the event to a real actor (src/kernel/run-actor.ts does so for tier 3).
// What this module cannot run (parallel or history states, eventless or delayed transitions, wildcard events, guards
// or actions other than named or inline functions and function assigns) is refused when it is compiled, so a change
// of the machine cannot be stepped wrongly. tests/kernel/machine-steps.test.ts checks it against xstate's transition().
import type { AnyStateMachine, AnyStateNode, EventObject, StateValue } from 'xstate';

/** Where an actor would stand: an atomic state node and the context. */
export interface MachineStand<C> {
  readonly node: AnyStateNode;
  readonly context: C;
}

/** What `step` answers for a transition it does not take (the stand is unchanged). */
export const HAND_OFF = Symbol('hand off to an actor');

type Args = { context: unknown; event: EventObject };
type Guard = (args: Args, params: undefined) => boolean;
type Assignment = (args: Args, params: undefined) => object | undefined;

interface Step {
  guard: Guard | undefined;
  assignments: Assignment[];
  /** The atomic node the transition leads to; undefined: it stays (a transition without a target). */
  to: AnyStateNode | undefined;
  /** It enters or leaves a state that starts or stops something: an actor must take it. */
  handOff: boolean;
}

/** A machine's synchronous steps, compiled once. */
export interface MachineSteps<C> {
  /** The stand after `event` from `stand`, HAND_OFF for a transition an actor must take, or `stand` itself when no transition is enabled. Throws what a guard or assign throws (the stand is unchanged). */
  step<E extends EventObject>(stand: MachineStand<C>, event: E): MachineStand<C> | typeof HAND_OFF;
  /** The atomic node of a state value (a snapshot's `value`). */
  nodeAt(value: StateValue): AnyStateNode;
  /** The state value of an atomic node (for `machine.resolveState`). */
  valueOf(node: AnyStateNode): StateValue;
  /** The machine's initial atomic node. */
  readonly initial: AnyStateNode;
}

class UnsupportedMachineError extends Error {
  constructor(machine: AnyStateMachine, what: string) {
    super(`machine ${machine.id}: ${what}; its synchronous steps cannot be taken without an actor (src/kernel/machine-steps.ts)`);
  }
}

/** The node's initial atomic descendant (the node itself when atomic). */
function atomicOf(node: AnyStateNode): AnyStateNode {
  let n = node;
  while (n.type === 'compound') n = n.initial.target[0]!;
  return n;
}

/** A node that starts or stops nothing when entered or left. */
const plain = (n: AnyStateNode) => n.entry.length === 0 && n.exit.length === 0 && n.invoke.length === 0;

/** The node and its ancestors below the root. */
function lineage(n: AnyStateNode): AnyStateNode[] {
  const out: AnyStateNode[] = [];
  for (let p: AnyStateNode | undefined = n; p?.parent; p = p.parent) out.push(p);
  return out;
}

function guardOf(machine: AnyStateMachine, g: unknown): Guard | undefined {
  if (g === undefined) return undefined;
  const impl = typeof g === 'function' ? g : typeof g === 'string' ? machine.implementations.guards[g] : undefined;
  if (typeof impl !== 'function' || 'check' in impl) throw new UnsupportedMachineError(machine, `guard ${JSON.stringify(typeof g === 'string' ? g : String(g))} is not a plain function`);
  return impl as Guard;
}

function assignmentOf(machine: AnyStateMachine, a: unknown): Assignment {
  // assign() returns a function carrying its type and its assignment (xstate's own resolveAssign reads the same).
  const impl: unknown = typeof a === 'string' ? machine.implementations.actions[a] : a;
  const { type, assignment } = (impl ?? {}) as { type?: unknown; assignment?: unknown };
  if (typeof impl !== 'function' || type !== 'xstate.assign' || typeof assignment !== 'function')
    throw new UnsupportedMachineError(machine, `action ${JSON.stringify(typeof a === 'string' ? a : String(a))} is not an assign() of a function`);
  return assignment as Assignment;
}

/** Compiles `machine`'s synchronous steps; throws for a machine this module cannot step. */
export function compileSteps<C>(machine: AnyStateMachine): MachineSteps<C> {
  const nodes: AnyStateNode[] = [];
  const walk = (n: AnyStateNode) => {
    nodes.push(n);
    for (const c of Object.values(n.states) as AnyStateNode[]) walk(c);
  };
  walk(machine.root);
  for (const n of nodes) {
    if (n.type === 'parallel' || n.type === 'history' || n.type === 'final') throw new UnsupportedMachineError(machine, `state ${n.id} is ${n.type}`);
    if (n.always?.length || n.after.length) throw new UnsupportedMachineError(machine, `state ${n.id} has eventless or delayed transitions`);
  }
  // Per atomic node and event: its transitions, then each ancestor's (XState tries the deepest node first).
  const table = new Map<AnyStateNode, Map<string, Step[]>>();
  for (const atom of nodes) {
    if (atom.type !== 'atomic') continue;
    const byEvent = new Map<string, Step[]>();
    table.set(atom, byEvent);
    const fromPlain = lineage(atom).every(plain);
    for (let n: AnyStateNode | undefined = atom; n; n = n.parent) {
      for (const [event, transitions] of n.transitions) {
        if (event.startsWith('xstate.')) continue; // an invoked actor's done and error events: an actor's own
        if (event.includes('*')) throw new UnsupportedMachineError(machine, `state ${n.id} takes wildcard events (${event})`);
        const list = byEvent.get(event) ?? [];
        byEvent.set(event, list);
        for (const t of transitions) {
          if (t.target && t.target.length > 1) throw new UnsupportedMachineError(machine, `a transition of ${n.id} has ${t.target.length} targets`);
          const to = t.target ? atomicOf(t.target[0]!) : undefined;
          // Conservative: the whole branch left and the whole branch entered must be plain (neither is, for tier 3).
          const handOff = !fromPlain || (to !== undefined && !lineage(to).every(plain));
          list.push({ guard: guardOf(machine, t.guard), assignments: handOff ? [] : t.actions.map((a) => assignmentOf(machine, a)), to, handOff });
        }
      }
    }
  }
  const byValue = new Map<string, AnyStateNode>();
  const values = new Map<AnyStateNode, StateValue>();
  for (const n of table.keys()) {
    const path = n.path as string[];
    byValue.set(path.join('.'), n);
    // { a: { b: 'c' } } for a.b.c; 'a' for a top-level atomic state.
    values.set(n, path.slice(0, -1).reduceRight<StateValue>((v, k) => ({ [k]: v }), path[path.length - 1]!));
  }
  const keyOf = (v: StateValue): string => {
    if (typeof v === 'string') return v;
    const [k, child] = Object.entries(v)[0]!;
    return `${k}.${keyOf(child as StateValue)}`;
  };
  return {
    initial: atomicOf(machine.root),
    step(stand, event) {
      const list = table.get(stand.node)?.get(event.type);
      if (!list) return stand;
      for (const s of list) {
        if (s.guard && !s.guard({ context: stand.context, event }, undefined)) continue;
        if (s.handOff) return HAND_OFF;
        let context = stand.context;
        // As XState's assign: each sees the context the previous one left, and gets a new object.
        for (const a of s.assignments) context = { ...context, ...a({ context, event }, undefined) };
        return { node: s.to ?? stand.node, context };
      }
      return stand;
    },
    nodeAt(value) {
      const n = byValue.get(keyOf(value));
      if (!n) throw new Error(`machine ${machine.id}: no atomic state at ${JSON.stringify(value)}`);
      return n;
    },
    valueOf(node) {
      const v = values.get(node);
      if (v === undefined) throw new Error(`machine ${machine.id}: ${node.id} is not an atomic state of it`);
      return v;
    },
  };
}
