import type { AnyStateMachine, AnyStateNode } from 'xstate';

/**
 * A Mermaid state diagram of a machine's top-level states, generated from its definition: one arrow per
 * transition, labelled with its guard (or event), in definition order. Targetless transitions are drawn as
 * self-loops. Deterministic, so a test can check the committed `machines/*.mmd` against the machine.
 */
export function machineMermaid(machine: AnyStateMachine): string {
  const root = machine.root as AnyStateNode;
  const initial = (root.config as { initial?: string }).initial;
  const lines = ['stateDiagram-v2'];
  if (initial) lines.push(`  [*] --> ${initial}`);
  for (const node of Object.values(root.states) as AnyStateNode[]) {
    const defs = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
    for (const t of defs) {
      const guard = typeof t.guard === 'string' ? t.guard : (t.guard as { type?: string } | undefined)?.type;
      const event = t.eventType === '' ? 'always' : t.eventType.replace(/^xstate\.done\.actor\..*/, 'done').replace(/^xstate\.error\.actor\..*/, 'error');
      const label = guard ? `${event} [${guard}]` : event;
      const targets = t.target?.length ? t.target : [node];
      for (const target of targets) lines.push(`  ${node.key} --> ${(target as AnyStateNode).key}: ${label}`);
    }
    if (node.type === 'final') lines.push(`  ${node.key} --> [*]`);
    // A state's description (XState `description`) is drawn as a note beside it.
    if (node.description) lines.push(`  note right of ${node.key}: ${node.description.replace(/\s+/g, ' ')}`);
  }
  return `${lines.join('\n')}\n`;
}
