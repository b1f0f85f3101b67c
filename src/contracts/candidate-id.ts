import type { DecisionKind } from './decision.js';

/**
 * The stable id of a candidate move, built in this one place: `continue:<step>`, `loop:<step>`,
 * `detour:<step>`, `inject_flow:<flow>`, `inject_nodes`, `escalate`, `terminate`. `target` is the step or flow the
 * move leads to (ignored for the moves without one).
 */
export function candidateId(kind: DecisionKind, target?: string | null): string {
  switch (kind) {
    case 'CONTINUE':
      return `continue:${target}`;
    case 'LOOP':
      return `loop:${target}`;
    case 'DETOUR':
      return `detour:${target}`;
    case 'INJECT_FLOW':
      return `inject_flow:${target}`;
    case 'INJECT_NODES':
      return 'inject_nodes';
    case 'ESCALATE':
      return 'escalate';
    case 'TERMINATE':
      return 'terminate';
  }
}
