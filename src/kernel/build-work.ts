import { ARBITER_UNAVAILABLE } from '../contracts/arbiter-rules.js';
import { ValidationError } from '../contracts/errors.js';
import type { ReturnPoint, RouteRequest, RunState } from '../contracts/index.js';
import type { FlowSet } from './flows/compiled-flow.js';
import type { RouteWork } from './route-work.js';
import { inputWarnings } from './request-guard.js';
import { didYouMean, suggest } from '../contracts/nearest-name.js';
import { forensicIssues, forensicWarnings } from './forensic-checks.js';

/** The injected node `step` is, if the run is inside injected nodes of this flow. */
function findInjectedNode(state: RunState, flow: string, step: string): { point: ReturnPoint; index: number } | undefined {
  const top = state.returns[state.returns.length - 1];
  if (top?.via !== 'nodes' || top.flow !== flow || !top.nodes) return undefined;
  const index = top.nodes.findIndex((n) => n.id === step);
  return index >= 0 ? { point: top, index } : undefined;
}

/** Resolves a validated request against the flows and the run state. Unknown flow or step is bad input. */
export function buildRouteWork(request: RouteRequest, flows: FlowSet, state: RunState, ts: string, hasArbiter: boolean): RouteWork {
  const flow = flows.get(request.flow);
  if (!flow)
    throw new ValidationError('INVALID_REQUEST', 'route()', [
      { path: ['flow'], code: 'unknown_flow', message: `expected one of the loaded flows (${[...flows.flows.keys()].join(', ')}), got "${request.flow}"${didYouMean(request.flow, flows.flows.keys())}`, flow: request.flow, ...suggest(request.flow, flows.flows.keys()) },
    ]);
  const step = flow.steps.get(request.step_completed);
  const node = step ? undefined : findInjectedNode(state, flow.id, request.step_completed);
  if (!step && !node)
    throw new ValidationError('INVALID_REQUEST', 'route()', [
      {
        path: ['step_completed'],
        code: 'unknown_step',
        step: request.step_completed,
        ...suggest(request.step_completed, flow.steps.keys()),
        message: `expected a step of flow ${flow.id} (${[...flow.steps.keys()].join(', ')}), got "${request.step_completed}"${didYouMean(request.step_completed, flow.steps.keys())}`,
      },
    ]);
  const loopKey = step ? step.key : `${flow.id}/${request.step_completed}`;
  const iteration = Math.max(request.iteration?.current ?? 1, 1 + (state.loops[loopKey] ?? 0));
  const max = step?.def.loop?.max_iterations ?? request.iteration?.max ?? null;
  const w: RouteWork = {
    request,
    flows,
    flow,
    step,
    loopKey,
    status: request.status.trim().toLowerCase(),
    seq: state.seq + 1,
    iteration,
    max,
    state,
    ts,
    rejected: [],
    skipped: [],
    memo: {},
  };
  if (node) w.node = node;
  const notes = inputWarnings.get(request);
  if (notes) w.notes = notes;
  // Misspelt fields and contradicting numbers (src/kernel/forensic-checks.ts): said in the decision, never guessed at.
  if (request.forensics !== undefined || request.iteration !== undefined || request.envelope !== undefined) {
    const issues = forensicIssues(request);
    if (issues.length) w.notes = [...(w.notes ?? []), ...forensicWarnings(issues)];
  }
  // A proposed next step that is no edge is refused whichever tier decides (tier 1 may decide by another rule).
  const proposed = request.envelope?.next_step_id;
  if (step && proposed && !step.edges.has(proposed))
    w.rejected.push({ tier: 2, rule: 'graph_constraint', decision: 'CONTINUE', target: proposed, why: flow.steps.has(proposed) ? `${proposed} is not an edge from ${step.id}` : `${proposed} is not a step of flow ${flow.id}` });
  if (!hasArbiter) w.skipped.push({ tier: 3, rule: ARBITER_UNAVAILABLE, reason: 'no arbiter configured (createKernel({ arbiter }) or navkernel route --llm)' });
  return w;
}
