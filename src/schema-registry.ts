// Every published model, gathered above both the contracts and the LLM layer (which publishes the pricing table
// and the scripted model's script), so neither imports the other for it.
import { RouteRequest } from './contracts/route-request.js';
import { Decision } from './contracts/decision.js';
import { Flow } from './contracts/flow.js';
import { CandidateMove } from './contracts/candidate.js';
import { LlmCallRecord } from './contracts/llm-call.js';
import { RouteAnswerLine, RouteErrorLine } from './contracts/route-answer.js';
import { NAVIGATOR_SCHEMAS } from './contracts/navigator-schemas.js';
import { LEDGER_SCHEMAS } from './contracts/ledger.js';
import { LLM_SCHEMAS } from './llm/llm-schemas.js';
import { EXPLORER_SCHEMAS } from './contracts/explorer-contracts.js';
import { SERVICE_SCHEMAS } from './contracts/service-api.js';
import type { RegisteredSchema } from './contracts/registered-schema.js';

export type { RegisteredSchema };

/** Every model published under `schemas/`. Add one line per model; `npm run schemas` regenerates the files. */
export const SCHEMA_REGISTRY: RegisteredSchema[] = [
  { name: 'route-request', schema: RouteRequest, io: 'input' },
  { name: 'decision', schema: Decision, io: 'output' },
  { name: 'route-answer-line', schema: RouteAnswerLine, io: 'output' },
  { name: 'route-error-line', schema: RouteErrorLine, io: 'output' },
  { name: 'flow', schema: Flow, io: 'input' },
  { name: 'candidate-move', schema: CandidateMove, io: 'output' },
  { name: 'llm-call-record', schema: LlmCallRecord, io: 'output' },
  ...NAVIGATOR_SCHEMAS,
  ...LEDGER_SCHEMAS,
  ...LLM_SCHEMAS,
  ...EXPLORER_SCHEMAS,
  ...SERVICE_SCHEMAS,
];
