// The flows scenario B hammers (`npm run crash`): the sample charters with the build flow bounded to fit the hammer.
// Scenario B tests crash safety with two writers on one run, so one run takes up to HAMMER_ROUTES_PER_RUN routes; at
// the shipped bounds (12 visits a step, 300 routes a run) such a run escalates after about 20 routes and every later
// route is refused (ESCALATION_OPEN), which is not what B tests. The bounds themselves are tested in
// tests/kernel/run-states.test.ts and whole-runs.property.test.ts.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { sampleChartersDir } from '../../src/package-root.js';

/** Requests each writer of scenario B routes per child, and cycles (pairs of children) before moving to a new run. */
export const HAMMER_COUNT = 40;
export const CYCLES_PER_RUN = 20;
/** The most routes one run of scenario B can record: two writers, each request id recorded once. */
export const HAMMER_ROUTES_PER_RUN = 2 * CYCLES_PER_RUN * HAMMER_COUNT;

/**
 * Writes the sample charters into `dir` with the build flow's bounds fitted to scenario B, and returns `dir`: at most
 * HAMMER_ROUTES_PER_RUN routes a run, and as many visits a step as the hammer can send there (it reports the four
 * build steps in turn, so each step it sends the run to gets a quarter of the routes).
 */
export function hammerCharters(dir: string): string {
  cpSync(sampleChartersDir(), dir, { recursive: true });
  const file = path.join(dir, 'build.yaml');
  const build = parse(readFileSync(file, 'utf8')) as { steps: { max_visits?: number }[]; bounds: Record<string, number> };
  for (const step of build.steps) delete step.max_visits;
  build.bounds = { ...build.bounds, max_routes: HAMMER_ROUTES_PER_RUN, max_visits: HAMMER_ROUTES_PER_RUN / 4 };
  writeFileSync(file, stringify(build));
  return dir;
}
