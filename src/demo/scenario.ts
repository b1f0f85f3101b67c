/** How often things go wrong in a simulated run. Probabilities are per step run. */
export interface Scenario {
  name: string;
  /** Work items (runs); each goes through the whole flow sequence. */
  runs: number;
  /** Flows each run goes through, in order. */
  sequence: string[];
  /** A linear step fails. */
  linearFailure: number;
  /** A microloop step fails its check, on its first / later iterations. */
  loopFailureFirst: number;
  loopFailureLater: number;
  /** A failure carries a recognisable signature (lint, import, type, fixture) that tends to repeat. */
  signatureShare: number;
  /** A failing step's agent puts a recommendation in its envelope. */
  envelopeShare: number;
  /** A branch step reports a status outside its branches. */
  strayStatus: number;
  /** Runs (0-based) whose build step finds the branch diverged from upstream: forces one rebase injection. */
  divergedRuns: number[];
  seed: number;
}

/** The demo's default: a few hundred steps with realistic failures, loops, lint detours and one rebase. */
export const DEMO_SCENARIO: Scenario = {
  name: 'demo',
  runs: 6,
  sequence: ['signal', 'plan', 'build', 'review', 'gate', 'deploy'],
  linearFailure: 0.08,
  loopFailureFirst: 0.45,
  loopFailureLater: 0.25,
  signatureShare: 0.5,
  envelopeShare: 0.6,
  strayStatus: 0.05,
  divergedRuns: [2],
  seed: 5,
};

/** A harsher run: many failures, fewer helpful envelopes, frequent divergence. */
export const HARSH_SCENARIO: Scenario = {
  name: 'harsh',
  runs: 6,
  sequence: ['signal', 'plan', 'build', 'review', 'gate', 'deploy'],
  linearFailure: 0.3,
  loopFailureFirst: 0.75,
  loopFailureLater: 0.6,
  signatureShare: 0.7,
  envelopeShare: 0.3,
  strayStatus: 0.2,
  divergedRuns: [0, 2, 4],
  seed: 7,
};
