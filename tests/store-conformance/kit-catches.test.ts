// The kit fails a store that breaks the contract: its checks, collected through a stand-in for describe/it and run
// here by hand, pass on MemoryStore and fail, by name, on stores that each break one rule.
import { describe, expect, it } from 'vitest';
import type { KernelStore, RouteRecord, RunState } from '../../src/contracts/index.js';
import { MemoryStore } from '../../src/kernel/index.js';
import { storeConformance, type StoreUnderTest } from '../../src/testing/index.js';

/** Runs every check the kit registers for `store`'s kernel part; returns the names of those that failed. */
async function failingChecks(store: StoreUnderTest): Promise<string[]> {
  const checks: { name: string; body: () => Promise<void> }[] = [];
  const prefix: string[] = [];
  storeConformance({ describe: (name, body) => (prefix.push(name), body(), prefix.pop()), it: (name, body) => checks.push({ name: [...prefix, name].join(' > '), body }) }, store, { parts: ['KernelStore'] });
  expect(checks.length).toBeGreaterThan(5);
  const failed: string[] = [];
  for (const c of checks) await c.body().catch(() => failed.push(c.name));
  return failed;
}

const memory = (make: () => KernelStore): StoreUnderTest => ({ name: 'under test', create: async () => {
  const s = make();
  return { open: async () => s };
} });

/** A memory store that records any seq: no conflict detection. */
class NoConflicts extends MemoryStore {
  private readonly inner = new MemoryStore();
  override async append(record: RouteRecord, state: RunState): Promise<void> {
    const head = (await this.inner.loadRun(record.run_id))?.seq ?? 0;
    if (record.seq !== head + 1) return;
    return this.inner.append(record, state);
  }
  override loadRun(run_id: string) {
    return this.inner.loadRun(run_id);
  }
  override findByRequestId(run_id: string, request_id: string) {
    return this.inner.findByRequestId(run_id, request_id);
  }
}

describe('navkernel/testing catches a store that breaks the KernelStore contract', () => {
  it('passes MemoryStore', async () => {
    expect(await failingChecks(memory(() => new MemoryStore()))).toEqual([]);
  });

  it('fails a store that takes a stale seq without a LedgerConflictError, naming the checks', async () => {
    const failed = await failingChecks(memory(() => new NoConflicts()));
    expect(failed).toEqual([
      'store conformance: under test > KernelStore > rejects an append whose seq does not follow the head with LedgerConflictError, recording nothing',
      'store conformance: under test > KernelStore > settles concurrent appends of many runs independently: a conflicting one fails alone',
      'store conformance: under test > KernelStore > a second handle (another process) sees what the first committed, and a stale writer gets a conflict',
    ]);
  });

  it('fails a store that forgets request ids', async () => {
    const failed = await failingChecks(memory(() => Object.assign(new MemoryStore(), { findByRequestId: async () => undefined })));
    expect(failed).toEqual(['store conformance: under test > KernelStore > appends in seq order and loads the last state; findByRequestId returns the decision and request hash']);
  });

  it('refuses an unknown part', () => {
    expect(() => storeConformance({ describe, it }, memory(() => new MemoryStore()), { parts: ['Nope' as 'KernelStore'] })).toThrow(/unknown store part "Nope"/);
  });
});
