// The PostgreSQL ledger's flow versions and run upgrades (docs/changing-flows.md), as the SQLite ledger's
// (src/ledger/versions-sql.ts): same tables, same hashes.
import type pg from 'pg';
import type { StoredUpgrade } from '../../contracts/ports.js';
import { GENESIS_HASH } from '../chain.js';
import { chainUpgrade } from '../upgrade-chain.js';

const T = 'text COLLATE "C"';

/** Schema v9, as the SQLite ledger's v9. */
export const PG_VERSIONS_MIGRATION = `
  CREATE TABLE IF NOT EXISTS flow_versions (
    flows_hash ${T} PRIMARY KEY,
    definition ${T} NOT NULL
  );
  CREATE TABLE IF NOT EXISTS run_upgrades (
    run_id      ${T} NOT NULL,
    seq         integer NOT NULL,
    idx         integer NOT NULL,
    from_flows  ${T} NOT NULL,
    to_flows    ${T} NOT NULL,
    map         ${T} NOT NULL,
    state       ${T} NOT NULL,
    upgraded_by ${T} NOT NULL,
    reason      ${T} NOT NULL,
    ts          ${T} NOT NULL,
    prev_hash   bytea NOT NULL,
    hash        bytea NOT NULL,
    PRIMARY KEY (run_id, seq, idx)
  );
`;

const UPGRADE_COLUMNS = "run_id, seq, idx, from_flows, to_flows, map, state, upgraded_by AS by, reason, ts, encode(prev_hash, 'hex') AS prev_hash, encode(hash, 'hex') AS hash";

/** Flow versions and upgrades over a pool. */
export class PgVersions {
  constructor(private readonly pool: pg.Pool) {}

  async saveFlowVersion(hash: string, definition: string): Promise<void> {
    await this.pool.query({ name: 'nk_save_flows', text: 'INSERT INTO flow_versions (flows_hash, definition) VALUES ($1, $2) ON CONFLICT (flows_hash) DO NOTHING', values: [hash, definition] });
  }
  async flowVersion(hash: string): Promise<string | undefined> {
    const r = await this.pool.query<{ definition: string }>({ name: 'nk_flows', text: 'SELECT definition FROM flow_versions WHERE flows_hash = $1', values: [hash] });
    return r.rows[0]?.definition;
  }
  async flowVersions(): Promise<{ hash: string; definition: string }[]> {
    return (await this.pool.query<{ hash: string; definition: string }>('SELECT flows_hash AS hash, definition FROM flow_versions ORDER BY flows_hash')).rows;
  }
  async lastUpgrade(run_id: string, seq: number, client: pg.ClientBase | pg.Pool = this.pool): Promise<StoredUpgrade | undefined> {
    const r = await client.query<StoredUpgrade>({ name: 'nk_last_upgrade', text: `SELECT ${UPGRADE_COLUMNS} FROM run_upgrades WHERE run_id = $1 AND seq = $2 ORDER BY idx DESC LIMIT 1`, values: [run_id, seq] });
    return r.rows[0];
  }
  async runUpgrades(run_id: string): Promise<StoredUpgrade[]> {
    return (await this.pool.query<StoredUpgrade>({ name: 'nk_run_upgrades', text: `SELECT ${UPGRADE_COLUMNS} FROM run_upgrades WHERE run_id = $1 ORDER BY seq, idx`, values: [run_id] })).rows;
  }
  /** In one transaction holding the run's head row (FOR UPDATE): the head check, the side chain's place and hash, the insert. */
  async recordUpgrade(u: Omit<StoredUpgrade, 'idx' | 'prev_hash' | 'hash'>): Promise<StoredUpgrade | false> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const head = await client.query<{ last_seq: number }>('SELECT last_seq FROM runs WHERE run_id = $1 FOR UPDATE', [u.run_id]);
      if (head.rows[0]?.last_seq !== u.seq) {
        await client.query('ROLLBACK');
        return false;
      }
      const last = await this.lastUpgrade(u.run_id, u.seq, client);
      const route = await client.query<{ hash: string }>("SELECT encode(hash, 'hex') AS hash FROM routes WHERE run_id = $1 AND seq = $2", [u.run_id, u.seq]);
      const stored = chainUpgrade(u, last ? last.idx + 1 : 0, last ? last.hash : (route.rows[0]?.hash ?? GENESIS_HASH));
      await this.insert(stored, client);
      await client.query('COMMIT');
      return stored;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  }
  /** Writes a stored upgrade as it is (restore, migrate). */
  insert(x: StoredUpgrade, client: pg.ClientBase | pg.Pool = this.pool): Promise<void> {
    return insertUpgrade(client, x);
  }
}

/** Writes a stored upgrade as it is, on `client` (restore inside its transaction, migrate). */
export async function insertUpgrade(client: pg.ClientBase | pg.Pool, x: StoredUpgrade): Promise<void> {
  await client.query(
    "INSERT INTO run_upgrades (run_id, seq, idx, from_flows, to_flows, map, state, upgraded_by, reason, ts, prev_hash, hash) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,decode($11,'hex'),decode($12,'hex'))",
    [x.run_id, x.seq, x.idx, x.from_flows, x.to_flows, x.map, x.state, x.by, x.reason, x.ts, x.prev_hash, x.hash],
  );
}
