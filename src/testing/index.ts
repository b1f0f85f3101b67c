// navkernel/testing: the store conformance kit. A store (yours, or a fork of ours) passes it part by part, from
// vitest, jest or node:test: `storeConformance({ describe, it }, { name, create }, { parts })`. docs/store-authors.md.
import type { KernelStore, Ledger } from '../contracts/ports.js';
import { escalationStoreChecks } from './escalation-store-part.js';
import type { StoreUnderTest, TestApi } from './harness.js';
import { kernelStoreChecks } from './kernel-store-part.js';
import { runReaderChecks } from './run-reader-part.js';
import { statsReaderChecks } from './stats-reader-part.js';
import { STORE_PORTS, type StorePart } from './store-ports.js';

export type { StoreLocation, StoreUnderTest, TestApi } from './harness.js';
export { STORE_PORTS, type StorePart } from './store-ports.js';

/** Every part, in the order they are checked. */
export const STORE_PARTS = Object.keys(STORE_PORTS) as StorePart[];

/** Options of storeConformance: the parts the store implements. */
export interface StoreConformanceOptions {
  /**
   * The parts the store implements (default: all of them). A kernel-only store (like `MemoryStore`) passes
   * `['KernelStore']`; the reader parts are checked on stores that also implement KernelStore, since the kit writes
   * through `append` what it reads back.
   */
  parts?: readonly StorePart[];
}

/**
 * Registers the conformance checks of `store` with the test framework's `describe` and `it`: one `describe` per part,
 * each check on a fresh location, every handle closed and the location cleaned up after it.
 */
export function storeConformance<S extends KernelStore>(api: TestApi, store: StoreUnderTest<S>, options: StoreConformanceOptions = {}): void {
  const parts = new Set(options.parts ?? STORE_PARTS);
  for (const p of parts) if (!STORE_PARTS.includes(p)) throw new TypeError(`navkernel/testing: unknown store part ${JSON.stringify(p)} (parts: ${STORE_PARTS.join(', ')})`);
  const ledger = store as unknown as StoreUnderTest<Ledger>;
  api.describe(`store conformance: ${store.name}`, () => {
    if (parts.has('KernelStore')) kernelStoreChecks(api, store);
    if (parts.has('RunReader')) runReaderChecks(api, ledger);
    if (parts.has('StatsReader')) statsReaderChecks(api, ledger);
    if (parts.has('EscalationStore')) escalationStoreChecks(api, ledger);
  });
}
