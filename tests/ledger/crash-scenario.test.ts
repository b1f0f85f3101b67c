import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_DIST_PARTS, childScript } from '../../scripts/crash/harness.js';
import { scenarioA } from '../../scripts/crash/scenarios.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { sampleFlows } from './helpers.js';

// `npm run crash`'s scenario A on a few kills: its own checks must pass on a sound ledger, the comparison with an
// uninterrupted run included. A simulated run of several flows routes each under a run id of its own (`…-f2`), and
// the reference must count each run id's requests from its first, as the child does.
const SNAPSHOT = path.join(ROOT, 'runs', `.crash-scenario-dist-${process.pid}`);
let dir: string;
beforeAll(() => {
  for (const part of CHILD_DIST_PARTS) cpSync(path.join(ROOT, 'dist', part), path.join(SNAPSHOT, part), { recursive: true });
  dir = mkdtempSync(path.join(os.tmpdir(), 'navkernel-crash-scenario-'));
});
afterAll(() => {
  rmSync(SNAPSHOT, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run crash, scenario A', () => {
  it('finds every recorded decision equal to the uninterrupted reference, runs of later flows included', async () => {
    const figures = await scenarioA({ file: path.join(dir, 'ledger.sqlite'), dir, child: childScript(SNAPSHOT), cwd: ROOT, flows: await sampleFlows(), kills: 3, seed: 7 });
    expect(figures.errors).toEqual([]);
    expect(figures.routes).toBeGreaterThan(0);
    expect(figures.lost).toBe(0);
    expect(figures.referenceMismatches).toBe(0);
    expect(figures.ok).toBe(true);
  }, 300_000);
});
