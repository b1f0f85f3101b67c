import type { AnyStateMachine, AnyStateNode } from 'xstate';

/**
 * A Mermaid state diagram of a machine, generated from its definition: one arrow per transition, labelled with its
 * guard (or event), in definition order. Targetless transitions are drawn as self-loops. A compound state is drawn
 * as a composite state (`state routing { … }`) holding its children, with its own transitions outside it.
 * Deterministic, so a test can check the committed `machines/*.mmd` against the machine.
 */
export function machineMermaid(machine: AnyStateMachine): string {
  const root = machine.root as AnyStateNode;
  const lines = ['stateDiagram-v2'];
  drawChildren(root, lines, '  ');
  return `${lines.join('\n')}\n`;
}

function drawChildren(parent: AnyStateNode, lines: string[], indent: string): void {
  const initial = (parent.config as { initial?: string }).initial;
  if (initial) lines.push(`${indent}[*] --> ${initial}`);
  for (const node of Object.values(parent.states) as AnyStateNode[]) {
    if (Object.keys(node.states).length > 0) {
      lines.push(`${indent}state ${node.key} {`);
      drawChildren(node, lines, `${indent}  `);
      lines.push(`${indent}}`);
    }
    const defs = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
    for (const t of defs) {
      const guard = typeof t.guard === 'string' ? t.guard : (t.guard as { type?: string } | undefined)?.type;
      const event = t.eventType === '' ? 'always' : t.eventType.replace(/^xstate\.done\.actor\..*/, 'done').replace(/^xstate\.error\.actor\..*/, 'error');
      const label = guard ? `${event} [${guard}]` : event;
      const targets = t.target?.length ? t.target : [node];
      for (const target of targets) lines.push(`${indent}${node.key} --> ${(target as AnyStateNode).key}: ${label}`);
    }
    if (node.type === 'final') lines.push(`${indent}${node.key} --> [*]`);
    // A state's description (XState `description`) is drawn as a note beside it.
    if (node.description) lines.push(`${indent}note right of ${node.key}: ${node.description.replace(/\s+/g, ' ')}`);
  }
}
