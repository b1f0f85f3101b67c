import { FlightPlan } from './flight-plan.js';
import { CompressionReport, ContextLoadReceipt, NavigationMap } from './navigator-artifacts.js';
import { CnfCapsule, MagicWordRecord } from './navigator-capsule.js';

/** The navigator's published models (spread into SCHEMA_REGISTRY). */
export const NAVIGATOR_SCHEMAS = [
  { name: 'cnf-capsule', schema: CnfCapsule, io: 'input' as const },
  { name: 'magic-word-record', schema: MagicWordRecord, io: 'input' as const },
  { name: 'flight-plan', schema: FlightPlan, io: 'input' as const },
  { name: 'navigation-map', schema: NavigationMap, io: 'output' as const },
  { name: 'context-load-receipt', schema: ContextLoadReceipt, io: 'output' as const },
  { name: 'compression-report', schema: CompressionReport, io: 'output' as const },
];
