// The PostgreSQL ledger's archive operations (ArchiveStore), on its pool.
import type pg from 'pg';
import type { ArchiveSelection, ArchiveStore, ReclaimReport, RunRows, Tombstone } from '../../contracts/archive-port.js';
import type { PostgresLedger } from '../postgres/postgres-ledger.js';
import { wrapError } from '../postgres/pool.js';
import { REGISTER_LOCK_SQL } from '../postgres/schema.js';
import { insertUpgrade } from '../postgres/pg-versions.js';
import { tombstoneSeal } from '../chain.js';
import { archiveInvalid } from './errors.js';
import { NavkernelError } from '../../contracts/errors.js';

const FINISHED_SQL =
  "(u.last_decision = 'TERMINATE' OR (u.last_decision = 'ESCALATE' AND EXISTS (SELECT 1 FROM escalations e WHERE e.run_id = u.run_id " +
  "AND e.seq = u.last_seq AND e.status = 'resolved' AND e.resolution::jsonb ->> 'decision' = 'TERMINATE'))) " +
  "AND NOT EXISTS (SELECT 1 FROM escalations e WHERE e.run_id = u.run_id AND e.status = 'open')";

const TOMBSTONE_SELECT =
  "SELECT run_id, ordinal::float8 AS ordinal, archived_ts, archived_to, archived_seq AS last_seq, encode(archived_hash, 'hex') AS head_hash, bundle_sha256, archived_seal AS seal FROM run_register";

const TABLES = ['runs', 'routes', 'llm_calls', 'escalations', 'run_register'];

export class PostgresArchiveStore implements ArchiveStore {
  constructor(private readonly ledger: PostgresLedger) {}

  private async pool(): Promise<pg.Pool> {
    await this.ledger.ready();
    return this.ledger.sql.pool;
  }

  /** Runs `fn` in one transaction on one connection (typed errors for a lost server). */
  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const pool = await this.pool();
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw wrapError(this.ledger.target, err);
    }
    try {
      await client.query('BEGIN');
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw wrapError(this.ledger.target, err);
    } finally {
      client.release();
    }
  }

  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    const pool = await this.pool();
    try {
      return (await pool.query<R>(text, values)).rows;
    } catch (err) {
      throw wrapError(this.ledger.target, err);
    }
  }

  async archivableRuns(sel: ArchiveSelection): Promise<string[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    if (sel.before !== undefined) {
      values.push(sel.before);
      where.push(`u.updated_ts < $${values.length}`);
    }
    if (sel.runs !== undefined) {
      values.push(sel.runs);
      where.push(`u.run_id = ANY($${values.length}::text[])`);
    }
    if (!sel.include_active) where.push(FINISHED_SQL);
    const limit = sel.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(sel.limit))}` : '';
    const rows = await this.query<{ run_id: string }>(`SELECT u.run_id FROM runs u${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY u.created_ts, u.run_id${limit}`, values);
    return rows.map((r) => r.run_id);
  }

  async bury(items: readonly { tombstone: Tombstone; resolved_escalations: number }[]): Promise<{ buried: string[]; skipped: string[] }> {
    const buried: string[] = [];
    const skipped: string[] = [];
    await this.tx(async (c) => {
      for (const { tombstone: t, resolved_escalations } of items) {
        // The head row locked (FOR UPDATE) as an append locks it: no route of the run can commit in between.
        const h = (
          await c.query<{ last_seq: number; head_hash: string; resolved: number }>(
            "SELECT last_seq, encode(head_hash, 'hex') AS head_hash, (SELECT count(*)::int FROM escalations e WHERE e.run_id = u.run_id AND e.status = 'resolved') AS resolved FROM runs u WHERE run_id = $1 FOR UPDATE",
            [t.run_id],
          )
        ).rows[0];
        if (!h || h.last_seq !== t.last_seq || h.head_hash !== t.head_hash || h.resolved !== resolved_escalations) {
          skipped.push(t.run_id);
          continue;
        }
        const hash = (await c.query<{ hash: string }>("SELECT encode(hash, 'hex') AS hash FROM run_register WHERE run_id = $1", [t.run_id])).rows[0]?.hash;
        const marked = await c.query(
          "UPDATE run_register SET archived_ts = $1, archived_to = $2, archived_seq = $3, archived_hash = decode($4, 'hex'), bundle_sha256 = $5, archived_seal = $6 WHERE run_id = $7 AND archived_ts IS NULL",
          [t.archived_ts, t.archived_to, t.last_seq, t.head_hash, t.bundle_sha256, hash === undefined ? null : tombstoneSeal(hash, t.run_id, t), t.run_id],
        );
        if (marked.rowCount !== 1) {
          skipped.push(t.run_id);
          continue;
        }
        for (const table of ['llm_calls', 'escalations', 'run_upgrades', 'routes', 'runs']) await c.query(`DELETE FROM ${table} WHERE run_id = $1`, [t.run_id]);
        buried.push(t.run_id);
      }
    });
    return { buried, skipped };
  }

  async unbury(rows: RunRows): Promise<void> {
    const { run, register } = rows;
    try {
      await this.tx(async (c) => {
        // The register lock, as appends that create runs take it: the entry is read and cleared with no writer between.
        await c.query(REGISTER_LOCK_SQL);
        const t = (await c.query<Tombstone & { first_hash: string; hash: string }>(
          `SELECT t.*, encode(r.first_hash, 'hex') AS first_hash, encode(r.hash, 'hex') AS hash FROM (${TOMBSTONE_SELECT} WHERE run_id = $1) t JOIN run_register r USING (run_id)`,
          [run.run_id],
        )).rows[0];
        if (!t) throw archiveInvalid(`run ${JSON.stringify(run.run_id)} is not in this ledger's run register: the bundle comes from another ledger`);
        if (t.first_hash !== register.first_hash || t.hash !== register.hash || t.ordinal !== register.ordinal) {
          throw archiveInvalid(`the bundle's register entry for run ${JSON.stringify(run.run_id)} is not this ledger's (another ledger's run of the same id)`);
        }
        if (t.archived_ts === null) throw archiveInvalid(`run ${JSON.stringify(run.run_id)} is not archived in this ledger (it is here already)`);
        if (t.last_seq !== run.last_seq || t.head_hash !== run.head_hash) {
          throw archiveInvalid(`the bundle ends at seq ${run.last_seq} (${run.head_hash.slice(0, 12)}), the tombstone at seq ${t.last_seq} (${t.head_hash.slice(0, 12)})`);
        }
        const col = <T, K extends keyof T>(list: readonly T[], k: K) => list.map((x) => x[k]);
        const hex = (list: readonly (string | null)[]) => list.map((h) => (h === null ? null : Buffer.from(h, 'hex')));
        const R = rows.routes;
        await c.query(
          'INSERT INTO routes (run_id, seq, flow, step, request_id, decision, next_step, tier, rule, request, decision_json, state, latency_us, cost_usd, llm_calls, kernel_version, flows_hash, ts, prev_hash, hash, field_sums, latency_unit, principal) ' +
            'SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::text[], $10::text[], $11::text[], $12::text[], $13::float8[], $14::float8[], $15::int[], $16::text[], $17::text[], $18::text[], $19::bytea[], $20::bytea[], $21::text[], $22::text[], $23::text[])',
          [
            col(R, 'run_id'), col(R, 'seq'), col(R, 'flow'), col(R, 'step'), col(R, 'request_id'), col(R, 'decision'), col(R, 'next_step'), col(R, 'tier'), col(R, 'rule'),
            col(R, 'request'), col(R, 'decision_json'), col(R, 'state'), col(R, 'latency_us'), col(R, 'cost_usd'), col(R, 'llm_calls'), col(R, 'kernel_version'),
            col(R, 'flows_hash'), col(R, 'ts'), hex(col(R, 'prev_hash')), hex(col(R, 'hash')), col(R, 'field_sums'),
            // The unit the number was written in (schema 5): a route kept its unit in the bundle and keeps it back.
            R.map((r) => r.latency_unit ?? 'ms'),
            // Who sent it (schema 7; hashed when set): bundles written before have no such key.
            R.map((r) => r.principal ?? null),
          ],
        );
        const C = rows.llm_calls;
        await c.query(
          'INSERT INTO llm_calls (run_id, seq, idx, provider, model, purpose, attempt, prompt_hash, raw_answer, outcome, input_tokens, output_tokens, usd, latency_ms, record) ' +
            'SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::text[], $10::text[], $11::int[], $12::int[], $13::float8[], $14::float8[], $15::text[])',
          [
            col(C, 'run_id'), col(C, 'seq'), col(C, 'idx'), col(C, 'provider'), col(C, 'model'), col(C, 'purpose'), col(C, 'attempt'), col(C, 'prompt_hash'), col(C, 'raw_answer'),
            col(C, 'outcome'), col(C, 'input_tokens'), col(C, 'output_tokens'), col(C, 'usd'), col(C, 'latency_ms'), col(C, 'record'),
          ],
        );
        const E = rows.escalations;
        await c.query(
          'INSERT INTO escalations (escalation_id, run_id, seq, flow, step, reason, opened_ts, status, resolution, resolved_by, resolved_ts, resolution_hash) ' +
            'SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bytea[])',
          [
            col(E, 'escalation_id'), col(E, 'run_id'), col(E, 'seq'), col(E, 'flow'), col(E, 'step'), col(E, 'reason'), col(E, 'opened_ts'), col(E, 'status'), col(E, 'resolution'),
            col(E, 'resolved_by'), col(E, 'resolved_ts'), hex(col(E, 'resolution_hash')),
          ],
        );
        // The run's upgrades and the flow versions it used (bundles written before them have neither).
        for (const u of rows.upgrades ?? []) await insertUpgrade(c, u);
        for (const v of rows.flow_versions ?? [])
          await c.query('INSERT INTO flow_versions (flows_hash, definition) VALUES ($1, $2) ON CONFLICT (flows_hash) DO NOTHING', [v.hash, v.definition]);
        await c.query(
          "INSERT INTO runs (run_id, flow, created_ts, updated_ts, last_seq, head_hash, offroad, llm_calls, cost_usd, last_decision, last_step) VALUES ($1,$2,$3,$4,$5,decode($6,'hex'),$7,$8,$9,$10,$11)",
          [run.run_id, run.flow, run.created_ts, run.updated_ts, run.last_seq, run.head_hash, run.offroad, run.llm_calls, run.cost_usd, run.last_decision, run.last_step],
        );
        await c.query('UPDATE run_register SET archived_ts = NULL, archived_to = NULL, archived_seq = NULL, archived_hash = NULL, bundle_sha256 = NULL, archived_seal = NULL WHERE run_id = $1', [run.run_id]);
      });
    } catch (err) {
      if (err instanceof NavkernelError && err.code === 'ARCHIVE_INVALID') throw err;
      if ((err as { code?: string }).code === '23505') throw archiveInvalid(`run ${JSON.stringify(run.run_id)}: the ledger holds rows the bundle also holds (${(err as Error).message})`, { cause: err });
      throw err;
    }
  }

  tombstones(): Promise<Tombstone[]> {
    return this.query<Tombstone>(`${TOMBSTONE_SELECT} WHERE archived_ts IS NOT NULL ORDER BY ordinal`);
  }

  async registerHead(): Promise<{ size: number; head: string }> {
    const r = (await this.query<{ size: number; head: string | null }>(
      "SELECT count(*)::float8 AS size, (SELECT encode(hash, 'hex') FROM run_register ORDER BY ordinal DESC LIMIT 1) AS head FROM run_register",
    ))[0]!;
    return { size: r.size, head: r.head ?? '0'.repeat(64) };
  }

  runHeads(): Promise<{ run_id: string; last_seq: number; head_hash: string }[]> {
    return this.query(
      "SELECT run_id, last_seq, encode(head_hash, 'hex') AS head_hash FROM runs UNION ALL " +
        "SELECT run_id, archived_seq, encode(archived_hash, 'hex') FROM run_register WHERE archived_ts IS NOT NULL ORDER BY run_id",
    );
  }

  /**
   * Plain VACUUM (ANALYZE) of the ledger's tables: the deleted rows' space is reusable by new routes at once and the
   * tables stop growing until it is used up; only the empty pages at the end of a table go back to the OS. `full`:
   * VACUUM FULL rewrites each table and gives all free space back, holding an ACCESS EXCLUSIVE lock on it meanwhile
   * (kernels wait: do it in a quiet hour), and needs free disk the size of the table.
   */
  async reclaim(full: boolean): Promise<ReclaimReport> {
    const before = await this.sizeBytes();
    // VACUUM cannot run inside a transaction block: one statement per table, outside the tx helper.
    for (const t of TABLES) await this.query(`VACUUM ${full ? '(FULL, ANALYZE)' : '(ANALYZE)'} ${t}`);
    return { mode: full ? 'vacuum_full' : 'vacuum', bytes_before: before, bytes_after: await this.sizeBytes() };
  }

  async sizeBytes(): Promise<number> {
    const r = await this.query<{ bytes: number }>(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::float8 AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname = ANY($1::text[])`,
      [TABLES],
    );
    return r[0]!.bytes;
  }
}
