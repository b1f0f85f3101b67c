import type { RegisteredSchema } from '../contracts/registered-schema.js';
import { PricingTable } from './pricing.js';
import { ScriptedScript } from './scripted-script.js';

/** Models of src/llm published under `schemas/` (files users write: a pricing table, a scripted model's answers). */
export const LLM_SCHEMAS: RegisteredSchema[] = [
  { name: 'llm-pricing-table', schema: PricingTable, io: 'input' },
  { name: 'scripted-llm-script', schema: ScriptedScript, io: 'input' },
];
