import type { z } from 'zod';
import { RouteRequest } from './route-request.js';
import { Decision } from './decision.js';
import { Flow } from './flow.js';
import { CandidateMove } from './candidate.js';
import { LlmCallRecord } from './llm-call.js';
import { NAVIGATOR_SCHEMAS } from './navigator-schemas.js';
import { LEDGER_SCHEMAS } from './ledger.js';
import { LLM_SCHEMAS } from '../llm/llm-schemas.js';
import { EXPLORER_SCHEMAS } from './explorer-contracts.js';
import { SERVICE_SCHEMAS } from './service-api.js';

/** A published model: `schemas/<name>.schema.json` is generated from `schema`. */
export interface RegisteredSchema {
  name: string;
  schema: z.ZodType;
  /** 'input' for documents users write (defaults optional), 'output' for documents navkernel writes. */
  io: 'input' | 'output';
}

/** Every model published under `schemas/`. Add one line per model; `npm run schemas` regenerates the files. */
export const SCHEMA_REGISTRY: RegisteredSchema[] = [
  { name: 'route-request', schema: RouteRequest, io: 'input' },
  { name: 'decision', schema: Decision, io: 'output' },
  { name: 'flow', schema: Flow, io: 'input' },
  { name: 'candidate-move', schema: CandidateMove, io: 'output' },
  { name: 'llm-call-record', schema: LlmCallRecord, io: 'output' },
  ...NAVIGATOR_SCHEMAS,
  ...LEDGER_SCHEMAS,
  ...LLM_SCHEMAS,
  ...EXPLORER_SCHEMAS,
  ...SERVICE_SCHEMAS,
];
