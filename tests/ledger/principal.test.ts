// Routes record which principal sent them (issue 26.2, schema version 7), on every store: the name is stored, read
// back, audited and archived; the hash chain covers it when set, so an edit of it fails verify, while a route without
// one hashes exactly as routes always have (ledgers written before schema 7 verify unchanged after the upgrade).
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Ledger, StoredRoute } from '../../src/contracts/index.js';
import { MemoryStore, createKernel, defineFlows, type FlowSet } from '../../src/kernel/index.js';
import { archiveRuns, copyLedger, openLedger, readRunRows, restoreBundle, routeHash, verifyLedger } from '../../src/ledger/index.js';
import { CHAINED_FIELD_NAMES, llmCallsJson } from '../../src/ledger/chain.js';
import { auditRun, replayRun } from '../../src/runs/index.js';
import { serviceLedger } from '../../src/service/index.js';
import { STORE_FACTORIES, type StoreLocation } from '../store-conformance/factories.js';
import { runCli } from '../support/cli.js';
import { TEST_FLOWS, req } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';
import { steppingClock } from './helpers.js';

/** A route's hash recomputed from its stored row (no LLM calls in these runs), with `principal` as given. */
const rehash = (row: StoredRoute, principal: string | null) => routeHash(row.prev_hash, { ...row, llm_calls_json: llmCallsJson([]), principal });

for (const factory of STORE_FACTORIES) {
  describe(`routes record their principal (${factory.name})`, () => {
    let loc: StoreLocation | undefined;
    const open: Ledger[] = [];
    const dirs: string[] = [];
    const handle = async () => {
      const l = await loc!.open();
      open.push(l);
      return l;
    };
    afterEach(async () => {
      for (const l of open.splice(0)) await l.close().catch(() => undefined);
      await loc?.cleanup();
      loc = undefined;
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    });

    /** p-1 routed by runner-a then runner-b to its end; p-2 routed with no principal. */
    async function recorded(): Promise<{ ledger: Ledger; flows: FlowSet }> {
      loc = await factory.create();
      const ledger = await handle();
      const kernel = createKernel({ flows: defineFlows(TEST_FLOWS), store: ledger, clock: steppingClock() });
      const p1 = { run_id: 'p-1' };
      await kernel.route(req('write', 'VERIFIED', p1), { principal: 'runner-a' });
      await kernel.route(req('check', 'UNVERIFIED', p1), { principal: 'runner-a' });
      await kernel.route(req('write', 'VERIFIED', p1), { principal: 'runner-a' });
      await kernel.route(req('check', 'VERIFIED', p1), { principal: 'runner-b' });
      await kernel.route(req('review', 'APPROVED', p1), { principal: 'runner-b' });
      const last = await kernel.route(req('done', 'VERIFIED', p1), { principal: 'runner-b' });
      expect(last.decision).toBe('TERMINATE');
      await kernel.route(req('write', 'VERIFIED', { run_id: 'p-2' }));
      await kernel.route(req('check', 'VERIFIED', { run_id: 'p-2' }), { principal: null });
      // Closing the kernel closes its store: read through another handle, as another process would.
      await kernel.close();
      return { ledger: await handle(), flows: kernel.flows };
    }

    it('stores the principal, hashes it only when set, and shows it in the run detail, audit and replay', async () => {
      const { ledger, flows } = await recorded();
      const p1 = await ledger.routes('p-1', 0, 100);
      expect(p1.map((r) => r.principal)).toEqual(['runner-a', 'runner-a', 'runner-a', 'runner-b', 'runner-b', 'runner-b']);
      const p2 = await ledger.routes('p-2', 0, 100);
      expect(p2.map((r) => r.principal)).toEqual([null, null]);
      for (const r of p1) {
        expect(r.hash).toBe(rehash(r, r.principal));
        expect(r.hash).not.toBe(rehash(r, null));
        expect(r.field_sums!.split(',')).toHaveLength(CHAINED_FIELD_NAMES.length);
      }
      // No principal: the frames (and the fingerprints) of every route written before schema 7.
      for (const r of p2) {
        expect(r.hash).toBe(rehash(r, null));
        expect(r.field_sums!.split(',')).toHaveLength(CHAINED_FIELD_NAMES.length - 1);
      }
      expect((await verifyLedger(ledger, { repair: false })).issues).toEqual([]);

      // Replayed decisions carry no principal and still compare equal.
      expect((await replayRun(ledger, 'p-1', flows)).divergences).toEqual([]);
      const detail = await serviceLedger(ledger).runDetail('p-1', 0, 100);
      expect(detail.decisions.map((d) => d.principal)).toEqual(p1.map((r) => r.principal));
      expect((await serviceLedger(ledger).runDetail('p-2', 0, 100)).decisions.map((d) => d.principal)).toEqual([null, null]);
      const audit = await auditRun(ledger, 'p-1');
      expect(audit.routed_by).toEqual([
        { principal: 'runner-a', routes: 3 },
        { principal: 'runner-b', routes: 3 },
      ]);
      expect(audit.offroad.map((e) => [e.seq, e.decision, e.principal])).toEqual([
        [2, 'LOOP', 'runner-a'],
      ]);
      expect((await auditRun(ledger, 'p-2')).routed_by).toBeUndefined();
      const text = runCli(['audit', 'p-1', '--ledger', loc!.cliArg]);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain('routed by runner-a (3 routes), runner-b (3 routes)');
      expect(text.stdout).toMatch(/#2 +build\/check +LOOP .*\(by runner-a\)/);
    });

    it('an edited principal (changed, cleared, or added to a route that had none) fails verify, naming the run, the seq and the field', async () => {
      const { ledger } = await recorded();
      const tamper: [string, string, number, string | null][] = [
        ['changed', 'p-1', 2, "'mallory'"],
        ['cleared', 'p-1', 5, null],
        ['added', 'p-2', 1, "'runner-a'"],
      ];
      for (const [what, run, seq, value] of tamper) {
        const before = (await ledger.routes(run, seq - 1, 1))[0]!.principal;
        await loc!.sql(`UPDATE routes SET principal = ${value ?? 'NULL'} WHERE run_id = '${run}' AND seq = ${seq}`);
        const report = await verifyLedger(ledger, { repair: false });
        expect(report.ok, what).toBe(false);
        expect(report.issues, what).toEqual([expect.objectContaining({ run_id: run, seq, kind: 'hash_mismatch', table: 'routes', field: 'principal' })]);
        const cli = runCli(['verify', '--ledger', loc!.cliArg, '--no-repair']);
        expect(cli.code, what).toBe(1);
        expect(cli.stdout, what).toContain(`BAD run ${run} seq ${seq}: hash_mismatch: row content does not match its hash: principal edited`);
        await loc!.sql(`UPDATE routes SET principal = ${before === null ? 'NULL' : `'${before}'`} WHERE run_id = '${run}' AND seq = ${seq}`);
        expect((await verifyLedger(ledger, { repair: false })).issues, what).toEqual([]);
      }
    });

    it('navkernel migrate (copyLedger) keeps each route principal, and the copy verifies', async () => {
      const { ledger } = await recorded();
      const dir = tempDir('navkernel-principal-copy-');
      dirs.push(dir);
      const copy = openLedger(path.join(dir, 'copy.sqlite'));
      open.push(copy);
      await copyLedger(ledger, copy);
      for (const run of ['p-1', 'p-2']) expect(await copy.routes(run, 0, 100)).toEqual(await ledger.routes(run, 0, 100));
      // As navkernel migrate does: verify repairs the copy's decisions.jsonl files (derived from its rows) first.
      expect((await verifyLedger(copy)).issues).toEqual([]);
    });

    it('archive and restore keep each route principal, row for row', async () => {
      const { ledger } = await recorded();
      const register = new Map((await ledger.runRegister()).map((e) => [e.run_id, e]));
      const before = await readRunRows(ledger, 'p-1', register);
      const dir = tempDir('navkernel-principal-bundles-');
      dirs.push(dir);
      const report = await archiveRuns(ledger, { to: dir, runs: ['p-1'], reclaim: 'none', clock: steppingClock(Date.UTC(2026, 0, 1)) });
      expect(report.archived.map((a) => a.run_id)).toEqual(['p-1']);
      expect(await ledger.run('p-1')).toBeUndefined();
      await restoreBundle(ledger, report.archived[0]!.file);
      const after = await readRunRows(ledger, 'p-1', new Map((await ledger.runRegister()).map((e) => [e.run_id, e])));
      expect(after).toEqual(before);
      expect(after!.routes.map((r) => r.principal)).toEqual(['runner-a', 'runner-a', 'runner-a', 'runner-b', 'runner-b', 'runner-b']);
      expect((await verifyLedger(ledger, { repair: false })).issues).toEqual([]);
    });

    it('a ledger written before schema 7 upgrades on open: its routes keep their hashes and verify, new routes record a principal', async () => {
      loc = await factory.create();
      let ledger = await handle();
      let kernel = createKernel({ flows: defineFlows(TEST_FLOWS), store: ledger, clock: steppingClock() });
      await kernel.route(req('write', 'VERIFIED', { run_id: 'old' }));
      await kernel.route(req('check', 'UNVERIFIED', { run_id: 'old' }));
      await kernel.close();
      // Back to schema version 6, as navkernel wrote it before routes had a principal.
      await loc.sql(`ALTER TABLE routes DROP COLUMN principal; ${factory.name === 'sqlite' ? 'PRAGMA user_version = 6' : 'UPDATE navkernel_meta SET schema_version = 6'}`);
      ledger = await handle();
      const rows = await ledger.routes('old', 0, 10);
      expect(rows.map((r) => r.principal)).toEqual([null, null]);
      for (const r of rows) expect(r.hash).toBe(rehash(r, null));
      kernel = createKernel({ flows: defineFlows(TEST_FLOWS), store: ledger, clock: steppingClock(Date.UTC(2025, 1, 1)) });
      await kernel.route(req('write', 'VERIFIED', { run_id: 'old' }), { principal: 'runner-a' });
      await kernel.close();
      const again = await handle();
      expect((await again.routes('old', 0, 10)).map((r) => r.principal)).toEqual([null, null, 'runner-a']);
      expect((await again.routes('old', 0, 2)).map((r) => r.hash)).toEqual(rows.map((r) => r.hash));
      expect((await verifyLedger(again, { repair: false })).issues).toEqual([]);
    });
  });
}

describe('kernel.route(request, { principal })', () => {
  it('takes the principal from the caller only: a bad option is INVALID_OPTION, a request claiming one is INVALID_REQUEST, and neither records anything', async () => {
    const store = new MemoryStore({ keepRecords: true });
    const kernel = createKernel({ flows: defineFlows(TEST_FLOWS), store, clock: steppingClock() });
    for (const principal of ['', 'x'.repeat(257), '\uD800', 42 as unknown as string]) {
      const err = (await kernel.route(req('write', 'VERIFIED'), { principal }).catch((e: unknown) => e)) as { code?: string; message?: string };
      expect(err.code).toBe('INVALID_OPTION');
      expect(err.message).toMatch(/principal must be a well-formed string of 1 to 256 characters/);
    }
    const claimed = (await kernel.route({ ...req('write', 'VERIFIED'), principal: 'root' }).catch((e: unknown) => e)) as { code?: string; message?: string };
    expect(claimed.code).toBe('INVALID_REQUEST');
    expect(claimed.message).toMatch(/principal/);
    expect(store.records).toEqual([]);
    await kernel.route(req('write', 'VERIFIED'), { principal: 'ci@build-7' });
    await kernel.route(req('check', 'VERIFIED'));
    expect(store.records.map((r) => r.principal ?? null)).toEqual(['ci@build-7', null]);
    await kernel.close();
  });
});
