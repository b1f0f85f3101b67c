import { DEFAULT_BOUNDS } from '../../contracts/flow-bounds.js';
import { proveBounds, type BoundedCycle } from './bounds-proof.js';
import type { CompiledStep, FlowSet, FlowWarning } from './compiled-flow.js';

export type { FlowWarning } from './compiled-flow.js';

/** Whether some rule of the step decides `status` (lower-cased) without escalating for want of a rule. */
function handles(step: CompiledStep, status: string): boolean {
  if (step.def.terminal || step.loopTo) return true; // terminal: TERMINATE; a loop: exit, LOOP or the iteration cap
  if (step.branches.has(status)) return true;
  if (step.branched) return step.def.next !== undefined && (!step.failure.has(status) || step.failureDefault === 'warn');
  // A linear step: its successes continue; a declared failure escalates on purpose.
  return step.success.has(status) || step.failure.has(status);
}

/**
 * Statuses a step's agent reports (`statuses:`) that no rule of the step handles: each would be routed to tier 5
 * (ESCALATE, rule no_rule_applies) unless tier 3 or the envelope decides. Known only where the step says what its
 * agent reports; `navkernel flows validate` prints these as warnings. Also every cycle only the kernel's default visit cap
 * bounds (proveBounds: docs/bounds.md), with a witness path.
 */
export function flowWarnings(flows: FlowSet): FlowWarning[] {
  const out: FlowWarning[] = [];
  for (const flow of flows.flows.values()) {
    flow.def.steps.forEach((def, i) => {
      const step = flow.steps.get(def.id)!;
      for (const status of def.statuses ?? []) {
        if (handles(step, status.trim().toLowerCase())) continue;
        const fix = step.branched
          ? `add a branch for it (branches: {${status}: <step>})${step.def.next ? '' : ' or a next step as the default'}`
          : `declare it a success (success: [${status}]) or a failure (failure: [${status}]), or add a branch for it`;
        out.push({ code: 'unhandled_status', flow: flow.id, step: def.id, path: ['steps', i, 'statuses'], status, message: `step ${def.id} reports ${status}, which no rule of the step handles: it would ESCALATE (no_rule_applies); ${fix}` });
      }
    });
  }
  const proof = proveBounds(flows);
  for (const c of proof.unstated) out.push(unstatedBoundWarning(c));
  // Side trips that can nest deeper than the flow allows: such a run escalates at max_depth instead of going on.
  for (const d of proof.depth)
    if (d.depth > d.max_depth)
      out.push({
        code: 'depth_exceeds',
        flow: d.flow,
        step: flows.get(d.flow)!.firstStep,
        path: ['bounds', 'max_depth'],
        depth: d.depth,
        max_depth: d.max_depth,
        message: `side trips in a run of ${d.flow} can nest ${d.depth} deep (detours and injected flows inside injected flows), more than its max_depth of ${d.max_depth}: such a run escalates there; raise max_depth or inject less deeply`,
      });
  return out;
}

/** The warning for a cycle only the kernel's default visit cap bounds: the witness path and how to state a bound. */
export function unstatedBoundWarning(c: BoundedCycle): FlowWarning {
  const sideTrips = c.witness.some((e) => e.kind === 'detour' || e.kind === 'inject' || e.kind === 'nodes');
  const what = c.sideTrip
    ? `side trips from ${c.steps.length > 1 ? `steps ${c.steps.join(', ')}` : `step ${c.steps[0]}`} (cycle ${c.text})`
    : `cycle ${c.text}${c.steps.length > 1 ? ` (steps ${c.steps.join(', ')})` : ''}`;
  const why = sideTrips ? '; a side trip may be chosen at any route (by the envelope or the navigator), and each return is a visit' : '';
  return {
    code: 'unstated_bound',
    flow: c.flow,
    step: c.witness[0]!.from.step,
    path: c.path,
    steps: c.steps,
    witness: c.witness,
    bound: c.bound,
    message: `${what} ${c.sideTrip && c.steps.length > 1 ? 'are' : 'is'} bounded only by the kernel's default of ${c.bound.value} visits per step (and ${DEFAULT_BOUNDS.max_routes} routes per run)${why}; state max_visits on ${c.steps.length > 1 ? 'its steps' : 'the step'}, or bounds.max_visits on the flow`,
  };
}
