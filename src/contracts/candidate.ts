import { z } from 'zod';
import { DecisionKind } from './decision.js';

/**
 * One legal move the kernel offers tier 3 for the step just completed. Ids are stable strings:
 * `continue:<step>`, `loop:<step>`, `detour:<step>`, `inject_flow:<flow>`, `inject_nodes`, `escalate`, `terminate`.
 */
export const CandidateMove = z.object({
  id: z.string().min(1),
  decision: DecisionKind,
  target: z.string().nullable().describe('Step or flow the move leads to; null for escalate / terminate / inject_nodes'),
  description: z.string(),
  fixes: z
    .string()
    .optional()
    .describe("Present on a DETOUR / INJECT_FLOW that is the flow's declared fix for this route's failure signature (the signature id): such a move needs no other purpose to pass goal alignment"),
});
export type CandidateMove = z.infer<typeof CandidateMove>;
