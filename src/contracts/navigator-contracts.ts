export * from './flight-plan.js';
export * from './navigator-capsule.js';
export * from './navigator-artifacts.js';
export { NAVIGATOR_SCHEMAS } from './navigator-schemas.js';
