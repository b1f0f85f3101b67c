// `navkernel runs upgrade` on both stores: refused without a mapping (typed, nothing recorded), done with one, the
// automatic policy (`--from HASH --if-unaffected`) moving only runs nothing changed for; bare `navkernel runs` still lists.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FlowInput } from '../../src/contracts/index.js';
import { createKernel, defineFlows } from '../../src/kernel/index.js';
import { runCliHere } from '../support/cli.js';
import { SHIP_V1, STORES, dropStore, flowFolders, openLedgerAt, ship, tmp } from './fixtures.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** v1 with only ship's polish step given to another agent: `sync` is unchanged. */
const V1B: FlowInput[] = SHIP_V1.map((f) => (f.flow !== 'ship' ? f : { ...f, steps: f.steps.map((s) => (s.id === 'polish' ? { ...s, agent: 'stylist' } : s)) }));

describe.each(STORES)('navkernel runs upgrade on $name', ({ location }) => {
  it('refuses without a mapping, upgrades with one, and --if-unaffected moves only the runs nothing changed for', async () => {
    const dir = tmp();
    const at = location(dir);
    const f = flowFolders();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => dropStore(at), f.rm);
    const v1b = path.join(f.dir, 'v1b');
    mkdirSync(v1b);
    for (const fl of V1B) writeFileSync(path.join(v1b, `${fl.flow}.json`), JSON.stringify(fl));
    const v1 = defineFlows(SHIP_V1);
    const k = createKernel({ flows: v1, store: openLedgerAt(at) });
    await k.route(ship('at-review', 'draft', 'SUCCEEDED'));
    await k.route({ run_id: 'syncing', flow: 'sync', step_completed: 'pull', status: 'SUCCEEDED' });
    await k.close();

    const refused = await runCliHere(['runs', 'upgrade', 'at-review', '--to', f.v2, '--by', 'ann', '--ledger', at, '--json']);
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'UPGRADE_REFUSED' } });
    expect(refused.stdout).toMatch(/ship\/review/);

    const done = await runCliHere(['runs', 'upgrade', 'at-review', '--to', f.v2, '--map', 'review=critique', '--by', 'ann', '--reason', 'ship v2', '--ledger', at, '--json']);
    expect(done.code, done.stderr + done.stdout).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ run_id: 'at-review', upgraded: { from_flows: v1.hash, by: 'ann', reason: 'ship v2' } });

    // The policy: `syncing` uses only sync, which v1b leaves as it is; `at-review` is on v2 now, so not on v1 any more.
    const auto = await runCliHere(['runs', 'upgrade', '--from', v1.hash.slice(0, 8), '--to', v1b, '--if-unaffected', '--by', 'policy', '--ledger', at, '--json']);
    expect(auto.code, auto.stderr + auto.stdout).toBe(0);
    const lines = auto.stdout.trim().split('\n').map((l) => JSON.parse(l) as { run_id: string; upgraded?: unknown });
    expect(lines.map((l) => l.run_id)).toEqual(['syncing']);
    expect(lines[0]!.upgraded).toMatchObject({ to_flows: defineFlows(V1B).hash, by: 'policy' });

    const listing = await runCliHere(['runs', '--ledger', at, '--json']);
    expect(listing.code, listing.stderr).toBe(0);
    expect(listing.stdout.trim().split('\n')).toHaveLength(2);
    const verify = await runCliHere(['verify', '--ledger', at]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });
});

describe('navkernel runs upgrade on a ledger that does not exist', () => {
  it('is refused with LEDGER_NOT_FOUND and creates nothing (a mistyped path is not a new empty ledger)', async () => {
    const dir = tmp();
    const f = flowFolders();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), f.rm);
    const missing = path.join(dir, 'mistyped.sqlite');
    const r = await runCliHere(['runs', 'upgrade', 'some-run', '--to', f.v2, '--by', 'ann', '--ledger', missing, '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'LEDGER_NOT_FOUND' } });
    expect(existsSync(missing)).toBe(false);
  });
});
