import type { CompiledStep, FlowSet } from './compiled-flow.js';

/** Something in a valid flow that will not route as its author likely expects (not an error: the flow loads). */
export interface FlowWarning {
  flow: string;
  step: string;
  /** JSON path in the flow file. */
  path: string;
  message: string;
}

/** Whether some rule of the step decides `status` (lower-cased) without escalating for want of a rule. */
function handles(step: CompiledStep, status: string): boolean {
  if (step.def.terminal || step.loopTo) return true; // terminal: TERMINATE; a loop: exit, LOOP or the iteration cap
  if (step.branches.has(status)) return true;
  if (step.branches.size) return step.def.next !== undefined && (!step.failure.has(status) || step.failureDefault === 'warn');
  // A linear step: its successes continue; a declared failure escalates on purpose.
  return step.success.has(status) || step.failure.has(status);
}

/**
 * Statuses a step's agent reports (`statuses:`) that no rule of the step handles: each would be routed to tier 5
 * (ESCALATE, rule no_rule_applies) unless tier 3 or the envelope decides. Known only where the step says what its
 * agent reports; `navkernel validate` prints these as warnings.
 */
export function flowWarnings(flows: FlowSet): FlowWarning[] {
  const out: FlowWarning[] = [];
  for (const flow of flows.flows.values()) {
    flow.def.steps.forEach((def, i) => {
      const step = flow.steps.get(def.id)!;
      for (const status of def.statuses ?? []) {
        if (handles(step, status.trim().toLowerCase())) continue;
        const fix = step.branches.size
          ? `add a branch for it (branches: {${status}: <step>})${step.def.next ? '' : ' or a next step as the default'}`
          : `declare it a success (success: [${status}]) or a failure (failure: [${status}]), or add a branch for it`;
        out.push({ flow: flow.id, step: def.id, path: `$.steps[${i}].statuses`, message: `step ${def.id} reports ${status}, which no rule of the step handles: it would ESCALATE (no_rule_applies); ${fix}` });
      }
    });
  }
  return out;
}
