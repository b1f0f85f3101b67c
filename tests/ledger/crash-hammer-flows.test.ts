// `npm run crash`'s scenario B routes one run with two writers, HAMMER_ROUTES_PER_RUN routes at most: its flows must let
// such a run go on (at the shipped bounds it escalates after about 20 routes and every later route is refused).
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel, loadFlows } from '../../src/kernel/index.js';
import { sampleChartersDir } from '../../src/package-root.js';
import { hammerRequest } from '../../scripts/crash/harness.js';
import { CYCLES_PER_RUN, HAMMER_COUNT, HAMMER_ROUTES_PER_RUN, hammerCharters } from '../../scripts/crash/hammer-flows.js';
import { tempDir } from '../support/temp.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Routes one run as scenario B's writers do (each writer's requests in turn, all cycles), until a decision stops it. */
async function hammer(charters: string): Promise<{ routes: number; last: string; rule: string }> {
  const kernel = createKernel({ flows: await loadFlows(charters) });
  let routes = 0;
  let last = { decision: '', rule: '' };
  try {
    for (let cycle = 0; cycle < CYCLES_PER_RUN; cycle++)
      for (let i = 0; i < HAMMER_COUNT; i++)
        for (const writer of ['a', 'b']) {
          last = await kernel.route(hammerRequest('shared', `${writer}${cycle}`, i));
          routes++;
          if (last.decision === 'ESCALATE') return { routes, last: last.decision, rule: last.rule };
        }
  } finally {
    await kernel.close();
  }
  return { routes, last: last.decision, rule: last.rule };
}

describe("crash scenario B's flows", () => {
  it('let one run take every route the two writers send it; the shipped bounds stop it early (visit_cap)', async () => {
    const dir = tempDir('nk-hammer-');
    dirs.push(dir);
    const fitted = await hammer(hammerCharters(path.join(dir, 'charters')));
    expect(fitted).toMatchObject({ routes: HAMMER_ROUTES_PER_RUN, last: 'CONTINUE' });
    const shipped = await hammer(sampleChartersDir());
    expect(shipped.last).toBe('ESCALATE');
    expect(shipped.rule).toBe('visit_cap');
    expect(shipped.routes).toBeLessThan(50);
  });
});
