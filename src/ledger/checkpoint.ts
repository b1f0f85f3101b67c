// Signed checkpoints: a statement of what the ledger held at a moment (the run register's size and head hash, and every
// run's head), signed with Ed25519, as Certificate Transparency logs publish signed tree heads. Kept outside the ledger
// (a file, a URL, a commit, an e-mail), it proves later that nothing it covered was removed or rewritten, the newest
// runs included, which the ledger's own chains cannot: whoever can write the database can also drop its last entries.
//
// Structure: the run register is already a hash chain (entry i hashes entry i-1), so "the register at size n is a
// prefix of today's" is proven by recomputing the first n entries of today's register and finding the signed head at
// n. A Merkle tree (CT's choice) gives O(log n) consistency proofs to a third party that does not hold the entries;
// here the verifier holds the whole ledger and `verify` walks it anyway, so the chain needs no new structure, no
// schema change, and a checkpoint of a ledger written before checkpoints existed is valid. Runs grow after their
// register entry (routes are appended), so the checkpoint also covers each run's head (last seq and its hash) through
// `heads_root`, the sha256 of the heads list that travels in the file: a run truncated or rewritten after the
// checkpoint no longer has that hash at that seq.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { canonicalJson } from '../contracts/canonical-json.js';
import type { Ledger } from '../contracts/ports.js';
import { GENESIS_HASH, registerHash, unsealedFields } from './chain.js';
import { readBundle } from './archive/bundle.js';
import { checkpointInvalid } from './archive/errors.js';
import { requireArchiveStore } from './archive/archive-runs.js';

export const CHECKPOINT_FORMAT = 'navkernel-checkpoint';

/** What is signed (its canonical JSON). */
export interface CheckpointStatement {
  format: typeof CHECKPOINT_FORMAT;
  version: 1;
  /** Entries of the run register (one per run ever created, archived ones included). */
  register_size: number;
  /** Hash (hex) of the register's last entry; GENESIS_HASH when empty. */
  register_head: string;
  /** Runs in `heads`, and the sum of their last seq (routes covered). */
  runs: number;
  routes: number;
  /** sha256 (hex) of the canonical JSON of `heads`. */
  heads_root: string;
  /** When the checkpoint was taken (the signer's clock). */
  ts: string;
  /**
   * sha256 (hex) of the canonical JSON of `tombstones` (archived runs' seals). Absent in checkpoints taken before
   * tombstones were sealed: those cover archived runs through `heads` only.
   */
  tombstones_root?: string;
}

/** A signed statement of a ledger at one moment: its runs, their heads and the run register. */
export interface Checkpoint {
  statement: CheckpointStatement;
  /** Ed25519 signature of canonicalJson(statement), base64. */
  signature: string;
  /** sha256 (hex) of the public key (SPKI DER): which key signed. */
  key_id: string;
  /** [run_id, last_seq, head_hash] per run, sorted by run_id: covered by heads_root. */
  heads: [string, number, string][];
  /** [run_id, archived_seal] per archived run, sorted by run_id: covered by tombstones_root (every tombstone column). */
  tombstones?: [string, string][];
}

function loadKey(file: string, kind: 'private' | 'public'): KeyObject {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw checkpointInvalid(`cannot read the ${kind} key ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    const key = kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
    if (key.asymmetricKeyType !== 'ed25519') throw new Error(`an ${String(key.asymmetricKeyType)} key, not ed25519`);
    return key;
  } catch (err) {
    throw checkpointInvalid(`${file} is not an Ed25519 ${kind} key in PEM (${(err as Error).message}); make one with: openssl genpkey -algorithm ed25519 -out key.pem`, { cause: err });
  }
}

const keyId = (pub: KeyObject) => createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('hex');

/** Takes a checkpoint of the ledger, signed with the Ed25519 private key in `keyFile` (PEM). */
export async function createCheckpoint(ledger: Ledger, keyFile: string, clock: () => Date = () => new Date()): Promise<Checkpoint> {
  const key = loadKey(keyFile, 'private');
  const store = requireArchiveStore(ledger);
  // The register first: a run created after this read has no head to cover; one created before it has a head, and a
  // route appended in between only makes a head newer than the register (both still hold later).
  const { size, head } = await store.registerHead();
  const heads = (await store.runHeads()).map((h): [string, number, string] => [h.run_id, h.last_seq, h.head_hash]);
  const tombstones = (await store.tombstones())
    .filter((t) => typeof t.seal === 'string')
    .map((t): [string, string] => [t.run_id, t.seal!])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const statement: CheckpointStatement = {
    format: CHECKPOINT_FORMAT,
    version: 1,
    register_size: size,
    register_head: head,
    runs: heads.length,
    routes: heads.reduce((n, h) => n + h[1], 0),
    heads_root: createHash('sha256').update(canonicalJson(heads)).digest('hex'),
    ts: clock().toISOString(),
    tombstones_root: createHash('sha256').update(canonicalJson(tombstones)).digest('hex'),
  };
  const signature = sign(null, Buffer.from(canonicalJson(statement)), key).toString('base64');
  return { statement, signature, key_id: keyId(createPublicKey(key)), heads, tombstones };
}

export interface CheckpointIssue {
  kind: 'signature' | 'heads_root' | 'register_truncated' | 'register_rewritten' | 'run_missing' | 'run_truncated' | 'run_rewritten' | 'tombstone_rewritten';
  run_id?: string;
  /** For tombstone_rewritten: the run register column that no longer holds what was signed. */
  field?: string;
  message: string;
}

/** What verifyCheckpoint found: whether the ledger still holds what the checkpoint signed. */
export interface CheckpointReport {
  ok: boolean;
  /** What the checkpoint covers. */
  register_size: number;
  runs: number;
  routes: number;
  ts: string;
  /** The ledger's register size now. */
  ledger_register_size: number;
  /** Runs whose covered head was found in an archive bundle instead of the ledger. */
  from_archive: number;
  issues: CheckpointIssue[];
}

/** Reads a checkpoint file (checkpointInvalid when it is not one). */
export function readCheckpoint(file: string): Checkpoint {
  let v: Checkpoint;
  try {
    v = JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;
  } catch (err) {
    throw checkpointInvalid(`cannot read checkpoint ${file}: ${(err as Error).message}`, { cause: err });
  }
  const s = v?.statement;
  if (!s || s.format !== CHECKPOINT_FORMAT || s.version !== 1 || typeof v.signature !== 'string' || !Array.isArray(v.heads) || !Number.isSafeInteger(s.register_size)) {
    throw checkpointInvalid(`${file} is not a navkernel checkpoint (version 1)`);
  }
  return v;
}

/**
 * Checks a checkpoint's signature with the public key, then that the ledger still holds everything it covers: the
 * first `register_size` entries of the register rechain to `register_head`, and every covered run still has its
 * covered head (the route at that seq with that hash) in the ledger, or, for an archived run, in its tombstone or its
 * bundle under `archiveDir`. The ledger's own `verify` then checks each chain up to its head.
 */
export async function verifyCheckpoint(ledger: Ledger, cp: Checkpoint, pubKeyFile: string, options: { archiveDir?: string } = {}): Promise<CheckpointReport> {
  const pub = loadKey(pubKeyFile, 'public');
  const s = cp.statement;
  const issues: CheckpointIssue[] = [];
  const report: CheckpointReport = { ok: false, register_size: s.register_size, runs: s.runs, routes: s.routes, ts: s.ts, ledger_register_size: 0, from_archive: 0, issues };
  if (!verify(null, Buffer.from(canonicalJson(s)), pub, Buffer.from(cp.signature, 'base64'))) {
    issues.push({ kind: 'signature', message: `the signature does not verify with ${pubKeyFile} (key ${keyId(pub).slice(0, 16)}; the checkpoint names ${String(cp.key_id).slice(0, 16)}): the checkpoint was altered or signed by another key` });
    return report;
  }
  if (createHash('sha256').update(canonicalJson(cp.heads)).digest('hex') !== s.heads_root || cp.heads.length !== s.runs) {
    issues.push({ kind: 'heads_root', message: 'the heads list does not match the signed heads_root: the checkpoint file was altered' });
    return report;
  }
  if (s.tombstones_root !== undefined && createHash('sha256').update(canonicalJson(cp.tombstones ?? [])).digest('hex') !== s.tombstones_root) {
    issues.push({ kind: 'heads_root', message: 'the tombstones list does not match the signed tombstones_root: the checkpoint file was altered' });
    return report;
  }
  const register = await ledger.runRegister();
  report.ledger_register_size = register.length;
  if (register.length < s.register_size) {
    issues.push({ kind: 'register_truncated', message: `the run register has ${register.length} entries, the checkpoint covers ${s.register_size}: entries (runs) were removed` });
  }
  let prev = GENESIS_HASH;
  const n = Math.min(register.length, s.register_size);
  for (let i = 0; i < n; i++) {
    const e = register[i]!;
    if (e.prev_hash !== prev || e.hash !== registerHash(prev, e.run_id, e.first_hash)) {
      issues.push({ kind: 'register_rewritten', run_id: e.run_id, message: `run register entry ${i + 1} does not chain: the register was rewritten before the checkpoint's head` });
      break;
    }
    prev = e.hash;
  }
  if (register.length >= s.register_size && issues.length === 0 && prev !== s.register_head) {
    issues.push({ kind: 'register_rewritten', message: `the register's entry ${s.register_size} is not the one signed: the register was rewritten (its head ${prev.slice(0, 12)}, signed ${s.register_head.slice(0, 12)})` });
  }
  const tombs = new Map((await requireArchiveStore(ledger).tombstones()).map((t) => [t.run_id, t]));
  for (const [run_id, seq, hash] of cp.heads) {
    const now = await ledger.routeHash(run_id, seq);
    if (now === hash) continue;
    if (now !== undefined) {
      issues.push({ kind: 'run_rewritten', run_id, message: `route ${seq} of run ${JSON.stringify(run_id)} has another hash than the checkpoint's: the run was rewritten` });
      continue;
    }
    const t = tombs.get(run_id);
    if (t) {
      if (t.last_seq === seq && t.head_hash === hash) continue;
      if (t.last_seq > seq && options.archiveDir === undefined) continue; // covered by the bundle's chain (verify --archive)
      if (t.last_seq > seq) {
        try {
          const { bundle } = readBundle(`${options.archiveDir}/${t.archived_to.split(/[\\/]/).pop()}`);
          if (bundle.routes.find((r) => r.seq === seq)?.hash === hash) {
            report.from_archive++;
            continue;
          }
        } catch {
          // reported below
        }
      }
      issues.push({ kind: 'run_rewritten', run_id, message: `the archived run ${JSON.stringify(run_id)} does not hold the checkpoint's route ${seq}` });
      continue;
    }
    const head = await ledger.run(run_id);
    if (head) issues.push({ kind: 'run_truncated', run_id, message: `run ${JSON.stringify(run_id)} has no route ${seq} (its head says seq ${head.last_seq}), the checkpoint covers it: routes were removed` });
    else issues.push({ kind: 'run_missing', run_id, message: `run ${JSON.stringify(run_id)}, covered by the checkpoint, is gone from the ledger (not archived)` });
  }
  // Each tombstone the checkpoint signed: its columns now against the signed seal's fingerprints (so an edit is named
  // even when the stored seal was recomputed to match it). A run restored since is live again: its head was checked above.
  if (s.tombstones_root !== undefined) {
    const entries = new Map(register.map((e) => [e.run_id, e]));
    for (const [run_id, seal] of cp.tombstones ?? []) {
      const t = tombs.get(run_id);
      const e = entries.get(run_id);
      if (!t) {
        if (!(await ledger.run(run_id))) issues.push({ kind: 'tombstone_rewritten', run_id, field: 'archived_ts', message: `archived run ${JSON.stringify(run_id)} has lost its tombstone (and is not back in the ledger)` });
        continue;
      }
      if (!e) continue; // reported with the register above
      for (const field of unsealedFields(seal, e.hash, run_id, t)) {
        issues.push({ kind: 'tombstone_rewritten', run_id, field, message: `the tombstone of archived run ${JSON.stringify(run_id)} no longer holds what the checkpoint signed: ${field} was edited` });
      }
    }
  }
  report.ok = issues.length === 0;
  return report;
}
