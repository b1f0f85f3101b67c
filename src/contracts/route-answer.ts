import { z } from 'zod';
import { Decision } from './decision.js';
import { ERROR_CODE_LIST } from './error-codes.js';

/** The co-process's answer to a line it could not route (`navkernel route`, docs/coprocess.md). */
export const RouteErrorLine = z
  .object({
    error: z
      .object({
        code: z.enum(ERROR_CODE_LIST as [string, ...string[]]).describe('Stable error class (src/contracts/error-codes.ts); match on it, not on the message'),
        message: z.string(),
        path: z.array(z.union([z.string(), z.int()])).optional().describe("Where the offending value is: keys and indexes from the request's root, e.g. ['forensics', 'tests', 'failed']"),
        line: z.int().min(1).describe('1-based line of the input this answers'),
      })
      .strict(),
    request_id: z.string().optional().describe("The request's request_id, when it could be read"),
    run_id: z.string().optional().describe("The request's run_id, when it could be read"),
  })
  .strict();
export type RouteErrorLine = z.infer<typeof RouteErrorLine>;

/** The co-process's answer to a routed line: the decision, with the request's run_id and request_id echoed. */
export const RouteAnswerLine = Decision.extend({
  run_id: z.string().describe("The request's run_id"),
  request_id: z.string().optional().describe("The request's request_id, when it had one"),
});
export type RouteAnswerLine = z.infer<typeof RouteAnswerLine>;
