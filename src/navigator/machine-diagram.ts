import type { AnyStateNode } from 'xstate';
import { navigatorMachine } from '../../machines/navigator.machine.js';

/** Mermaid state diagram of the navigator machine, generated from its definition (machines/navigator.machine.mmd). */
export function navigatorMermaid(): string {
  const lines = ['stateDiagram-v2', '  [*] --> INIT'];
  for (const node of Object.values(navigatorMachine.root.states) as AnyStateNode[]) {
    const defs = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
    for (const t of defs) {
      const guard = typeof t.guard === 'string' ? t.guard : (t.guard as { type?: string } | undefined)?.type;
      const label = guard ?? (t.eventType === '' ? 'always' : t.eventType.replace(/^xstate\.done\.actor\./, 'done: '));
      for (const target of t.target ?? []) lines.push(`  ${node.key} --> ${target.key}: ${label}`);
    }
    if (node.type === 'final') lines.push(`  ${node.key} --> [*]`);
  }
  return `${lines.join('\n')}\n`;
}
