/**
 * The closed routing vocabulary of seed 003. Nothing else is ever returned. A plain array (no zod) so that the
 * kernel can check it at run time without loading the schema library.
 */
export const DECISION_KINDS = ['CONTINUE', 'LOOP', 'DETOUR', 'INJECT_FLOW', 'INJECT_NODES', 'ESCALATE', 'TERMINATE'] as const;

/**
 * Whether a decision counts as off-road in a run's summary (`runs`, `audit`, the UI): anything but CONTINUE, except
 * the normal end of a run, TERMINATE at a terminal step (rule `terminal_step`), so a clean run shows 0. The seed's
 * decisions.jsonl still logs every non-CONTINUE decision, the normal end included (docs/ledger.md).
 */
export function isOffroad(d: { decision: string; rule: string }): boolean {
  return d.decision !== 'CONTINUE' && !(d.decision === 'TERMINATE' && d.rule === 'terminal_step');
}
