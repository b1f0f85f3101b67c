import { NavkernelError } from '../contracts/errors.js';
import type { Decision } from '../contracts/index.js';
import type { RouteWork } from './route-work.js';

/**
 * Last line of defence: every target a decision names exists. A failure here is a kernel bug, never bad input,
 * so it throws instead of returning a decision the runner would follow into nowhere.
 */
export function assertDecisionTargets(d: Decision, w: RouteWork): void {
  const bad = (what: string) => {
    throw new NavkernelError('INTERNAL_INVALID_DECISION', `kernel produced ${d.decision} with ${what}; refusing to return it (please report)`);
  };
  const flow = d.next_flow ? w.flows.get(d.next_flow) : w.flow;
  if (!flow) bad(`unknown next_flow ${d.next_flow}`);
  if (d.next_step_id !== null) {
    const injected = d.inject_nodes?.some((n) => n.id === d.next_step_id) || w.node?.point.nodes?.some((n) => n.id === d.next_step_id);
    if (!flow!.steps.has(d.next_step_id) && !injected) bad(`unknown next step ${d.next_step_id}`);
  } else if (d.decision !== 'ESCALATE' && d.decision !== 'TERMINATE') bad('no next step');
  if (d.detour_target !== undefined && !w.flow.steps.has(d.detour_target)) bad(`unknown detour target ${d.detour_target}`);
  if (d.inject_flow !== undefined && !w.flows.get(d.inject_flow)) bad(`unknown injected flow ${d.inject_flow}`);
}
