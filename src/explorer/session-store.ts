import type Database from 'better-sqlite3';
import { canonicalJson } from '../contracts/canonical-json.js';
import { NavkernelError } from '../contracts/errors.js';
import { ExplorerSessionConfig, NavigatorState } from '../contracts/explorer-state.js';
import { openLedger, type SqliteLedger } from '../ledger/index.js';

/** One saved session. */
export interface ExplorerSession {
  session_id: string;
  state: NavigatorState;
  config: ExplorerSessionConfig;
  created_ts: string;
  updated_ts: string;
}

/** A summary row of `list()`. */
export interface ExplorerSessionSummary {
  session_id: string;
  user_task: string;
  steps: number;
  complete: boolean;
  completion_reason: string | null;
  spent_usd: number;
  updated_ts: string;
}

// The ledger's migrations (PRAGMA user_version) are its own; this table sits beside them, created if absent,
// so the ledger's schema version is untouched and a ledger without explorer sessions stays as it was.
const DDL = `
CREATE TABLE IF NOT EXISTS explorer_sessions (
  session_id TEXT PRIMARY KEY,
  created_ts TEXT NOT NULL,
  updated_ts TEXT NOT NULL,
  steps      INTEGER NOT NULL,
  complete   INTEGER NOT NULL,
  config     TEXT NOT NULL,
  state      TEXT NOT NULL
) STRICT;`;

/**
 * NavigatorState persistence: one row per session, rewritten after every step in one transaction, in the
 * ledger's SQLite file (WAL). An acknowledged step survives a crash of the process (SIGKILL included).
 */
export class ExplorerSessionStore {
  private readonly s;
  constructor(
    readonly db: Database.Database,
    private readonly onClose?: () => void,
  ) {
    db.exec(DDL);
    this.s = {
      upsert: db.prepare(
        `INSERT INTO explorer_sessions (session_id, created_ts, updated_ts, steps, complete, config, state) VALUES (@session_id, @ts, @ts, @steps, @complete, @config, @state)
         ON CONFLICT(session_id) DO UPDATE SET updated_ts = excluded.updated_ts, steps = excluded.steps, complete = excluded.complete, config = excluded.config, state = excluded.state`,
      ),
      get: db.prepare('SELECT session_id, created_ts, updated_ts, config, state FROM explorer_sessions WHERE session_id = ?'),
      list: db.prepare('SELECT session_id, updated_ts, state FROM explorer_sessions ORDER BY updated_ts DESC, session_id'),
    };
  }

  /** Saves (creates or replaces) a session's state. */
  save(sessionId: string, state: NavigatorState, config: ExplorerSessionConfig, ts: Date): void {
    this.s.upsert.run({
      session_id: sessionId,
      ts: ts.toISOString(),
      steps: state.decision_log.length,
      complete: state.exploration_complete ? 1 : 0,
      config: canonicalJson(config),
      state: canonicalJson(state),
    });
  }

  /** The saved session, validated; undefined when there is none. */
  load(sessionId: string): ExplorerSession | undefined {
    const row = this.s.get.get(sessionId) as { session_id: string; created_ts: string; updated_ts: string; config: string; state: string } | undefined;
    if (!row) return undefined;
    const state = NavigatorState.safeParse(JSON.parse(row.state));
    const config = ExplorerSessionConfig.safeParse(JSON.parse(row.config));
    if (!state.success || !config.success) throw new NavkernelError('INVALID_SESSION', `explorer session ${sessionId}: the stored state does not validate`);
    return { session_id: row.session_id, state: state.data, config: config.data, created_ts: row.created_ts, updated_ts: row.updated_ts };
  }

  list(): ExplorerSessionSummary[] {
    return (this.s.list.all() as { session_id: string; updated_ts: string; state: string }[]).map((r) => {
      const st = JSON.parse(r.state) as NavigatorState;
      return {
        session_id: r.session_id,
        user_task: st.user_task,
        steps: st.decision_log.length,
        complete: st.exploration_complete,
        completion_reason: st.completion_reason ?? null,
        spent_usd: st.budget_config.current_spend_usd,
        updated_ts: r.updated_ts,
      };
    });
  }

  close(): void {
    this.onClose?.();
  }
}

/** Opens the explorer's sessions in the ledger file `file` (created and migrated by the ledger if missing). */
export function openExplorerStore(file: string, options: { create?: boolean } = {}): ExplorerSessionStore {
  const ledger: SqliteLedger = openLedger(file, { create: options.create ?? true, jsonl: false });
  return new ExplorerSessionStore(ledger.sql.db, () => ledger.close());
}
