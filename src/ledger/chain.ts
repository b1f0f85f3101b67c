import { createHash, hash } from 'node:crypto';
import { sha256 } from '../contracts/canonical-json.js';

/** prev_hash of the first route of a run. */
export const GENESIS_HASH = '0'.repeat(64);

/** The stored fields of a route that its hash covers (JSON fields as their stored text). */
export interface ChainedFields {
  run_id: string;
  seq: number;
  flow: string;
  step: string;
  request_id: string | null;
  request: string;
  decision_json: string;
  state: string;
  latency_us: number;
  cost_usd: number;
  /** `[` + the canonical JSON of each LLM call record, in order, joined by `,` + `]`. */
  llm_calls_json: string;
  kernel_version: string;
  flows_hash: string;
  ts: string;
  /**
   * Who sent the route (the authenticated principal of `navkernel serve`), or null/absent when nobody was recorded
   * (schema 7). Framed after `ts` only when set, so every route recorded without one hashes exactly as before.
   */
  principal?: string | null;
}

/**
 * Hex sha256 of a route chained to the previous row of its run. Each field is framed by its length
 * (`<length>:<text>`), so no two different rows hash the same text, without copying the JSON columns
 * into one escaped string first (that copy cost more than the hash).
 */
export function routeHash(prevHashHex: string, f: ChainedFields): string {
  const parts = [
    prevHashHex, f.run_id, String(f.seq), f.flow, f.step, f.request_id === null ? '\u0000' : f.request_id, f.request, f.decision_json, f.state,
    String(f.latency_us), String(f.cost_usd), f.llm_calls_json, f.kernel_version, f.flows_hash, f.ts,
  ];
  // Length framing parses back unambiguously, so one frame more (the principal) can never hash as a row without it.
  if (f.principal != null) parts.push(f.principal);
  // One update over the concatenated frames (the same bytes as one update per frame, so the same hash):
  // each update crosses into native code, and thirty of them cost more than the string concatenation.
  let text = '';
  for (const p of parts) text += `${p.length}:${p}`;
  // crypto.hash: one call for a one-shot digest (no Hash object, no update/digest round trips).
  return hash('sha256', text, 'hex');
}

/** The llm_calls_json a route's hash covers, from the calls' canonical JSON texts. */
export function llmCallsJson(records: readonly string[]): string {
  return `[${records.join(',')}]`;
}

/** Hex sha256 tying an escalation's resolution to the ESCALATE route it resolves. */
export function resolutionHash(routeHashHex: string, escalationId: string, resolutionJson: string): string {
  return sha256(JSON.stringify([routeHashHex, escalationId, resolutionJson]));
}

/** The hashed fields of a route, in frame order (after prev_hash); `principal` is framed only when set. */
export const CHAINED_FIELD_NAMES = [
  'run_id', 'seq', 'flow', 'step', 'request_id', 'request', 'decision_json', 'state', 'latency_us', 'cost_usd', 'llm_calls', 'kernel_version', 'flows_hash', 'ts', 'principal',
] as const;
/** How many frames every route has (all but the optional principal). */
const ALWAYS_FRAMED = CHAINED_FIELD_NAMES.length - 1;

/** The JSON columns: fingerprinted by their length only (hashing each separately costs more than the route). */
const BY_LENGTH = new Set<string>(['request', 'decision_json', 'state', 'llm_calls']);

function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

function chainedValues(f: ChainedFields): string[] {
  const v = [
    f.run_id, String(f.seq), f.flow, f.step, f.request_id === null ? '\u0000' : f.request_id, f.request, f.decision_json, f.state,
    String(f.latency_us), String(f.cost_usd), f.llm_calls_json, f.kernel_version, f.flows_hash, f.ts,
  ];
  if (f.principal != null) v.push(f.principal);
  return v;
}

/**
 * A per-field fingerprint of a route's hashed fields (`routes.field_sums`): a 32-bit FNV-1a of each short
 * field and the length of each JSON column. Not a security measure (the chain is): it lets `verify` name the
 * field that was edited when a row no longer matches its hash.
 */
export function fieldSums(f: ChainedFields): string {
  const v = chainedValues(f);
  let out = '';
  for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + (BY_LENGTH.has(CHAINED_FIELD_NAMES[i]!) ? `#${v[i]!.length}` : fnv1a(v[i]!));
  return out;
}

/**
 * The hashed fields whose fingerprints differ from `stored` (all of them when `stored` is unreadable). A principal
 * set or cleared after the row was written shows as a fingerprint more or less: named `principal`.
 */
export function changedFields(stored: string, f: ChainedFields): string[] {
  const now = fieldSums(f).split(',');
  const then = stored.split(',');
  const framed = (n: number) => n === ALWAYS_FRAMED || n === ALWAYS_FRAMED + 1;
  if (!framed(then.length) || !framed(now.length)) return [...CHAINED_FIELD_NAMES];
  return CHAINED_FIELD_NAMES.filter((_, i) => now[i] !== then[i]);
}

/** Hex sha256 chaining a run into the ledger-wide run register, after the previous entry. */
export function registerHash(prevHashHex: string, runId: string, firstHashHex: string): string {
  return hash('sha256', `${prevHashHex.length}:${prevHashHex}${runId.length}:${runId}${firstHashHex.length}:${firstHashHex}`, 'hex');
}

/** The tombstone columns of a run register entry (set when the run is archived), in seal order. */
export const TOMBSTONE_FIELD_NAMES = ['archived_ts', 'archived_to', 'archived_seq', 'archived_hash', 'bundle_sha256'] as const;

/** A tombstone's stored values, as a seal covers them. */
export interface SealedTombstone {
  archived_ts: string;
  archived_to: string;
  last_seq: number;
  head_hash: string;
  bundle_sha256: string;
}

const tombstoneValues = (t: SealedTombstone) => [t.archived_ts, t.archived_to, String(t.last_seq), t.head_hash, t.bundle_sha256];

/**
 * The seal of a tombstone (`run_register.archived_seal`): the hex sha256 of its columns chained to the register
 * entry's hash (length-framed as the route chain), then `;` and a per-column FNV-1a fingerprint so that `verify`
 * names the column that was edited, as `routes.field_sums` does for a route.
 */
export function tombstoneSeal(registerHashHex: string, runId: string, t: SealedTombstone): string {
  let text = `${registerHashHex.length}:${registerHashHex}${runId.length}:${runId}`;
  const v = tombstoneValues(t);
  for (const p of v) text += `${p.length}:${p}`;
  return `${createHash('sha256').update(text).digest('hex')};${v.map(fnv1a).join(',')}`;
}

/**
 * The tombstone columns whose values no longer match `stored` (a seal): the edited columns by their fingerprints,
 * `archived_seal` when only the seal itself changed (or is missing or unreadable), [] when it holds.
 */
export function unsealedFields(stored: string | null | undefined, registerHashHex: string, runId: string, t: SealedTombstone): string[] {
  const now = tombstoneSeal(registerHashHex, runId, t);
  if (stored === now) return [];
  const then = typeof stored === 'string' ? stored.split(';')[1]?.split(',') : undefined;
  if (!then || then.length !== TOMBSTONE_FIELD_NAMES.length) return ['archived_seal'];
  const v = tombstoneValues(t).map(fnv1a);
  const changed = TOMBSTONE_FIELD_NAMES.filter((_, i) => v[i] !== then[i]);
  return changed.length ? [...changed] : ['archived_seal'];
}
