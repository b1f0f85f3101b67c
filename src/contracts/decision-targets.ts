import type { Decision } from './decision.js';

/** The optional "where to" fields of a decision. */
export type DecisionTargets = Pick<Decision, 'next_flow' | 'detour_target' | 'inject_flow' | 'inject_nodes' | 'return_to' | 'signature'>;

/**
 * The optional "where to" fields a decision carries, only those set, always in this order (next_flow,
 * detour_target, inject_flow, inject_nodes, return_to, signature): records built from it are byte-stable.
 */
export function decisionTargets(d: Decision): DecisionTargets {
  const t: DecisionTargets = {};
  if (d.next_flow !== undefined) t.next_flow = d.next_flow;
  if (d.detour_target !== undefined) t.detour_target = d.detour_target;
  if (d.inject_flow !== undefined) t.inject_flow = d.inject_flow;
  if (d.inject_nodes !== undefined) t.inject_nodes = d.inject_nodes;
  if (d.return_to !== undefined) t.return_to = d.return_to;
  if (d.signature !== undefined) t.signature = d.signature;
  return t;
}
