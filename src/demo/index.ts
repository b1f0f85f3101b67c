export { simulate, flowSequence, type SimulatedStep, type SimulationSummary } from './simulate.js';
export { DEMO_SCENARIO, HARSH_SCENARIO, type Scenario } from './scenario.js';
export { seededRandom } from './prng.js';
