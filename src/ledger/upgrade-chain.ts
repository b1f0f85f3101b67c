// A run's upgrades (docs/changing-flows.md) form a side chain of its routes, as a resolution does: each upgrade's hash
// covers the hash before it (the route at its seq, or the upgrade before it at that seq) and every field it records.
import { sha256 } from '../contracts/canonical-json.js';
import type { StoredUpgrade } from '../contracts/ports.js';

/** The fields an upgrade's hash covers, in order. */
const UPGRADE_FIELDS = ['run_id', 'seq', 'idx', 'from_flows', 'to_flows', 'map', 'state', 'by', 'reason', 'ts'] as const;

/** Hex sha256 of an upgrade: the previous hash (hex) and its fields, framed as a JSON array. */
export function upgradeHash(prevHex: string, u: Omit<StoredUpgrade, 'prev_hash' | 'hash'>): string {
  return sha256(JSON.stringify([prevHex, ...UPGRADE_FIELDS.map((k) => u[k])]));
}

/** The stored upgrade built from what the caller gives, its place (idx) and the hash before it. */
export function chainUpgrade(u: Omit<StoredUpgrade, 'idx' | 'prev_hash' | 'hash'>, idx: number, prevHex: string): StoredUpgrade {
  const withIdx = { ...u, idx };
  return { ...withIdx, prev_hash: prevHex, hash: upgradeHash(prevHex, withIdx) };
}
