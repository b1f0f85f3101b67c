// Attack class: editing what archiving wrote. An archived run keeps its run register entry with tombstone columns
// (archived_ts, archived_to, archived_seq, archived_hash, bundle_sha256); someone with write access to the database
// edits one of them behind the ledger's back. `verify` (no archive folder, no checkpoint needed) must notice and
// name the column, on every store (SQLite, and PostgreSQL on the server the test setup starts); one who also rewrites
// the seal is caught by a signed checkpoint taken before, which names the column. A ledger archived before the seal
// existed gets one on migration and verifies clean.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { createKernel, type FlowSet } from '../../src/kernel/index.js';
import { archiveRuns, archiveStoreFor, createCheckpoint, openLedger, verifyCheckpoint, verifyLedger } from '../../src/ledger/index.js';
import { tombstoneSeal } from '../../src/ledger/chain.js';
import { sampleFlows, scriptedArbiter, steppingClock } from '../ledger/helpers.js';
import { runCli } from '../support/cli.js';
import { STORE_FACTORIES, type StoreLocation } from './factories.js';

let flows: FlowSet;
const dirs: string[] = [];
let keys: { priv: string; pub: string };
beforeAll(async () => {
  flows = await sampleFlows();
  const d = mkdtempSync(path.join(tmpdir(), 'navkernel-attack-keys-'));
  dirs.push(d);
  const k = generateKeyPairSync('ed25519');
  keys = { priv: path.join(d, 'key.pem'), pub: path.join(d, 'pub.pem') };
  writeFileSync(keys.priv, k.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  writeFileSync(keys.pub, k.publicKey.export({ type: 'spki', format: 'pem' }) as string);
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** An edit of one tombstone column, as SQL for the store (`$RUN` is the archived run's id). */
const EDITS: Record<string, { sqlite: string; postgres: string }> = {
  archived_to: { sqlite: "SET archived_to = '/elsewhere/run.bundle.json.gz'", postgres: "SET archived_to = '/elsewhere/run.bundle.json.gz'" },
  archived_seq: { sqlite: 'SET archived_seq = archived_seq + 1', postgres: 'SET archived_seq = archived_seq + 1' },
  archived_hash: { sqlite: "SET archived_hash = zeroblob(32)", postgres: "SET archived_hash = decode(repeat('00', 32), 'hex')" },
  // The first hex digit changed, whatever it was (a digest that starts with 'f' was left as it was before).
  bundle_sha256: {
    sqlite: "SET bundle_sha256 = (CASE WHEN substr(bundle_sha256, 1, 1) = 'f' THEN '0' ELSE 'f' END) || substr(bundle_sha256, 2)",
    postgres: "SET bundle_sha256 = (CASE WHEN substr(bundle_sha256, 1, 1) = 'f' THEN '0' ELSE 'f' END) || substr(bundle_sha256, 2)",
  },
  archived_ts: { sqlite: "SET archived_ts = '2020-01-01T00:00:00.000Z'", postgres: "SET archived_ts = '2020-01-01T00:00:00.000Z'" },
};

describe.each(STORE_FACTORIES)('tombstone columns edited behind the ledger: $name', (factory) => {
  async function archived(): Promise<{ loc: StoreLocation; ledger: Ledger; run: string }> {
    const loc = await factory.create();
    const s = await loc.open();
    const k = createKernel({ flows, store: s, clock: steppingClock(), arbiter: scriptedArbiter() });
    await simulate(k, HARSH_SCENARIO, {});
    await k.close();
    const ledger = await loc.open();
    const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-attack-archive-'));
    dirs.push(dir);
    const report = await archiveRuns(ledger, { to: dir, before: '9999-01-01', clock: steppingClock(Date.UTC(2026, 0, 1)) });
    expect(report.archived.length).toBeGreaterThan(0);
    expect((await verifyLedger(ledger, { repair: false })).issues).toEqual([]);
    return { loc, ledger, run: report.archived[0]!.run_id };
  }

  for (const [column, edit] of Object.entries(EDITS)) {
    it(`an edit of run_register.${column} is reported by verify, naming the column`, async () => {
      const { loc, ledger, run } = await archived();
      try {
        const sql = (factory.name === 'postgres' ? edit.postgres : edit.sqlite).replace('$RUN', run);
        const quoted = run.replace(/'/g, "''");
        await loc.sql(`UPDATE run_register ${sql} WHERE run_id = '${quoted}'`);
        const fresh = await loc.open();
        try {
          const v = await verifyLedger(fresh, { repair: false });
          expect(v.ok).toBe(false);
          expect(v.issues).toEqual([expect.objectContaining({ run_id: run, kind: 'register_mismatch', table: 'run_register', field: column })]);
          // And through the CLI: `navkernel verify --json` names it too.
          const cli = runCli(['verify', '--ledger', loc.cliArg, '--json']);
          expect(cli.code).not.toBe(0);
          expect(JSON.parse(cli.stdout).issues).toEqual([expect.objectContaining({ run_id: run, field: column })]);
        } finally {
          await fresh.close();
        }
      } finally {
        await ledger.close();
        await loc.cleanup();
      }
    }, 60_000);
  }

  it('a signed checkpoint names an edited column even when the seal was recomputed to match (verify alone cannot)', async () => {
    const { loc, ledger, run } = await archived();
    try {
      const cp = await createCheckpoint(ledger, keys.priv);
      expect(cp.tombstones!.map((t) => t[0])).toContain(run);
      expect((await verifyCheckpoint(ledger, cp, keys.pub)).issues).toEqual([]);
      // The attacker edits archived_to and writes the seal that matches the new value.
      const t = (await archiveStoreFor(ledger)!.tombstones()).find((x) => x.run_id === run)!;
      const entry = (await ledger.runRegister()).find((e) => e.run_id === run)!;
      const forged = tombstoneSeal(entry.hash, run, { ...t, archived_to: '/elsewhere/x.nkrun.gz' });
      const quoted = run.replace(/'/g, "''");
      await loc.sql(`UPDATE run_register SET archived_to = '/elsewhere/x.nkrun.gz', archived_seal = '${forged}' WHERE run_id = '${quoted}'`);
      const fresh = await loc.open();
      try {
        expect((await verifyLedger(fresh, { repair: false })).issues).toEqual([]);
        const c = await verifyCheckpoint(fresh, cp, keys.pub);
        expect(c.ok).toBe(false);
        expect(c.issues).toEqual([expect.objectContaining({ kind: 'tombstone_rewritten', run_id: run, field: 'archived_to' })]);
      } finally {
        await fresh.close();
      }
    } finally {
      await ledger.close();
      await loc.cleanup();
    }
  }, 60_000);

  it('a seal removed or edited alone is named archived_seal', async () => {
    const { loc, ledger, run } = await archived();
    try {
      const quoted = run.replace(/'/g, "''");
      await loc.sql(`UPDATE run_register SET archived_seal = NULL WHERE run_id = '${quoted}'`);
      const fresh = await loc.open();
      const v = await verifyLedger(fresh, { repair: false });
      expect(v.issues).toEqual([expect.objectContaining({ run_id: run, field: 'archived_seal' })]);
      await fresh.close();
    } finally {
      await ledger.close();
      await loc.cleanup();
    }
  }, 60_000);
});

describe('a SQLite ledger archived before the seal (schema 7)', () => {
  it('gets a seal for each tombstone on open, verifies clean, and then notices an edit', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-attack-archive-v7-'));
    dirs.push(dir);
    const file = path.join(dir, 'ledger.sqlite');
    let ledger: Ledger = await openLedger(file);
    const k = createKernel({ flows, store: ledger, clock: steppingClock(), arbiter: scriptedArbiter() });
    await simulate(k, HARSH_SCENARIO, {});
    await k.close();
    ledger = await openLedger(file);
    const report = await archiveRuns(ledger, { to: path.join(dir, 'bundles'), before: '9999-01-01' });
    await ledger.close();
    // Back to schema 7: the column gone, as a ledger archived by an earlier navkernel has it.
    const db = new Database(file);
    db.exec('ALTER TABLE run_register DROP COLUMN archived_seal');
    db.pragma('user_version = 7');
    db.close();
    ledger = await openLedger(file);
    try {
      const tombs = await archiveStoreFor(ledger)!.tombstones();
      expect(tombs.length).toBe(report.archived.length);
      expect(tombs.every((t) => typeof t.seal === 'string')).toBe(true);
      expect((await verifyLedger(ledger, { repair: false })).issues).toEqual([]);
    } finally {
      await ledger.close();
    }
    const edit = new Database(file);
    edit.prepare("UPDATE run_register SET archived_to = 'x' WHERE run_id = ?").run(report.archived[0]!.run_id);
    edit.close();
    ledger = await openLedger(file);
    try {
      expect((await verifyLedger(ledger, { repair: false })).issues).toEqual([expect.objectContaining({ field: 'archived_to' })]);
    } finally {
      await ledger.close();
    }
  }, 60_000);
});
