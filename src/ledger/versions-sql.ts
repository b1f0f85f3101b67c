// The SQLite ledger's flow versions and run upgrades (docs/changing-flows.md): their tables and statements.
import type Database from 'better-sqlite3';
import type { StoredUpgrade } from '../contracts/ports.js';
import { GENESIS_HASH } from './chain.js';
import { chainUpgrade } from './upgrade-chain.js';

/**
 * Schema v9: `flow_versions` (content-addressed: flows_hash is the sha256 of definition) and `run_upgrades` (a run
 * moved to another version, chained to its route at `seq` like a resolution).
 */
export const SQLITE_VERSIONS_MIGRATION = `
  CREATE TABLE IF NOT EXISTS flow_versions (
    flows_hash TEXT PRIMARY KEY,
    definition TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS run_upgrades (
    run_id      TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    idx         INTEGER NOT NULL,
    from_flows  TEXT NOT NULL,
    to_flows    TEXT NOT NULL,
    map         TEXT NOT NULL,
    state       TEXT NOT NULL,
    upgraded_by TEXT NOT NULL,
    reason      TEXT NOT NULL,
    ts          TEXT NOT NULL,
    prev_hash   BLOB NOT NULL,
    hash        BLOB NOT NULL,
    PRIMARY KEY (run_id, seq, idx)
  ) WITHOUT ROWID;
`;

const UPGRADE_COLUMNS = "run_id, seq, idx, from_flows, to_flows, map, state, upgraded_by AS by, reason, ts, lower(hex(prev_hash)) AS prev_hash, lower(hex(hash)) AS hash";

/** Flow versions and upgrades on one SQLite connection. */
export class SqliteVersions {
  private readonly s;
  /**
   * Whether run_upgrades may hold a row, as of `seen` (PRAGMA data_version: it changes when another connection commits,
   * never for this one's own writes, which set the flag themselves). While nothing changed and the table was empty,
   * the kernel's per-route look for an upgrade costs one pragma instead of a query.
   */
  private any: boolean | undefined;
  private seen = -1;
  constructor(private readonly db: Database.Database) {
    this.s = {
      save: db.prepare('INSERT OR IGNORE INTO flow_versions (flows_hash, definition) VALUES (?, ?)'),
      get: db.prepare('SELECT definition FROM flow_versions WHERE flows_hash = ?').pluck(),
      all: db.prepare('SELECT flows_hash AS hash, definition FROM flow_versions ORDER BY flows_hash'),
      last: db.prepare(`SELECT ${UPGRADE_COLUMNS} FROM run_upgrades WHERE run_id = ? AND seq = ? ORDER BY idx DESC LIMIT 1`),
      ofRun: db.prepare(`SELECT ${UPGRADE_COLUMNS} FROM run_upgrades WHERE run_id = ? ORDER BY seq, idx`),
      head: db.prepare('SELECT last_seq FROM runs WHERE run_id = ?').pluck(),
      routeHash: db.prepare('SELECT lower(hex(hash)) FROM routes WHERE run_id = ? AND seq = ?').pluck(),
      insert: db.prepare(
        'INSERT INTO run_upgrades (run_id, seq, idx, from_flows, to_flows, map, state, upgraded_by, reason, ts, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)',
      ),
      deleteRun: db.prepare('DELETE FROM run_upgrades WHERE run_id = ?'),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      anyUpgrade: db.prepare('SELECT 1 FROM run_upgrades LIMIT 1').pluck(),
    };
  }

  saveFlowVersion(hash: string, definition: string): void {
    this.s.save.run(hash, definition);
  }
  flowVersion(hash: string): string | undefined {
    return this.s.get.get(hash) as string | undefined;
  }
  flowVersions(): { hash: string; definition: string }[] {
    return this.s.all.all() as { hash: string; definition: string }[];
  }
  lastUpgrade(run_id: string, seq: number): StoredUpgrade | undefined {
    const v = this.s.dataVersion.get() as number;
    if (v !== this.seen || this.any === undefined) {
      this.seen = v;
      this.any = this.s.anyUpgrade.get() !== undefined;
    }
    if (!this.any) return undefined;
    return this.s.last.get(run_id, seq) as StoredUpgrade | undefined;
  }
  runUpgrades(run_id: string): StoredUpgrade[] {
    return this.s.ofRun.all(run_id) as StoredUpgrade[];
  }
  /** In one IMMEDIATE transaction: the head check, the place and hash in the side chain, the insert. */
  recordUpgrade(u: Omit<StoredUpgrade, 'idx' | 'prev_hash' | 'hash'>): StoredUpgrade | false {
    return this.db
      .transaction(() => {
        if (this.s.head.get(u.run_id) !== u.seq) return false as const;
        const last = this.lastUpgrade(u.run_id, u.seq);
        const prev = last ? last.hash : ((this.s.routeHash.get(u.run_id, u.seq) as string | undefined) ?? GENESIS_HASH);
        const stored = chainUpgrade(u, last ? last.idx + 1 : 0, prev);
        this.insert(stored);
        return stored;
      })
      .immediate();
  }
  /** Writes a stored upgrade as it is (restore, migrate). */
  insert(x: StoredUpgrade): void {
    this.any = true;
    this.s.insert.run(x.run_id, x.seq, x.idx, x.from_flows, x.to_flows, x.map, x.state, x.by, x.reason, x.ts, Buffer.from(x.prev_hash, 'hex'), Buffer.from(x.hash, 'hex'));
  }
  deleteRun(run_id: string): void {
    this.s.deleteRun.run(run_id);
  }
}
