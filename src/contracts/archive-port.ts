// The archive port: what `navkernel ledger archive`, `restore`, `verify --archive` and `checkpoint` need from a store, kept
// apart from the kernel's store and the run reader (src/contracts/ports.ts) so that each user sees only its part.
import type { StoredEscalation, StoredLlmCall, StoredRoute, StoredRun, StoredRunEntry, StoredUpgrade } from './ports.js';

/**
 * What the run register keeps of a run moved out of the ledger: the register entry itself stays (its hash chain and
 * every checkpoint over it are unchanged), with these columns set and sealed (`archived_seal`, chained to the entry's
 * hash: `verify` names an edited column); `verify --archive DIR` checks the claim against the bundle, and a signed
 * checkpoint (src/ledger/checkpoint.ts) anchors what the register held.
 */
export interface Tombstone {
  run_id: string;
  /** The register entry's ordinal (1-based position in the register). */
  ordinal: number;
  /** When the run was archived (ISO time from the archiver's clock). */
  archived_ts: string;
  /** Where the bundle went: its file name as written (`<dir>/<name>`). */
  archived_to: string;
  /** The run's last seq and head hash (hex) when archived: the bundle's last route must have them. */
  last_seq: number;
  head_hash: string;
  /** sha256 (hex) of the bundle's uncompressed JSON: any edit of the bundle, hashed field or not, changes it. */
  bundle_sha256: string;
  /** The stored seal over the columns above (as read back; written by the store, null when missing). */
  seal?: string | null;
}

/** Every stored row of one run, as the run reader gives them: what a bundle holds and a restore writes back. */
export interface RunRows {
  register: StoredRunEntry;
  run: StoredRun;
  routes: StoredRoute[];
  llm_calls: StoredLlmCall[];
  escalations: StoredEscalation[];
  /** The run's upgrades (docs/changing-flows.md); absent when it has none (and in bundles written before them). */
  upgrades?: StoredUpgrade[];
  /** The kept definitions of the flow versions the run used; absent when none is kept. */
  flow_versions?: { hash: string; definition: string }[];
}

/** Which runs `archivableRuns` selects. */
export interface ArchiveSelection {
  /** Runs whose last update (`runs.updated_ts`) is before this ISO time. */
  before?: string;
  /** These runs (each must exist). */
  runs?: string[];
  /** Also runs not terminated or with an open escalation (default false: finished runs only). */
  include_active?: boolean;
  /** At most this many runs, oldest first. */
  limit?: number;
}

/** Space given back to the file system (SQLite) or made reusable / returned (PostgreSQL) after archiving. */
export interface ReclaimReport {
  mode: 'incremental' | 'vacuum' | 'vacuum_full' | 'reuse';
  bytes_before: number;
  bytes_after: number;
}

/**
 * The archive operations of a store. Implemented by the SQLite and the PostgreSQL ledger (src/ledger/archive/);
 * `archiveStoreFor(ledger)` gives a ledger's.
 */
export interface ArchiveStore {
  /** Run ids matching the selection, oldest first; without `include_active` only terminated runs with no open escalation. */
  archivableRuns(selection: ArchiveSelection): Promise<string[]>;
  /**
   * Deletes the runs' rows and sets their tombstones, in one transaction; a run that changed since its bundle was
   * written (its head moved, or an escalation was resolved: `resolved_escalations` differs) or that is archived
   * already is left alone and returned in `skipped`.
   */
  bury(items: readonly { tombstone: Tombstone; resolved_escalations: number }[]): Promise<{ buried: string[]; skipped: string[] }>;
  /** Writes a bundle's rows back and clears the tombstone, in one transaction (archiveInvalid when they do not fit). */
  unbury(rows: RunRows): Promise<void>;
  /** Every tombstone of the run register, by ordinal. */
  tombstones(): Promise<Tombstone[]>;
  /** The register's size and head hash (hex), read in one statement: what a checkpoint signs. */
  registerHead(): Promise<{ size: number; head: string }>;
  /** Every run's head (run_id, last_seq, head_hash), sorted by run_id, live runs and tombstones both. */
  runHeads(): Promise<{ run_id: string; last_seq: number; head_hash: string }[]>;
  /** Gives space back after deletions; `full` takes the slow exclusive path (SQLite VACUUM, PostgreSQL VACUUM FULL). */
  reclaim(full: boolean): Promise<ReclaimReport>;
  /** Bytes the ledger occupies (file pages, or the tables' relation sizes). */
  sizeBytes(): Promise<number>;
}
