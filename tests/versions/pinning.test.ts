// Runs keep the flow version they started with (issue 39): a kernel on new flows routes a run in flight with the
// version the ledger kept for it, and new runs with the new one; on both stores, from the library, a restarted
// co-process and `serve` reloaded in place on SIGHUP.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson, sha256 } from '../../src/contracts/canonical-json.js';
import { createKernel, defineFlows } from '../../src/kernel/index.js';
import { verifyLedger } from '../../src/ledger/index.js';
import { coProcess, runCliHere } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { SHIP_V1, SHIP_V2, STORES, dropStore, flowFolders, openLedgerAt, ship, tmp } from './fixtures.js';

const BIN = path.join(ROOT, 'bin', 'navkernel.js');
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.each(STORES)('flow versions on $name', ({ location }) => {
  function fresh(): string {
    const dir = tmp();
    const at = location(dir);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => dropStore(at));
    return at;
  }

  it('keeps each version once, content-addressed, and routes a run in flight with the version it started with', async () => {
    const at = fresh();
    const v1 = defineFlows(SHIP_V1);
    const v2 = defineFlows(SHIP_V2);
    const k1 = createKernel({ flows: v1, store: openLedgerAt(at) });
    expect((await k1.route(ship('old', 'draft', 'SUCCEEDED'))).next_step_id).toBe('review');
    await k1.close();

    // The flows change on disk; a new process starts on them.
    const ledger = openLedgerAt(at);
    const k2 = createKernel({ flows: v2, store: ledger });
    // Without pinning this was INVALID_REQUEST "expected a step of flow ship (draft, critique, legal, publish), got review".
    const d = await k2.route(ship('old', 'review', 'APPROVED'));
    expect(d.next_step_id).toBe('polish');
    expect((await k2.route(ship('new', 'draft', 'SUCCEEDED'))).next_step_id).toBe('critique');
    expect((await k2.route(ship('new', 'critique', 'APPROVED'))).next_step_id).toBe('legal');
    await expect(k2.route(ship('new2', 'review', 'APPROVED'))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await k2.close();

    const read = openLedgerAt(at);
    try {
      const kept = await read.flowVersions();
      expect(kept.map((v) => v.hash).sort()).toEqual([v1.hash, v2.hash].sort());
      for (const v of kept) expect(sha256(v.definition)).toBe(v.hash);
      // The same bytes as the canonical JSON of the definitions: deterministic.
      expect(kept.find((v) => v.hash === v1.hash)!.definition).toBe(canonicalJson([...v1.flows.values()].map((f) => f.def)));
      expect(await read.runFlowsHashes('old')).toEqual([v1.hash]);
      expect(await read.runFlowsHashes('new')).toEqual([v2.hash]);
      expect((await read.loadRun('old'))!.flows).toBe(v1.hash);
      const report = await verifyLedger(read, { repair: false });
      expect(report.issues).toEqual([]);
    } finally {
      await read.close();
    }
  });

  it('a kernel loading a new flow set in place (setFlows) leaves runs in flight on theirs', async () => {
    const at = fresh();
    const k = createKernel({ flows: defineFlows(SHIP_V1), store: openLedgerAt(at) });
    try {
      await k.route(ship('a', 'draft', 'SUCCEEDED'));
      k.setFlows(defineFlows(SHIP_V2));
      expect((await k.route(ship('a', 'review', 'APPROVED'))).next_step_id).toBe('polish');
      expect((await k.route(ship('b', 'draft', 'SUCCEEDED'))).next_step_id).toBe('critique');
    } finally {
      await k.close();
    }
  });

  it('a co-process restarted on new flows routes a run in flight with its version, new runs with the new one', async () => {
    const at = fresh();
    const f = flowFolders();
    cleanups.push(f.rm);
    const c1 = coProcess(['route', '--flows', f.v1, '--ledger', at, '-q']);
    const first = JSON.parse(await c1.ask(JSON.stringify(ship('co', 'draft', 'SUCCEEDED')))) as { next_step_id: string };
    expect(first.next_step_id).toBe('review');
    expect(await c1.close()).toBe(0);
    const c2 = coProcess(['route', '--flows', f.v2, '--ledger', at, '-q']);
    try {
      const again = JSON.parse(await c2.ask(JSON.stringify(ship('co', 'review', 'APPROVED')))) as { next_step_id: string; code?: string };
      expect(again.code).toBeUndefined();
      expect(again.next_step_id).toBe('polish');
      const fresh2 = JSON.parse(await c2.ask(JSON.stringify(ship('co-new', 'draft', 'SUCCEEDED')))) as { next_step_id: string };
      expect(fresh2.next_step_id).toBe('critique');
    } finally {
      expect(await c2.close()).toBe(0);
    }
    // And from a folder with no flows at all, the run replays from the ledger's kept versions.
    const r = await runCliHere(['verify', '--ledger', at]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
  });

  it('serve reloads the flows in place on SIGHUP: the run in flight keeps its version, new runs get the new one', async () => {
    const at = fresh();
    const f = flowFolders();
    cleanups.push(f.rm);
    const live = path.join(f.dir, 'live');
    const { cpSync } = await import('node:fs');
    cpSync(f.v1, live, { recursive: true });
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--flows', live, '--ledger', at], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    cleanups.push(() => {
      child.kill('SIGTERM');
      return new Promise((r) => child.once('exit', r));
    });
    const until = async (re: RegExp): Promise<RegExpExecArray> => {
      for (let i = 0; i < 600; i++) {
        const m = re.exec(err);
        if (m) return m;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`serve never printed ${re}: ${err}`);
    };
    const base = (await until(/listening on (http:\/\/\S+) /))[1]!;
    const route = async (body: unknown) => (await (await fetch(`${base}/v1/route`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as { next_step_id?: string; code?: string };
    expect((await route(ship('s1', 'draft', 'SUCCEEDED'))).next_step_id).toBe('review');
    rmSync(live, { recursive: true });
    cpSync(f.v2, live, { recursive: true });
    child.kill('SIGHUP');
    await until(/SIGHUP: flows reloaded/);
    expect(err).toMatch(/new runs get version/);
    expect((await route(ship('s1', 'review', 'APPROVED'))).next_step_id).toBe('polish');
    expect((await route(ship('s2', 'draft', 'SUCCEEDED'))).next_step_id).toBe('critique');
    expect((await (await fetch(`${base}/v1/healthz`)).json()) as { flows_hash: string }).toMatchObject({ flows_hash: defineFlows(SHIP_V2).hash });
    // A broken flow set on SIGHUP keeps the loaded one.
    rmSync(live, { recursive: true });
    child.kill('SIGHUP');
    await until(/SIGHUP: kept the flows already loaded/);
    expect((await route(ship('s3', 'draft', 'SUCCEEDED'))).next_step_id).toBe('critique');
    // A change to the flow files is seen without a signal (polled every second).
    cpSync(f.v1, live, { recursive: true });
    await until(new RegExp(`flow files changed: flows reloaded[^\\n]*version ${defineFlows(SHIP_V1).hash.slice(0, 12)}`));
    expect((await route(ship('s4', 'draft', 'SUCCEEDED'))).next_step_id).toBe('review');
    expect((await route(ship('s3', 'critique', 'APPROVED'))).next_step_id).toBe('legal');
  });
});
