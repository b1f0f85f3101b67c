// The run's bounds, held while it runs (docs/run-states.md, docs/bounds.md): every decision a tier commits passes
// here first. A decision that would send the run past one of its bounds becomes ESCALATE, so no run loops on:
//   route_budget  the run's routes past its flow's bounds.max_routes (the flow it started in)
//   depth_cap     a detour or injection nested deeper than the flow's bounds.max_depth
//   visit_cap     a step the run would be sent to more often than its max_visits (never reset over the run)
import type { Decision } from '../contracts/decision.js';
import type { RunPosition, RunState } from '../contracts/ports.js';
import type { CompiledFlow } from './flows/compiled-flow.js';
import { decide, type RouteWork, type TierResult } from './route-work.js';

/** How many of the last steps a run was sent to its state keeps (`trail`), to name the cycle at a visit cap. */
export const TRAIL_LENGTH = 6;

/** The key of a step in `visits` and `trail`. */
export const visitKey = (p: RunPosition): string => `${p.flow}/${p.step}`;

/** Where a decision sends the run (null: nowhere, it ends or waits for a person). */
export function destinationOf(d: Decision, flowId: string): RunPosition | null {
  switch (d.decision) {
    case 'TERMINATE':
    case 'ESCALATE':
      return null;
    case 'INJECT_NODES':
      return { flow: flowId, step: d.inject_nodes![0]!.id };
    default:
      return d.next_step_id === null ? null : { flow: d.next_flow ?? flowId, step: d.next_step_id };
  }
}

/** The flow whose max_routes caps the run: the one it started in (else the one routed now). */
function startFlow(w: RouteWork): CompiledFlow {
  const started = w.state.started_in;
  return (started !== undefined ? w.flows.get(started) : undefined) ?? w.flow;
}

/**
 * Where a decision sends the run, as the flows know it: its key in `visits` and `trail` (the compiled step's own, so
 * no key string is built per route) and its visit cap (its max_visits, else its flow's bounds, else the default).
 */
export function destinationFacts(w: RouteWork, to: RunPosition): { key: string; maxVisits: number } {
  const flow = to.flow === w.flow.id ? w.flow : w.flows.get(to.flow);
  const step = flow?.steps.get(to.step);
  return { key: step?.key ?? visitKey(to), maxVisits: step?.maxVisits ?? (flow ?? w.flow).bounds.max_visits };
}

const ordinal = (n: number) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;

/** The cycle a run keeps taking back to `key`: the steps it was sent to since its last visit there, then `key`. */
export function cycleTo(state: RunState, key: string, currentFlow: string): string {
  const trail = state.trail ?? [];
  const from = trail.lastIndexOf(key);
  const steps = from >= 0 ? trail.slice(from) : [...(trail.length ? ['…'] : []), ...trail.slice(-3)];
  const name = (k: string) => (k.startsWith(`${currentFlow}/`) ? k.slice(currentFlow.length + 1) : k);
  return [...steps, key].map(name).join(' → ');
}

/** The ESCALATE that replaces a decision past a bound, with the move it replaces in `rejected`. */
function refuse(w: RouteWork, d: Decision, to: RunPosition, rule: string, why: string, reason: string): TierResult {
  w.rejected.push({ tier: d.tier, rule, decision: d.decision, target: d.detour_target ?? d.inject_flow ?? to.step, why });
  return { decision: decide(w, 'ESCALATE', 2, rule, reason, { confidence: 1 }) };
}

/**
 * The decision the run may take: `result` itself when it stays within the run's bounds, else an ESCALATE naming the
 * bound, the count and (for a visit cap) the cycle. Only decisions that send the run on are held; TERMINATE and
 * ESCALATE always pass.
 */
export function holdBounds(w: RouteWork, result: TierResult): TierResult {
  const d = result.decision;
  const to = destinationOf(d, w.flow.id);
  if (to === null) return result;
  const maxRoutes = startFlow(w).bounds.max_routes;
  if (w.seq > maxRoutes)
    return refuse(w, d, to, 'route_budget', `route ${w.seq} is past the run's budget of ${maxRoutes} routes`, `the run has taken ${w.seq} routes, past its budget of ${maxRoutes} (bounds.max_routes of flow ${startFlow(w).id}); ${d.decision} to ${to.step} held; a person decides`);
  if (d.decision === 'DETOUR' || d.decision === 'INJECT_FLOW' || d.decision === 'INJECT_NODES') {
    const depth = w.state.returns.length + 1;
    const maxDepth = w.flow.bounds.max_depth;
    if (depth > maxDepth) {
      const nest = [...w.state.returns.map((p) => `${p.flow}/${p.step}`), `${w.flow.id}/${w.request.step_completed}`].join(' → ');
      return refuse(w, d, to, 'depth_cap', `nesting depth ${depth} is past ${maxDepth}`, `${d.decision} to ${to.step} would nest side trips ${depth} deep, past bounds.max_depth ${maxDepth} of flow ${w.flow.id} (${nest}); a person decides`);
    }
  }
  const { key, maxVisits: cap } = destinationFacts(w, to);
  const visits = (w.state.visits?.[key] ?? 0) + 1;
  if (visits > cap) {
    const cycle = cycleTo(w.state, key, w.flow.id);
    return refuse(w, d, to, 'visit_cap', `${to.step} would be visited a ${ordinal(visits)} time, past its max_visits ${cap}`, `${to.step} would be visited a ${ordinal(visits)} time, past its max_visits ${cap}: the run keeps taking the cycle ${cycle}; a person decides`);
  }
  return result;
}
