// The sample charters with the build flow's bounds raised, for tests of the ledger's mechanics (writer threads, the
// WAL, crash safety, several processes on one run) that need one run to take hundreds of routes. With the shipped
// bounds such a run escalates (visit_cap, route_budget) and waits for a person: the bounds are tested in
// tests/kernel/run-states.test.ts and whole-runs.property.test.ts, not here.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { loadFlows, type FlowSet } from '../../src/kernel/index.js';
import { CHARTERS } from './kernel-fixtures.js';
import { tempDir } from './temp.js';

/** How far a long run may go: far beyond what any of these tests routes on one run. */
export const LONG_RUN_BOUND = 1_000_000;

/** A temp copy of the sample charters whose build flow bounds every run at LONG_RUN_BOUND routes and visits. */
export function longRunCharters(): string {
  const dir = tempDir('nk-long-run-charters-');
  cpSync(CHARTERS, dir, { recursive: true });
  const file = path.join(dir, 'build.yaml');
  const build = parse(readFileSync(file, 'utf8')) as { steps: { max_visits?: number }[]; bounds: Record<string, number> };
  for (const step of build.steps) delete step.max_visits;
  build.bounds = { ...build.bounds, max_visits: LONG_RUN_BOUND, max_routes: LONG_RUN_BOUND };
  writeFileSync(file, stringify(build));
  return dir;
}

/** The flows of longRunCharters(). */
export const longRunFlows = (): Promise<FlowSet> => loadFlows(longRunCharters());
