// The store port is split by who uses it (issue 22.11): callers take the part they use, never the former wide
// LedgerReader, and every store implements its parts (the conformance suite checks the ledgers; the memory store here).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/kernel/index.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { STORE_PORTS } from '../store-conformance/ports.js';

describe('store ports', () => {
  it('no module of src/ names the former wide LedgerReader (removed at 1.0)', () => {
    const users = (readdirSync(path.join(ROOT, 'src'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /\bLedgerReader\b/.test(readFileSync(path.join(ROOT, 'src', f), 'utf8')));
    expect(users).toEqual([]);
  });

  it('no command of src/cli reaches past the store ports for the SQLite handle (ledgerSql, .db)', () => {
    const cli = path.join(ROOT, 'src', 'cli');
    const users = (readdirSync(cli, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /\bledgerSql\(|\.sql\.db\b/.test(readFileSync(path.join(cli, f), 'utf8')));
    expect(users).toEqual([]);
  });

  it('the parts are small and only two of them write: KernelStore (append) and EscalationStore (resolveEscalation)', () => {
    const ports = readFileSync(path.join(ROOT, 'src', 'contracts', 'ports.ts'), 'utf8');
    for (const [port, names] of Object.entries(STORE_PORTS)) {
      expect(ports, port).toMatch(new RegExp(`export interface ${port}\\b`));
      expect(names.length, port).toBeLessThanOrEqual(13);
    }
    expect(STORE_PORTS.RunReader.some((m) => /^(append|resolve|write|delete|insert)/.test(m))).toBe(false);
    expect(STORE_PORTS.StatsReader.some((m) => /^(append|resolve|write|delete|insert)/.test(m))).toBe(false);
  });

  it('the kernel memory store implements the kernel part', () => {
    const store = new MemoryStore() as unknown as Record<string, unknown>;
    for (const m of STORE_PORTS.KernelStore) expect(typeof store[m], m).toBe('function');
  });
});
