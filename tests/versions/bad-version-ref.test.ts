// `ledger:HASH` names a flow version the ledger keeps (docs/changing-flows.md). Every wrong way to name one gets a
// typed error that says what is wrong, from the library and from `flows diff`, and the ledger is left as it was.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernel, defineFlows } from '../../src/kernel/index.js';
import { flowsByRef } from '../../src/runs/flow-refs.js';
import { runCliHere } from '../support/cli.js';
import { SHIP_V1, SHIP_V2, flowFolders, openLedgerAt, ship, tmp } from './fixtures.js';

const v1 = defineFlows(SHIP_V1);
const v2 = defineFlows(SHIP_V2);
let dir: string;
let at: string;
let folders: ReturnType<typeof flowFolders>;

beforeAll(async () => {
  dir = tmp();
  at = path.join(dir, 'ledger.sqlite');
  folders = flowFolders();
  // Two kept versions: v1 and v2, each recorded by a kernel that routed a run on it.
  for (const [flows, run] of [[v1, 'a'], [v2, 'b']] as const) {
    const ledger = openLedgerAt(at);
    const k = createKernel({ flows, store: ledger });
    await k.route(ship(run, 'draft', 'SUCCEEDED'));
    await k.close();
  }
});
afterAll(() => {
  folders.rm();
  rmSync(dir, { recursive: true, force: true });
});

async function refusal(ref: string, withLedger = true): Promise<{ code?: string; message?: string }> {
  const ledger = withLedger ? openLedgerAt(at) : undefined;
  try {
    await flowsByRef(ref, ledger);
    return {};
  } catch (e) {
    return e as { code?: string; message?: string };
  } finally {
    await ledger?.close();
  }
}

describe('naming a kept flow version wrongly', () => {
  it('finds a kept version by a unique prefix of 6 or more hex digits, in any case', async () => {
    const ledger = openLedgerAt(at);
    try {
      expect((await flowsByRef(`ledger:${v2.hash.slice(0, 8).toUpperCase()}`, ledger)).hash).toBe(v2.hash);
    } finally {
      await ledger.close();
    }
  });

  it.each([
    ['not hex', 'ledger:zzzzzzzz', 'INVALID_OPTION', /6 to 64 hex digits.*"zzzzzzzz"/],
    ['too short', 'ledger:abc', 'INVALID_OPTION', /6 to 64 hex digits/],
    ['empty', 'ledger:', 'INVALID_OPTION', /6 to 64 hex digits/],
    ['kept by nobody', 'ledger:000000000000', 'FLOW_VERSION_UNKNOWN', /no flow version 000000000000 is kept/],
  ])('%s: %s is refused with %s', async (_what, ref, code, message) => {
    const e = await refusal(ref);
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
  });

  it('names the kept versions when the hash is unknown, so the user can pick one', async () => {
    const e = await refusal('ledger:000000000000');
    expect(e.message).toContain(v1.hash.slice(0, 12));
    expect(e.message).toContain(v2.hash.slice(0, 12));
  });

  it('without a ledger, says a ledger is needed', async () => {
    const e = await refusal(`ledger:${v1.hash.slice(0, 8)}`, false);
    expect(e.code).toBe('INVALID_OPTION');
    expect(e.message).toMatch(/pass --ledger PATH/);
  });

  it('`flows diff` exits 2 with the code in its JSON error and leaves the ledger as it was', async () => {
    const r = await runCliHere(['flows', 'diff', 'ledger:000000000000', folders.v2, '--ledger', at, '--json']);
    expect(r.code).toBe(2);
    // With --json the error is the output: one JSON line on stdout (docs/errors.md).
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'FLOW_VERSION_UNKNOWN', message: expect.stringContaining(v1.hash.slice(0, 12)) } });
    const ledger = openLedgerAt(at);
    try {
      expect((await ledger.flowVersions()).map((v) => v.hash).sort()).toEqual([v1.hash, v2.hash].sort());
    } finally {
      await ledger.close();
    }
  });
});
