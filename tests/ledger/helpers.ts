import { rmSync } from 'node:fs';
import { afterEach, beforeAll } from 'vitest';
import path from 'node:path';
import { scriptedArbiter, steppingClock } from '../../src/testing/fixtures.js';
import type { ArbiterPort, RouteRequest, Decision, KernelStore, RouteRecord, RunState } from '../../src/contracts/index.js';
import { MemoryStore, createKernel, loadFlows, type FlowSet, type Kernel } from '../../src/kernel/index.js';
import { openLedger, type LedgerOptions, type SqliteLedger } from '../../src/ledger/index.js';
import { CHARTERS } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

/** A fresh folder under the OS tmp dir; remove it with `cleanup` (else it goes after the test file). */
export function tmpDir(): { dir: string; file: string; cleanup: () => void } {
  const dir = tempDir('navkernel-ledger-');
  return { dir, file: path.join(dir, 'ledger.sqlite'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const sampleFlows = (): Promise<FlowSet> => loadFlows(CHARTERS);

/**
 * The setup many ledger test files share: the sample flows, loaded once before the file's tests, and a list of
 * cleanups run (last first) after each test. Call at the top level of a test file.
 */
export function ledgerFixtures(): { readonly flows: FlowSet; cleanups: (() => void)[] } {
  let flows: FlowSet | undefined;
  const cleanups: (() => void)[] = [];
  beforeAll(async () => {
    flows = await sampleFlows();
  });
  afterEach(() => {
    while (cleanups.length) cleanups.pop()!();
  });
  return {
    get flows(): FlowSet {
      if (!flows) throw new Error('ledgerFixtures: the flows are loaded in beforeAll; read them inside a test');
      return flows;
    },
    cleanups,
  };
}



export function ledgerKernel(file: string, flows: FlowSet, options: LedgerOptions & { arbiter?: ArbiterPort; clock?: () => Date } = {}): { ledger: SqliteLedger; kernel: Kernel } {
  const { arbiter, clock, ...ledgerOptions } = options;
  const ledger = openLedger(file, ledgerOptions);
  const kernel = createKernel({ flows, store: ledger, clock: clock ?? steppingClock(), ...(arbiter ? { arbiter } : {}) });
  return { ledger, kernel };
}

export type Step = { request: RouteRequest; decision: Decision };

// One clock and one scripted arbiter for the ledger tests and the store kit (navkernel/testing).
export { scriptedArbiter, steppingClock };

/**
 * A store in memory that keeps a copy of everything a kernel gave it (`given`, in order): for tests that write those
 * records to a ledger themselves, e.g. in the shape an earlier navkernel recorded.
 */
export function capturingStore(): { store: KernelStore; given: [RouteRecord, RunState][] } {
  const memory = new MemoryStore();
  const given: [RouteRecord, RunState][] = [];
  const store: KernelStore = {
    loadRun: (id) => memory.loadRun(id),
    findByRequestId: (id, rid) => memory.findByRequestId(id, rid),
    append: async (record, state) => {
      given.push([structuredClone(record), structuredClone(state)]);
      await memory.append(record, state);
    },
    close: () => memory.close(),
  };
  return { store, given };
}
