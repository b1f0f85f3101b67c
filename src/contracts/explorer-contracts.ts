import type { RegisteredSchema } from './registered-schema.js';
import { FlightPlanDiff } from './flight-plan.js';
import { NavigatorOutput, TurnReport } from './explorer-report.js';
import { BudgetConfig, DecisionLogEntry, MapMetadata, ModelPricingRates, NavigatorState } from './explorer-state.js';

export * from './explorer-state.js';
export * from './explorer-report.js';

/** The explorer's published models (spread into SCHEMA_REGISTRY). */
export const EXPLORER_SCHEMAS: RegisteredSchema[] = [
  { name: 'navigator-state', schema: NavigatorState, io: 'input' },
  { name: 'budget-config', schema: BudgetConfig, io: 'input' },
  { name: 'model-pricing-rates', schema: ModelPricingRates, io: 'input' },
  { name: 'decision-log-entry', schema: DecisionLogEntry, io: 'input' },
  { name: 'map-metadata', schema: MapMetadata, io: 'output' },
  { name: 'flight-plan-diff', schema: FlightPlanDiff, io: 'input' },
  { name: 'turn-report', schema: TurnReport, io: 'output' },
  { name: 'navigator-output', schema: NavigatorOutput, io: 'output' },
];
