/**
 * The closed routing vocabulary of seed 003. Nothing else is ever returned. A plain array (no zod) so that the
 * kernel can check it at run time without loading the schema library.
 */
export const DECISION_KINDS = ['CONTINUE', 'LOOP', 'DETOUR', 'INJECT_FLOW', 'INJECT_NODES', 'ESCALATE', 'TERMINATE'] as const;
