// Changing a flow with runs in flight (issue 39), on both stores: what `flows diff` says the change does to runs in
// every kind of position, upgrading runs (with a mapping, without, refused), the recorded upgrade surviving archive →
// restore and verify, replay from a folder with no flows, and what-if over many runs whose changes are known.
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Ledger, RouteRecord, RunState } from '../../src/contracts/ports.js';
import { createKernel, defineFlows } from '../../src/kernel/index.js';
import { archiveRuns, restoreBundle } from '../../src/ledger/archive/archive-runs.js';
import { verifyLedger } from '../../src/ledger/index.js';
import { resolveEscalation } from '../../src/runs/index.js';
import { diffFlows } from '../../src/runs/flow-diff.js';
import { impactOnRuns } from '../../src/runs/flow-impact.js';
import { replayRun } from '../../src/runs/replay.js';
import { upgradeRun } from '../../src/runs/upgrade.js';
import { whatIf } from '../../src/runs/what-if.js';
import { runCliHere } from '../support/cli.js';
import { SHIP_V1, SHIP_V1_CAP1, SHIP_V2, STORES, dropStore, flowFolders, openLedgerAt, ship, tmp } from './fixtures.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const v1 = defineFlows(SHIP_V1);
const v2 = defineFlows(SHIP_V2);

/** Runs on v1 in every kind of position the change touches, and one that ended. */
async function recordRuns(at: string): Promise<void> {
  let t = Date.parse('2026-11-27T10:00:00Z');
  const ledger = openLedgerAt(at);
  const k = createKernel({ flows: v1, store: ledger, clock: () => (t += 1000) });
  // at ship/review (renamed critique in v2)
  await k.route(ship('at-review', 'draft', 'SUCCEEDED'));
  // at ship/polish (gone in v2)
  await k.route(ship('at-polish', 'draft', 'SUCCEEDED'));
  await k.route(ship('at-polish', 'review', 'APPROVED'));
  // looped once in review's loop: the new cap (2) is met at its next review
  await k.route(ship('looped', 'draft', 'SUCCEEDED'));
  await k.route(ship('looped', 'review', 'REJECTED'));
  // an open escalation at ship/polish
  await k.route(ship('escalated', 'draft', 'SUCCEEDED'));
  await k.route(ship('escalated', 'review', 'APPROVED'));
  expect((await k.route(ship('escalated', 'polish', 'FAILED'))).decision).toBe('ESCALATE');
  // inside the injected flow sync (changed in v2), sent there by a person
  const esc = await k.route(ship('injected', 'draft', 'FAILED'));
  await resolveEscalation(ledger, v1, { escalation_id: esc.escalation_id!, decision: 'INJECT_FLOW', next: 'sync', by: 'ann', reason: 'upstream moved' });
  expect((await k.route({ run_id: 'injected', flow: 'sync', step_completed: 'pull', status: 'SUCCEEDED' })).next_step_id).toBe('merge');
  // resolved (CONTINUE to ship/review) but not routed since: the impact sees it where the resolution sends it
  const esc2 = await k.route(ship('resolved', 'draft', 'FAILED'));
  await resolveEscalation(ledger, v1, { escalation_id: esc2.escalation_id!, decision: 'CONTINUE', next: 'review', by: 'ann', reason: 'fine' });
  // ended
  for (const [step, status] of [['draft', 'SUCCEEDED'], ['review', 'APPROVED'], ['polish', 'SUCCEEDED'], ['publish', 'DONE']] as const) await k.route(ship('done', step, status));
  await k.close();
}

describe.each(STORES)('changing a flow on $name', ({ location }) => {
  async function ledgerWithRuns(): Promise<{ at: string; dir: string }> {
    const dir = tmp();
    const at = location(dir);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => dropStore(at));
    await recordRuns(at);
    return { at, dir };
  }
  function open(at: string): Ledger {
    const l = openLedgerAt(at);
    cleanups.push(() => l.close());
    return l;
  }

  it('diff names the renamed, removed and added steps, the edges and the bound; impact says what happens to each run in flight', async () => {
    const { at } = await ledgerWithRuns();
    const diff = diffFlows(v1, v2);
    expect(diff.steps).toEqual(
      expect.arrayContaining([
        { flow: 'ship', step: 'review', change: 'renamed', to: 'critique' },
        { flow: 'ship', step: 'polish', change: 'removed' },
        { flow: 'ship', step: 'legal', change: 'added' },
        { flow: 'sync', step: 'merge', change: 'renamed', to: 'apply' },
      ]),
    );
    expect(diff.steps).toHaveLength(4);
    expect(diff.edges).toContainEqual({ flow: 'ship', step: 'critique', added: ['legal'], removed: ['polish'] });
    expect(diff.bounds).toContainEqual({ flow: 'ship', step: 'critique', bound: 'max_iterations', from: 4, to: 2 });
    // The same version read back from the ledger (keys sorted) and loaded from files (keys as written) is no change.
    const kept = await (await import('../../src/runs/flow-refs.js')).keptVersion(open(at), v1.hash.slice(0, 8));
    expect(diffFlows(kept, v1)).toMatchObject({ flows_changed: [], steps: [], edges: [], bounds: [] });

    const impact = await impactOnRuns(open(at), v1, v2, diff);
    const byRun = new Map(impact.runs.map((r) => [r.run_id, r]));
    expect([...byRun.keys()].sort()).toEqual(['at-polish', 'at-review', 'escalated', 'injected', 'looped', 'resolved']);
    expect(byRun.get('resolved')!.effects).toEqual([expect.objectContaining({ kind: 'step_gone', step: 'review', renamed_to: 'critique' })]);
    expect(byRun.get('at-review')!.effects, JSON.stringify(impact.runs, null, 1)).toEqual([expect.objectContaining({ kind: 'step_gone', step: 'review', renamed_to: 'critique' })]);
    expect(byRun.get('at-polish')!.effects).toEqual([expect.objectContaining({ kind: 'step_gone', step: 'polish' })]);
    expect(byRun.get('at-polish')!.effects[0]).not.toHaveProperty('renamed_to');
    expect(byRun.get('looped')!.effects).toEqual([expect.objectContaining({ kind: 'over_bound', step: 'review', bound: 'max_iterations', count: 1, new_bound: 2 })]);
    expect(byRun.get('escalated')!.effects).toEqual([expect.objectContaining({ kind: 'escalation_target_moved', step: 'polish' })]);
    expect(byRun.get('injected')!.effects).toEqual([
      expect.objectContaining({ kind: 'step_gone', flow: 'sync', step: 'merge', renamed_to: 'apply' }),
      expect.objectContaining({ kind: 'in_injected_flow', flow: 'sync', changed: true, removed: false }),
    ]);
    expect(impact.touched).toBe(6);

    // The CLI says the same, from folders and from the ledger's kept version.
    const f = flowFolders();
    cleanups.push(f.rm);
    const r = await runCliHere(['flows', 'diff', `ledger:${v1.hash.slice(0, 10)}`, f.v2, '--ledger', at, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { diff: { steps: unknown[] }; impact: { touched: number } };
    expect(out.diff.steps).toHaveLength(4);
    expect(out.impact.touched).toBe(6);
    const text = await runCliHere(['flows', 'diff', f.v1, f.v2]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/~ step ship\/review renamed critique/);
    expect(text.stdout).toMatch(/- step ship\/polish/);
    expect(text.stdout).toMatch(/max_iterations of ship\/critique: 4 → 2/);
  });

  it('upgrades a run with a mapping, one without, refuses one the mapping leaves nowhere; the upgrade routes, survives archive → restore and verifies', async () => {
    const { at, dir } = await ledgerWithRuns();
    const ledger = open(at);
    // Without a mapping, at-review has no place in v2: refused, nothing recorded.
    await expect(upgradeRun(ledger, { run_id: 'at-review', to: v2, by: 'ann', reason: 'ship v2' })).rejects.toMatchObject({ code: 'UPGRADE_REFUSED' });
    expect(await ledger.runUpgrades('at-review')).toEqual([]);
    // A mapping to a step v2 lacks is refused too.
    await expect(upgradeRun(ledger, { run_id: 'at-review', to: v2, map: { review: 'nowhere' }, by: 'ann', reason: 'x' })).rejects.toMatchObject({ code: 'UPGRADE_REFUSED' });
    const up = await upgradeRun(ledger, { run_id: 'at-review', to: v2, map: { review: 'critique' }, by: 'ann', reason: 'ship v2' });
    expect(up).toMatchObject({ from_flows: v1.hash, to_flows: v2.hash, by: 'ann', reason: 'ship v2', seq: 1, idx: 0, map: JSON.stringify({ 'ship/review': 'ship/critique' }) });
    // At draft (sent back by review's loop): draft is in v2, so no mapping is needed; review's counter goes with review.
    const noMap = await upgradeRun(ledger, { run_id: 'looped', to: v2, by: 'bob', reason: 'ship v2' });
    expect(noMap.map).toBe('{}');
    expect(JSON.parse(noMap.state)).toMatchObject({ at: { flow: 'ship', step: 'draft' }, loops: {}, flows: v2.hash });
    // Inside sync at merge (renamed apply), returning to ship/draft: mapped by flow/step.
    const inside = await upgradeRun(ledger, { run_id: 'injected', to: v2, map: { 'sync/merge': 'sync/apply' }, by: 'bob', reason: 'ship v2' });
    expect(JSON.parse(inside.state)).toMatchObject({ at: { flow: 'sync', step: 'apply' }, returns: [{ flow: 'ship', step: 'draft', via: 'flow', target: 'sync' }] });
    // An ended run is refused.
    await expect(upgradeRun(ledger, { run_id: 'done', to: v2, by: 'ann', reason: 'x' })).rejects.toMatchObject({ code: 'UPGRADE_REFUSED' });
    expect((await verifyLedger(ledger, { repair: false })).issues.filter((i) => !i.kind.startsWith('jsonl'))).toEqual([]);

    // A kernel on v1 (the old process still running) routes the upgraded run with v2 from its recorded state.
    const k = createKernel({ flows: v1, store: ledger });
    const d = await k.route(ship('at-review', 'critique', 'APPROVED'));
    expect(d.next_step_id).toBe('legal');
    expect((await ledger.runFlowsHashes('at-review'))).toEqual([v1.hash, v2.hash]);

    // The run, upgrade included, goes to a bundle and back; verify holds before and after; replay reproduces it.
    const bundles = path.join(dir, 'bundles');
    const archived = await archiveRuns(ledger, { to: bundles, runs: ['at-review'], includeActive: true });
    expect(archived.archived.map((a) => a.run_id)).toEqual(['at-review']);
    expect(await ledger.runUpgrades('at-review')).toEqual([]);
    const bundle = readdirSync(bundles).find((f) => f.endsWith('.nkrun.gz'))!;
    const check = await runCliHere(['verify', '--ledger', path.join(bundles, bundle)]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    await restoreBundle(ledger, path.join(bundles, bundle));
    const restored = await ledger.runUpgrades('at-review');
    expect(restored).toEqual([up]);
    expect((await verifyLedger(ledger, { repair: false })).issues.filter((i) => !i.kind.startsWith('jsonl'))).toEqual([]);
    const replay = await replayRun(ledger, 'at-review', undefined);
    expect(replay.divergences).toEqual([]);
    expect(replay.flows_hashes_recorded).toEqual([v1.hash, v2.hash]);
    await k.close();
  });

  /** A fresh store and a kernel on v1 that holds its runs live (both cleaned up after the test). */
  function liveKernel(): { at: string; k: ReturnType<typeof createKernel> } {
    const dir = tmp();
    const at = location(dir);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => dropStore(at));
    const k = createKernel({ flows: v1, store: openLedgerAt(at) });
    cleanups.push(() => k.close());
    return { at, k };
  }

  it('a kernel holding a run live learns of an upgrade recorded through another connection (another process) at its next route', async () => {
    const { at, k } = liveKernel();
    await k.route(ship('x', 'draft', 'SUCCEEDED'));
    await k.route(ship('x', 'review', 'REJECTED'));
    expect((await k.route(ship('x', 'draft', 'SUCCEEDED'))).next_step_id).toBe('review');
    // Another process upgrades the run while this kernel holds it.
    const other = open(at);
    await upgradeRun(other, { run_id: 'x', to: v2, map: { review: 'critique' }, by: 'ann', reason: 'ship v2' });
    const d = await k.route(ship('x', 'critique', 'APPROVED'));
    expect(d.next_step_id).toBe('legal');
    expect(await other.runFlowsHashes('x')).toEqual([v1.hash, v2.hash]);
  });

  it('a kernel holding a run live routes it on the upgraded version when the report is from a step both versions have', async () => {
    const { at, k } = liveKernel();
    await k.route(ship('y', 'draft', 'SUCCEEDED'));
    // review loops back to draft: the run is at ship/draft, a step v2 has too (no mapping needed).
    expect((await k.route(ship('y', 'review', 'REJECTED'))).decision).toBe('LOOP');
    const other = open(at);
    await upgradeRun(other, { run_id: 'y', to: v2, by: 'ann', reason: 'ship v2' });
    // On v1 draft goes on to review; on v2 to critique. The kernel (which still holds the run on v1) must say v2's.
    const d = await k.route(ship('y', 'draft', 'SUCCEEDED'));
    expect(d).toMatchObject({ decision: 'CONTINUE', next_step_id: 'critique', seq: 3 });
    expect(await other.runFlowsHashes('y')).toEqual([v1.hash, v2.hash]);
    expect((await k.runState('y'))?.flows).toBe(v2.hash);
  });

  it('the store refuses, as a conflict, the append of a route decided on the version a run was upgraded away from', async () => {
    const dir = tmp();
    const at = location(dir);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => dropStore(at));
    const ledger = open(at);
    const k = createKernel({ flows: v1, store: ledger });
    const first = await k.route(ship('z', 'draft', 'SUCCEEDED'));
    await k.close();
    const writer = open(at);
    const up = await upgradeRun(writer, { run_id: 'z', to: v2, map: { review: 'critique' }, by: 'ann', reason: 'ship v2' });
    const before = JSON.parse(up.state) as RunState;
    const record = (flows_hash: string): RouteRecord => ({
      run_id: 'z', seq: 2, flow: 'ship', step: 'critique', request_id: null, request_hash: '', request: ship('z', 'critique', 'APPROVED'),
      decision: { ...first, seq: 2, next_step_id: 'legal' }, latency_us: 1, cost_usd: 0, kernel_version: 'test', flows_hash, ts: '2026-11-27T10:00:00.000Z', llm_calls: [],
    });
    const store = open(at);
    expect(await store.loadRun('z')).toEqual(before);
    await expect(store.append(record(v1.hash), { ...before, seq: 2 })).rejects.toMatchObject({ code: 'LEDGER_CONFLICT' });
    expect((await store.loadRun('z'))?.seq).toBe(1);
    await store.append(record(v2.hash), { ...before, seq: 2 });
    expect((await store.loadRun('z'))?.seq).toBe(2);
  });

  it("resolves an escalation of a run pinned to v1 against v1's graph while v2 is loaded", async () => {
    const { at } = await ledgerWithRuns();
    const ledger = open(at);
    const esc = (await ledger.runEscalations('escalated')).find((e) => e.status === 'open')!;
    expect(esc).toMatchObject({ flow: 'ship', step: 'polish' });
    // polish is not in v2: against v2 this was INVALID_RESOLUTION; the run's own version has it.
    const e = await resolveEscalation(ledger, v2, { escalation_id: esc.escalation_id, decision: 'CONTINUE', next: 'publish', by: 'ann', reason: 'fine' });
    expect(e.resolution).toMatchObject({ decision: 'CONTINUE', next_step_id: 'publish' });
    const k = createKernel({ flows: v2, store: ledger });
    expect((await k.route(ship('escalated', 'publish', 'DONE'))).decision).toBe('TERMINATE');
    await k.close();
  });

  it('a tampered upgrade or kept definition fails verify, naming the table', async () => {
    const { at } = await ledgerWithRuns();
    const ledger = open(at);
    await upgradeRun(ledger, { run_id: 'at-review', to: v2, map: { review: 'critique' }, by: 'ann', reason: 'ship v2' });
    await ledger.close();
    const sqlite = !/^postgres/.test(at);
    const edit = async (sql: string) => {
      if (sqlite) {
        const Database = (await import('better-sqlite3')).default;
        const db = new Database(at);
        db.exec(sql);
        db.close();
      } else {
        const { adminQuery, schemaOf } = await import('../support/postgres.js');
        await adminQuery(sql, [], schemaOf(at));
      }
    };
    await edit("UPDATE run_upgrades SET upgraded_by = 'mallory'");
    await edit(`UPDATE flow_versions SET definition = replace(definition, 'Ship a post', 'Ship a pot') WHERE flows_hash = '${v1.hash}'`);
    const again = open(at);
    const issues = (await verifyLedger(again, { repair: false })).issues;
    expect(issues).toContainEqual(expect.objectContaining({ run_id: 'at-review', kind: 'upgrade_mismatch', table: 'run_upgrades' }));
    expect(issues).toContainEqual(expect.objectContaining({ kind: 'flow_version_mismatch', table: 'flow_versions' }));
  });

  it('replays a run from a folder with no flows, from the versions the ledger kept; --flows asks what other flows would do', async () => {
    const { at, dir } = await ledgerWithRuns();
    const empty = tmp();
    cleanups.push(() => rmSync(empty, { recursive: true, force: true }));
    const ledgerArg = /^postgres/.test(at) ? at : path.resolve(at);
    const { spawnSync } = await import('node:child_process');
    const { ROOT } = await import('../support/kernel-fixtures.js');
    const bin = path.join(ROOT, 'bin', 'navkernel.js');
    const r = spawnSync(process.execPath, [bin, 'replay', 'at-polish', '--ledger', ledgerArg, '--json'], { cwd: empty, encoding: 'utf8' });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const report = JSON.parse(r.stdout) as { identical: boolean; routes: number; flows_hashes_recorded: string[] };
    expect(report).toMatchObject({ identical: true, routes: 2, flows_hashes_recorded: [v1.hash] });
    expect(r.stderr).not.toMatch(/sample flows/);
    const all = spawnSync(process.execPath, [bin, 'replay', '--all', '--ledger', ledgerArg], { cwd: empty, encoding: 'utf8' });
    expect(all.status, all.stderr + all.stdout).toBe(0);
    // With v2 given, the recorded `review` report has no step to go to: a divergence.
    const f = flowFolders();
    cleanups.push(f.rm);
    const w = spawnSync(process.execPath, [bin, 'replay', 'at-polish', '--ledger', ledgerArg, '--flows', f.v2, '--json'], { cwd: empty, encoding: 'utf8' });
    expect(w.status).toBe(1);
    const decisions = (JSON.parse(w.stdout) as { divergences: { step: string; fields: string[] }[] }).divergences.filter((d) => !d.fields[0]!.startsWith('state.'));
    expect(decisions.map((d) => d.step)).toEqual(['draft', 'review']);
    expect(dir).toBeTruthy();
  });

  it('what-if over many runs reports exactly the decisions a lowered cap changes, and gates on the share', async () => {
    const dir = tmp();
    const at = location(dir);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => dropStore(at));
    const k = createKernel({ flows: v1, store: openLedgerAt(at) });
    // 20 straight runs (4 decisions each) and 10 that loop once in review (6 decisions each): 140 decisions.
    for (let i = 0; i < 20; i++) for (const [step, status] of [['draft', 'SUCCEEDED'], ['review', 'APPROVED'], ['polish', 'SUCCEEDED'], ['publish', 'DONE']] as const) await k.route(ship(`straight-${i}`, step, status));
    for (let i = 0; i < 10; i++)
      for (const [step, status] of [['draft', 'SUCCEEDED'], ['review', 'REJECTED'], ['draft', 'SUCCEEDED'], ['review', 'APPROVED'], ['polish', 'SUCCEEDED'], ['publish', 'DONE']] as const)
        await k.route(ship(`loop-${i}`, step, status));
    await k.close();
    const ledger = open(at);
    const report = await whatIf(ledger, defineFlows(SHIP_V1_CAP1));
    expect(report.runs).toBe(30);
    expect(report.decisions).toBe(140);
    expect(report.changed_runs).toBe(10);
    // The cap of 1 is met at the first REJECTED: the loop's LOOP back to draft becomes the cap's advance.
    const first = report.changes.find((c) => c.step === 'review' && c.from.decision === 'LOOP')!;
    expect(first).toMatchObject({ flow: 'ship', count: 10, runs: 10, from: { decision: 'LOOP', next_step_id: 'draft', rule: 'microloop' } });
    expect(first.to).toMatchObject({ next_step_id: 'polish' });
    expect(first.examples).toHaveLength(3);
    expect(report.changes.every((c) => !c.examples.some((e) => e.run_id.startsWith('straight-')))).toBe(true);
    const unchanged = await whatIf(ledger, v1, { run: 'loop-*' });
    expect(unchanged).toMatchObject({ runs: 10, decisions: 60, changed_decisions: 0, changes: [] });

    // The CLI: a table for people, JSON for CI, exit 1 over the share.
    const f = flowFolders();
    cleanups.push(f.rm);
    const gate = await runCliHere(['flows', 'what-if', '--flows', f.cap1, '--ledger', at, '--json', '--max-changed-share', '0.01']);
    expect(gate.code, gate.stderr).toBe(1);
    expect(JSON.parse(gate.stdout)).toMatchObject({ runs: 30, decisions: 140, changed_runs: 10, over: true });
    const pass = await runCliHere(['flows', 'what-if', '--flows', f.v1, '--ledger', at, '--max-changed-share', '0.01']);
    expect(pass.code, pass.stderr).toBe(0);
    expect(pass.stdout).toMatch(/0 would change/);
    const table = await runCliHere(['flows', 'what-if', '--flows', f.cap1, '--ledger', at, '--run', 'loop-*']);
    expect(table.stdout).toMatch(/ship\/review\s+LOOP draft \(tier \d microloop\)\s+CONTINUE polish/);
  });
});
