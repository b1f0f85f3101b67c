// The archive port (src/contracts/archive-port.ts) and what is built on it (archive, restore, verify --archive, signed
// checkpoints), run against every store factory.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { createKernel, type FlowSet } from '../../src/kernel/index.js';
import {
  BundleLedger,
  NotArchivableError,
  archiveRuns,
  archiveStoreFor,
  bundleName,
  createCheckpoint,
  readRunRows,
  restoreBundle,
  verifyArchive,
  verifyCheckpoint,
  verifyLedger,
} from '../../src/ledger/index.js';
import { auditRun, listRuns, replayRun } from '../../src/runs/index.js';
import { sampleFlows, scriptedArbiter, steppingClock } from '../ledger/helpers.js';
import { runCliHere } from '../support/cli.js';
import { STORE_FACTORIES, type StoreLocation } from './factories.js';

let flows: FlowSet;
const tmp = mkdtempSync(path.join(tmpdir(), 'navkernel-archive-'));
let keys: { priv: string; pub: string; otherPub: string };
beforeAll(async () => {
  flows = await sampleFlows();
  const write = (name: string, text: string) => {
    const f = path.join(tmp, name);
    writeFileSync(f, text);
    return f;
  };
  const a = generateKeyPairSync('ed25519');
  const b = generateKeyPairSync('ed25519');
  keys = {
    priv: write('key.pem', a.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string),
    pub: write('pub.pem', a.publicKey.export({ type: 'spki', format: 'pem' }) as string),
    otherPub: write('other.pem', b.publicKey.export({ type: 'spki', format: 'pem' }) as string),
  };
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.each(STORE_FACTORIES)('archive conformance: $name', (factory) => {
  let loc: StoreLocation;
  const open: Ledger[] = [];
  const dirs: string[] = [];
  async function handle(): Promise<Ledger> {
    const l = await loc.open();
    open.push(l);
    return l;
  }
  afterEach(async () => {
    for (const l of open.splice(0)) await l.close().catch(() => undefined);
    await loc?.cleanup();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const archiveDir = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'navkernel-bundles-'));
    dirs.push(d);
    return d;
  };

  /** A ledger with the harsh scenario routed twice: with tier 3 (runs end) and without it (some stay escalated). */
  async function recorded(): Promise<Ledger> {
    loc = await factory.create();
    const s = await handle();
    const clock = steppingClock();
    const k = createKernel({ flows, store: s, clock, arbiter: scriptedArbiter() });
    await simulate(k, HARSH_SCENARIO, {});
    await k.close();
    const s2 = await handle();
    const plain = createKernel({ flows, store: s2, clock });
    await simulate(plain, HARSH_SCENARIO, { runPrefix: 'plain' });
    await plain.close();
    return handle();
  }

  it('archives finished runs only, leaves verify clean, checks bundles alone and against tombstones, and restores them row for row', async () => {
    const l = await recorded();
    const store = archiveStoreFor(l)!;
    const listed = await listRuns(l);
    const finished = listed.filter((r) => r.status === 'terminated' && r.open_escalations === 0).map((r) => r.run_id).sort();
    const unfinished = listed.filter((r) => !finished.includes(r.run_id)).map((r) => r.run_id);
    expect(finished.length).toBeGreaterThan(1);
    expect(unfinished.length).toBeGreaterThan(0);
    expect((await store.archivableRuns({ before: '9999-01-01' })).sort()).toEqual(finished);
    const register = new Map((await l.runRegister()).map((e) => [e.run_id, e]));
    const before = new Map<string, unknown>();
    for (const id of finished) before.set(id, await readRunRows(l, id, register));
    const registerBefore = await l.runRegister();

    const dir = archiveDir();
    const report = await archiveRuns(l, { to: dir, before: '9999-01-01', clock: steppingClock(Date.UTC(2026, 0, 1)) });
    expect(report.archived.map((a) => a.run_id).sort()).toEqual(finished);
    expect(report.skipped).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(finished.map(bundleName).sort());
    expect(report.reclaim).not.toBeNull();
    // A SQLite ledger created since schema 6 is auto_vacuum=INCREMENTAL: the file shrinks.
    if (factory.name === 'sqlite') expect(report.reclaim!.bytes_after).toBeLessThan(report.reclaim!.bytes_before);

    // The ledger: the runs are gone, their register entries (and so the register's chain) stay, verify is clean.
    expect((await l.runs()).map((r) => r.run_id).sort()).toEqual(unfinished.sort());
    expect(await l.runRegister()).toEqual(registerBefore);
    const v = await verifyLedger(l, { repair: false });
    expect(v.issues).toEqual([]);
    expect(v.archived_runs).toBe(finished.length);
    expect((await store.tombstones()).map((t) => t.run_id).sort()).toEqual(finished);

    // Each bundle on its own and against its tombstone.
    const a = await verifyArchive(dir, l);
    expect(a.issues).toEqual([]);
    expect(a).toMatchObject({ ok: true, bundles: finished.length, tombstones: finished.length });
    expect((await verifyArchive(dir)).ok).toBe(true);

    // Replay and audit straight from a bundle.
    const file = path.join(dir, bundleName(finished[0]!));
    const b = new BundleLedger(file);
    expect((await replayRun(b, finished[0]!, flows)).divergences).toEqual([]);
    expect((await auditRun(b, finished[0]!)).run.steps).toBe(b.bundle.routes.length);

    // Routing an archived run again is refused with a typed error, recording nothing.
    const k = createKernel({ flows, store: l, clock: steppingClock() });
    const err = await k.route({ run_id: finished[0]!, flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' }).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('RUN_ARCHIVED');
    expect(await l.run(finished[0]!)).toBeUndefined();

    // Archiving again the same run by name is refused, and an unfinished one needs --include-active.
    await expect(archiveRuns(l, { to: dir, runs: [finished[0]!] })).rejects.toBeInstanceOf(NotArchivableError);
    await expect(archiveRuns(l, { to: dir, runs: [unfinished[0]!] })).rejects.toThrow(/include-active/);

    // Restore: identical rows, no tombstone, verify clean; restoring twice is refused with nothing changed.
    for (const id of finished) await restoreBundle(l, path.join(dir, bundleName(id)));
    const after = new Map((await l.runRegister()).map((e) => [e.run_id, e]));
    for (const id of finished) expect(await readRunRows(l, id, after)).toEqual(before.get(id));
    expect(await store.tombstones()).toEqual([]);
    expect((await verifyLedger(l, { repair: false })).issues).toEqual([]);
    await expect(restoreBundle(l, file)).rejects.toMatchObject({ code: 'ARCHIVE_INVALID' });
  });

  it('detects an edited bundle, a run deleted without archiving, and a bundle missing from its folder', async () => {
    const l = await recorded();
    const dir = archiveDir();
    const report = await archiveRuns(l, { to: dir, before: '9999-01-01', reclaim: 'none' });
    const [first, second, third] = report.archived.map((x) => x.run_id);
    // A hashed field edited: the bundle's own chain breaks.
    const edit = (id: string, fn: (b: Record<string, any>) => void) => {
      const f = path.join(dir, bundleName(id));
      const b = JSON.parse(gunzipSync(readFileSync(f)).toString('utf8')) as Record<string, any>;
      fn(b);
      writeFileSync(f, gzipSync(JSON.stringify(b)));
    };
    edit(first!, (b) => {
      b.routes[1].ts = '2000-01-01T00:00:00.000Z';
    });
    // A field nothing hashes but the tombstone's bundle hash.
    edit(second!, (b) => {
      b.source = 'elsewhere';
    });
    rmSync(path.join(dir, bundleName(third!)));
    const a = await verifyArchive(dir, l);
    expect(a.ok).toBe(false);
    expect(a.issues).toContainEqual(expect.objectContaining({ run_id: first, kind: 'hash_mismatch' }));
    expect(a.issues).toContainEqual(expect.objectContaining({ run_id: second, kind: 'archive_mismatch', field: 'bundle_sha256' }));
    expect(a.issues).toContainEqual(expect.objectContaining({ run_id: third, kind: 'archive_missing' }));
    await expect(restoreBundle(l, path.join(dir, bundleName(first!)))).rejects.toThrow(/does not verify/);
    await expect(restoreBundle(l, path.join(dir, bundleName(second!)))).rejects.toThrow(/content hash/);
    // The ledger itself still verifies; a live run deleted without archiving does not.
    expect((await verifyLedger(l, { repair: false })).ok).toBe(true);
    const victim = (await l.runs())[0]!.run_id;
    await loc.deleteRunRows(victim);
    const v = await verifyLedger(l, { repair: false });
    expect(v.issues).toContainEqual(expect.objectContaining({ run_id: victim, kind: 'run_missing' }));
    expect(v.issues.filter((i) => i.run_id !== victim && !i.kind.startsWith('jsonl'))).toEqual([]);
  });

  it('signed checkpoints: hold across archiving, fail for a newest run deleted with its register entry, a truncated run, or another key', async () => {
    const l = await recorded();
    // The newest run waits for a person (gate-decide answers HOLD, which no branch knows), so archiving keeps it: each
    // simulated run now ends or stops at its first escalation, and the last one routed may have ended.
    const k = createKernel({ flows, store: l, clock: steppingClock(Date.UTC(2026, 0, 2)) });
    expect((await k.route({ run_id: 'open-newest', flow: 'gate', step_completed: 'gate-decide', status: 'HOLD' })).decision).toBe('ESCALATE');
    const cp = await createCheckpoint(l, keys.priv, steppingClock(Date.UTC(2026, 0, 2)));
    expect(cp.statement.register_size).toBe((await l.runRegister()).length);
    expect((await verifyCheckpoint(l, cp, keys.pub)).issues).toEqual([]);
    expect((await verifyCheckpoint(l, cp, keys.otherPub)).issues[0]!.kind).toBe('signature');
    const forged = structuredClone(cp);
    forged.statement.register_size--;
    expect((await verifyCheckpoint(l, forged, keys.pub)).issues[0]!.kind).toBe('signature');

    // Archiving keeps the register: the older checkpoint still holds, with the bundles or without.
    const dir = archiveDir();
    await archiveRuns(l, { to: dir, before: '9999-01-01' });
    expect((await verifyCheckpoint(l, cp, keys.pub)).issues).toEqual([]);
    expect((await verifyCheckpoint(l, cp, keys.pub, { archiveDir: dir })).ok).toBe(true);

    // The newest run deleted whole, register entry included: verify passes (as it always did) but the checkpoint fails.
    const register = await l.runRegister();
    const newest = register[register.length - 1]!.run_id;
    expect(newest).toBe('open-newest');
    expect((await l.run(newest)) !== undefined).toBe(true);
    await loc.deleteRunRows(newest);
    await loc.sql(`DELETE FROM run_register WHERE run_id = '${newest}'`);
    expect((await verifyLedger(l, { repair: false })).issues.filter((i) => !i.kind.startsWith('jsonl'))).toEqual([]);
    const c = await verifyCheckpoint(l, cp, keys.pub);
    expect(c.ok).toBe(false);
    expect(c.issues.map((i) => i.kind)).toEqual(expect.arrayContaining(['register_truncated', 'run_missing']));

    // A run's last route removed (and its head moved back) after a fresh checkpoint.
    const cp2 = await createCheckpoint(l, keys.priv);
    const live = (await l.runs()).find((r) => r.last_seq > 2)!;
    await loc.sql(`DELETE FROM routes WHERE run_id = '${live.run_id}' AND seq = ${live.last_seq}`);
    const c2 = await verifyCheckpoint(l, cp2, keys.pub);
    expect(c2.issues).toContainEqual(expect.objectContaining({ run_id: live.run_id, kind: 'run_truncated' }));
  });

  it('the CLI: archive --before, verify --archive, audit a bundle, restore, checkpoint and verify --checkpoint', async () => {
    await recorded();
    const dir = archiveDir();
    const arch = await runCliHere(['archive', '--ledger', loc.cliArg, '--before', '9999-01-01', '--to', dir, '--json']);
    expect(arch.code, arch.stderr).toBe(0);
    const rep = JSON.parse(arch.stdout) as { archived: { run_id: string; file: string }[] };
    expect(rep.archived.length).toBeGreaterThan(0);
    // (repairing: the CLI keeps decisions.jsonl files in a runs/ folder of its own beside the file)
    const ok = await runCliHere(['verify', '--ledger', loc.cliArg, '--archive', dir]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/against their tombstone/);
    const bundle = rep.archived[0]!.file;
    const audit = await runCliHere(['audit', rep.archived[0]!.run_id, '--ledger', bundle]);
    expect(audit.code, audit.stderr).toBe(0);
    const cpFile = path.join(dir, 'cp.json');
    expect((await runCliHere(['checkpoint', '--ledger', loc.cliArg, '--key', keys.priv, '-o', cpFile])).code).toBe(0);
    const restore = await runCliHere(['restore', bundle, '--ledger', loc.cliArg]);
    expect(restore.code, restore.stderr).toBe(0);
    const v = await runCliHere(['verify', '--ledger', loc.cliArg, '--checkpoint', cpFile, '--pubkey', keys.pub]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toMatch(/holds: nothing it covers was removed or rewritten/);
    const bad = await runCliHere(['verify', '--ledger', loc.cliArg, '--checkpoint', cpFile, '--pubkey', keys.otherPub, '--json']);
    expect(bad.code).not.toBe(0);
  });
});
