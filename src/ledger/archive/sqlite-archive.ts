// The SQLite ledger's archive operations (ArchiveStore), on its connection.
import type Database from 'better-sqlite3';
import type { ArchiveSelection, ArchiveStore, ReclaimReport, RunRows, Tombstone } from '../../contracts/archive-port.js';
import type { SqliteLedger } from '../sqlite-ledger.js';
import { tombstoneSeal } from '../chain.js';
import { archiveInvalid } from './errors.js';
import { ledgerSql } from '../sqlite-ledger.js';
import { NavkernelError } from '../../contracts/errors.js';

/** A run is finished when terminated (as the run listing says) and without an open escalation. */
export const FINISHED_SQL =
  "(u.last_decision = 'TERMINATE' OR (u.last_decision = 'ESCALATE' AND EXISTS (SELECT 1 FROM escalations e WHERE e.run_id = u.run_id " +
  "AND e.seq = u.last_seq AND e.status = 'resolved' AND json_extract(e.resolution, '$.decision') = 'TERMINATE'))) " +
  "AND NOT EXISTS (SELECT 1 FROM escalations e WHERE e.run_id = u.run_id AND e.status = 'open')";

const TOMBSTONE_SELECT =
  'SELECT run_id, ordinal, archived_ts, archived_to, archived_seq AS last_seq, lower(hex(archived_hash)) AS head_hash, bundle_sha256, archived_seal AS seal FROM run_register';

export class SqliteArchiveStore implements ArchiveStore {
  private readonly db: Database.Database;

  constructor(private readonly ledger: SqliteLedger) {
    this.db = ledgerSql(ledger).db;
  }

  archivableRuns(sel: ArchiveSelection): Promise<string[]> {
    const where: string[] = [];
    const params: Record<string, unknown> = {};
    if (sel.before !== undefined) {
      where.push('u.updated_ts < @before');
      params.before = sel.before;
    }
    if (sel.runs !== undefined) {
      where.push('u.run_id IN (SELECT value FROM json_each(@runs))');
      params.runs = JSON.stringify(sel.runs);
    }
    if (!sel.include_active) where.push(FINISHED_SQL);
    const limit = sel.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(sel.limit))}` : '';
    const sql = `SELECT u.run_id FROM runs u${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY u.created_ts, u.run_id${limit}`;
    return Promise.resolve(this.db.prepare(sql).pluck().all(params) as string[]);
  }

  bury(items: readonly { tombstone: Tombstone; resolved_escalations: number }[]): Promise<{ buried: string[]; skipped: string[] }> {
    const head = this.db.prepare('SELECT last_seq, lower(hex(head_hash)) AS head_hash FROM runs WHERE run_id = ?');
    const resolved = this.db.prepare("SELECT count(*) FROM escalations WHERE run_id = ? AND status = 'resolved'").pluck();
    const del = ['llm_calls', 'escalations', 'run_upgrades', 'routes', 'runs'].map((t) => this.db.prepare(`DELETE FROM ${t} WHERE run_id = ?`));
    const mark = this.db.prepare(
      'UPDATE run_register SET archived_ts = ?, archived_to = ?, archived_seq = ?, archived_hash = ?, bundle_sha256 = ?, archived_seal = ? WHERE run_id = ? AND archived_ts IS NULL',
    );
    const entryHash = this.db.prepare('SELECT lower(hex(hash)) FROM run_register WHERE run_id = ?').pluck();
    const buried: string[] = [];
    const skipped: string[] = [];
    const tx = this.db.transaction(() => {
      for (const { tombstone: t, resolved_escalations } of items) {
        const h = head.get(t.run_id) as { last_seq: number; head_hash: string } | undefined;
        if (!h || h.last_seq !== t.last_seq || h.head_hash !== t.head_hash || resolved.get(t.run_id) !== resolved_escalations) {
          skipped.push(t.run_id);
          continue;
        }
        const hash = entryHash.get(t.run_id) as string | undefined;
        const seal = hash === undefined ? null : tombstoneSeal(hash, t.run_id, t);
        if (mark.run(t.archived_ts, t.archived_to, t.last_seq, Buffer.from(t.head_hash, 'hex'), t.bundle_sha256, seal, t.run_id).changes !== 1) {
          skipped.push(t.run_id);
          continue;
        }
        for (const d of del) d.run(t.run_id);
        buried.push(t.run_id);
      }
    });
    (tx as unknown as { immediate: () => void }).immediate();
    // The run's cached head and its decisions.jsonl files go with it (restore rebuilds the files from the rows).
    for (const id of buried) void this.ledger.loadRun(id);
    return Promise.resolve({ buried, skipped });
  }

  unbury(rows: RunRows): Promise<void> {
    const { run, register } = rows;
    const db = this.db;
    const tx = db.transaction(() => {
      const t = db.prepare(`${TOMBSTONE_SELECT} WHERE run_id = ?`).get(run.run_id) as (Tombstone & { first_hash?: string }) | undefined;
      const entry = db.prepare('SELECT ordinal, lower(hex(first_hash)) AS first_hash, lower(hex(hash)) AS hash FROM run_register WHERE run_id = ?').get(run.run_id) as
        | { ordinal: number; first_hash: string; hash: string }
        | undefined;
      if (!entry || !t) throw archiveInvalid(`run ${JSON.stringify(run.run_id)} is not in this ledger's run register: the bundle comes from another ledger`);
      if (entry.first_hash !== register.first_hash || entry.hash !== register.hash || entry.ordinal !== register.ordinal) {
        throw archiveInvalid(`the bundle's register entry for run ${JSON.stringify(run.run_id)} is not this ledger's (another ledger's run of the same id)`);
      }
      if (t.archived_ts === null) throw archiveInvalid(`run ${JSON.stringify(run.run_id)} is not archived in this ledger (it is here already)`);
      if (t.last_seq !== run.last_seq || t.head_hash !== run.head_hash) {
        throw archiveInvalid(`the bundle ends at seq ${run.last_seq} (${run.head_hash.slice(0, 12)}), the tombstone at seq ${t.last_seq} (${t.head_hash.slice(0, 12)})`);
      }
      const flowSet = db.prepare('INSERT INTO flow_sets (flows_hash) VALUES (?) ON CONFLICT (flows_hash) DO UPDATE SET flows_hash = excluded.flows_hash RETURNING id').pluck();
      const ids = new Map<string, number>();
      const insRoute = db.prepare(
        'INSERT INTO routes (run_id, seq, flow, step, request_id, decision, next_step, tier, rule, request, decision_json, state, latency_us, cost_usd, llm_calls, ' +
          'kernel_version, flow_set, ts, prev_hash, hash, field_sums, latency_unit, principal) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
      );
      for (const r of rows.routes) {
        let id = ids.get(r.flows_hash);
        if (id === undefined) ids.set(r.flows_hash, (id = flowSet.get(r.flows_hash) as number));
        insRoute.run(
          r.run_id, r.seq, r.flow, r.step, r.request_id, r.decision, r.next_step, r.tier, r.rule, r.request, r.decision_json, r.state, r.latency_us, r.cost_usd,
          r.llm_calls, r.kernel_version, id, r.ts, Buffer.from(r.prev_hash, 'hex'), Buffer.from(r.hash, 'hex'), r.field_sums,
          // The unit the number was written in (schema 5): a route kept its unit in the bundle and keeps it back.
          r.latency_unit ?? 'ms',
          // Who sent it (schema 7; hashed when set): bundles written before have no such key.
          r.principal ?? null,
        );
      }
      const insCall = db.prepare(
        'INSERT INTO llm_calls (run_id, seq, idx, provider, model, purpose, attempt, prompt_hash, raw_answer, outcome, input_tokens, output_tokens, usd, latency_ms, record) ' +
          'VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
      );
      for (const c of rows.llm_calls) {
        insCall.run(c.run_id, c.seq, c.idx, c.provider, c.model, c.purpose, c.attempt, c.prompt_hash, c.raw_answer, c.outcome, c.input_tokens, c.output_tokens, c.usd, c.latency_ms, c.record);
      }
      const insEsc = db.prepare(
        'INSERT INTO escalations (escalation_id, run_id, seq, flow, step, reason, opened_ts, status, resolution, resolved_by, resolved_ts, resolution_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)',
      );
      for (const e of rows.escalations) {
        insEsc.run(
          e.escalation_id, e.run_id, e.seq, e.flow, e.step, e.reason, e.opened_ts, e.status, e.resolution, e.resolved_by, e.resolved_ts,
          e.resolution_hash === null ? null : Buffer.from(e.resolution_hash, 'hex'),
        );
      }
      // The run's upgrades and the flow versions it used (bundles written before them have neither).
      const versions = this.ledger.versions;
      for (const u of rows.upgrades ?? []) versions.insert(u);
      for (const v of rows.flow_versions ?? []) versions.saveFlowVersion(v.hash, v.definition);
      db.prepare(
        'INSERT INTO runs (run_id, flow, created_ts, updated_ts, last_seq, head_hash, offroad, llm_calls, cost_usd, last_decision, last_step) VALUES (?,?,?,?,?,?,?,?,?,?,?)',
      ).run(run.run_id, run.flow, run.created_ts, run.updated_ts, run.last_seq, Buffer.from(run.head_hash, 'hex'), run.offroad, run.llm_calls, run.cost_usd, run.last_decision, run.last_step);
      db.prepare('UPDATE run_register SET archived_ts = NULL, archived_to = NULL, archived_seq = NULL, archived_hash = NULL, bundle_sha256 = NULL, archived_seal = NULL WHERE run_id = ?').run(run.run_id);
    });
    try {
      (tx as unknown as { immediate: () => void }).immediate();
    } catch (err) {
      if (err instanceof NavkernelError && err.code === 'ARCHIVE_INVALID') throw err;
      if (/^SQLITE_CONSTRAINT/.test(String((err as { code?: unknown }).code))) throw archiveInvalid(`run ${JSON.stringify(run.run_id)}: the ledger holds rows the bundle also holds (${(err as Error).message})`, { cause: err });
      throw err;
    }
    return Promise.resolve();
  }

  tombstones(): Promise<Tombstone[]> {
    return Promise.resolve(this.db.prepare(`${TOMBSTONE_SELECT} WHERE archived_ts IS NOT NULL ORDER BY ordinal`).all() as Tombstone[]);
  }

  registerHead(): Promise<{ size: number; head: string }> {
    const r = this.db.prepare('SELECT count(*) AS size, (SELECT lower(hex(hash)) FROM run_register ORDER BY ordinal DESC LIMIT 1) AS head FROM run_register').get() as {
      size: number;
      head: string | null;
    };
    return Promise.resolve({ size: r.size, head: r.head ?? '0'.repeat(64) });
  }

  runHeads(): Promise<{ run_id: string; last_seq: number; head_hash: string }[]> {
    return Promise.resolve(
      this.db
        .prepare(
          'SELECT run_id, last_seq, lower(hex(head_hash)) AS head_hash FROM runs UNION ALL ' +
            'SELECT run_id, archived_seq, lower(hex(archived_hash)) FROM run_register WHERE archived_ts IS NOT NULL ORDER BY run_id',
        )
        .all() as { run_id: string; last_seq: number; head_hash: string }[],
    );
  }

  /**
   * `full`: VACUUM (rewrites the file, needs free disk space the size of the ledger, holds the write lock throughout),
   * switching the file to auto_vacuum=INCREMENTAL on the way so later archives give space back without it. Otherwise:
   * `PRAGMA incremental_vacuum` when the file is INCREMENTAL (every ledger created since schema 6), else nothing: the
   * freed pages are reused by the next routes and the file stops growing until they are used up.
   */
  reclaim(full: boolean): Promise<ReclaimReport> {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    const before = this.bytes();
    let mode: ReclaimReport['mode'];
    if (full) {
      this.db.pragma('auto_vacuum = INCREMENTAL');
      this.db.exec('VACUUM');
      mode = 'vacuum';
    } else if ((this.db.pragma('auto_vacuum', { simple: true }) as number) === 2) {
      this.db.pragma('incremental_vacuum');
      mode = 'incremental';
    } else {
      mode = 'reuse';
    }
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return Promise.resolve({ mode, bytes_before: before, bytes_after: this.bytes() });
  }

  sizeBytes(): Promise<number> {
    return Promise.resolve(this.bytes());
  }

  private bytes(): number {
    return this.db.prepare('SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()').pluck().get() as number;
  }
}
