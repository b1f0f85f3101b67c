// The explorer's session store on a SQLite ledger: the `explorer_sessions` table (created by the ledger's
// migration v3, src/ledger/sql.ts) and the explorer's rows of the LLM-call table.
import type Database from 'better-sqlite3';
import { canonicalJson } from '../contracts/canonical-json.js';
import { NavkernelError } from '../contracts/errors.js';
import {
  explorerCallsKey,
  type ExplorerCall,
  type ExplorerCallSummary,
  type ExplorerSession,
  type ExplorerSessionStore,
  type ExplorerSessionSummary,
} from '../contracts/explorer-sessions.js';
import { ExplorerSessionConfig, NavigatorState } from '../contracts/explorer-state.js';
import type { LlmCallRecord } from '../contracts/llm-call.js';
import { isPostgresUrl } from './postgres/url.js';
import { SqliteLedger } from './sqlite-ledger.js';
import { ledgerSql } from './sqlite-ledger.js';

/**
 * NavigatorState persistence: one row per session, rewritten after every step in one transaction, in the
 * ledger's SQLite file (WAL). An acknowledged step survives a crash of the process (SIGKILL included).
 * `db` is a ledger database opened by the ledger (so migrated: the table exists); `openExplorerStore` opens one.
 */
export class SqliteExplorerSessionStore implements ExplorerSessionStore {
  private readonly s;
  constructor(
    readonly db: Database.Database,
    private readonly onClose?: () => void,
  ) {
    this.s = {
      upsert: db.prepare(
        `INSERT INTO explorer_sessions (session_id, created_ts, updated_ts, steps, complete, config, state) VALUES (@session_id, @ts, @ts, @steps, @complete, @config, @state)
         ON CONFLICT(session_id) DO UPDATE SET updated_ts = excluded.updated_ts, steps = excluded.steps, complete = excluded.complete, config = excluded.config, state = excluded.state`,
      ),
      get: db.prepare('SELECT session_id, created_ts, updated_ts, config, state FROM explorer_sessions WHERE session_id = ?'),
      list: db.prepare('SELECT session_id, updated_ts, state FROM explorer_sessions ORDER BY updated_ts DESC, session_id'),
      nextIdx: db.prepare('SELECT coalesce(max(idx) + 1, 0) FROM llm_calls WHERE run_id = ? AND seq = ?').pluck(),
      insertCall: db.prepare(
        'INSERT INTO llm_calls (run_id, seq, idx, provider, model, purpose, attempt, prompt_hash, raw_answer, outcome, input_tokens, output_tokens, usd, latency_ms, record) ' +
          'VALUES (@run_id, @seq, @idx, @provider, @model, @purpose, @attempt, @prompt_hash, @raw_answer, @outcome, @input_tokens, @output_tokens, @usd, @latency_ms, @record)',
      ),
      calls: db.prepare("SELECT seq, record FROM llm_calls WHERE run_id = ? AND purpose = 'explore' ORDER BY seq, idx"),
    };
    this.saveTx = db.transaction((sessionId: string, state: NavigatorState, config: ExplorerSessionConfig, ts: Date, calls: readonly ExplorerCall[]) => {
      this.s.upsert.run({
        session_id: sessionId,
        ts: ts.toISOString(),
        steps: state.decision_log.length,
        complete: state.exploration_complete ? 1 : 0,
        config: canonicalJson(config),
        state: canonicalJson(state),
      });
      const run_id = explorerCallsKey(sessionId);
      for (const { step, record: r } of calls) {
        const idx = this.s.nextIdx.get(run_id, step) as number;
        this.s.insertCall.run({
          run_id, seq: step, idx, provider: r.provider, model: r.model, purpose: r.purpose, attempt: r.attempt, prompt_hash: r.prompt_hash, raw_answer: r.raw_answer,
          outcome: r.outcome, input_tokens: r.input_tokens, output_tokens: r.output_tokens, usd: r.usd, latency_ms: r.latency_ms, record: canonicalJson(r),
        });
      }
    });
  }

  private readonly saveTx: (sessionId: string, state: NavigatorState, config: ExplorerSessionConfig, ts: Date, calls: readonly ExplorerCall[]) => void;

  /**
   * Saves (creates or replaces) a session's state, and appends the model calls made since the last save to the
   * ledger's LLM-call table (key `explore:<session>`, seq = step, purpose `explore`), in one transaction.
   */
  save(sessionId: string, state: NavigatorState, config: ExplorerSessionConfig, ts: Date, calls: readonly ExplorerCall[] = []): void {
    this.saveTx(sessionId, state, config, ts, calls);
  }

  /** The session's recorded model calls, in step order. */
  calls(sessionId: string): ExplorerCall[] {
    return (this.s.calls.all(explorerCallsKey(sessionId)) as { seq: number; record: string }[]).map((r) => ({ step: r.seq, record: JSON.parse(r.record) as LlmCallRecord }));
  }

  /** What each session's model calls cost (sessions without a call are left out), by session id. */
  callSummaries(): ExplorerCallSummary[] {
    return explorerCallSummaries(this.db);
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

/**
 * Opens the explorer's sessions in the SQLite ledger file `file` (created if missing unless `create: false`, and
 * migrated by the ledger). Explorer sessions are kept in SQLite ledgers only: a PostgreSQL URL is refused.
 */
export function openExplorerStore(file: string, options: { create?: boolean } = {}): SqliteExplorerSessionStore {
  if (isPostgresUrl(file)) throw new NavkernelError('INVALID_CONFIG', 'explorer sessions are kept in a SQLite ledger file; a PostgreSQL ledger has none');
  const ledger = new SqliteLedger(file, { create: options.create ?? true, jsonl: false });
  return new SqliteExplorerSessionStore(ledgerSql(ledger).db, () => void ledger.close());
}

/**
 * What explorer sessions' model calls cost, per session, read from a ledger through its own type (commands never reach
 * for the SQL handle): a SQLite ledger keeps them in its LLM-call table; other stores keep none, so undefined.
 */
export function explorerCallsOf(ledger: unknown): ExplorerCallSummary[] | undefined {
  return ledger instanceof SqliteLedger ? explorerCallSummaries(ledgerSql(ledger).db) : undefined;
}

/**
 * What each explorer session's model calls cost, read from a ledger's LLM-call table (key `explore:<session>`), by
 * session id. Reads only: works on a ledger opened read-only, and on one where no session was ever saved.
 */
export function explorerCallSummaries(db: Database.Database): ExplorerCallSummary[] {
  const rows = db.prepare("SELECT run_id, seq, record FROM llm_calls WHERE purpose = 'explore' AND run_id LIKE 'explore:%' ORDER BY run_id, seq, idx").all() as { run_id: string; seq: number; record: string }[];
  const bySession = new Map<string, { step: number; record: LlmCallRecord }[]>();
  for (const r of rows) {
    const list = bySession.get(r.run_id) ?? [];
    list.push({ step: r.seq, record: JSON.parse(r.record) as LlmCallRecord });
    bySession.set(r.run_id, list);
  }
  const round = (x: number) => Math.round(x * 1e9) / 1e9;
  return [...bySession].map(([key, calls]) => {
    const byModel = new Map<string, ExplorerCallSummary['by_model'][number]>();
    for (const { record: r } of calls) {
      const k = `${r.provider}\u0000${r.model}\u0000${r.persona ?? ''}`;
      const m = byModel.get(k) ?? { provider: r.provider, model: r.model, persona: r.persona ?? null, calls: 0, usd: 0 };
      m.calls++;
      m.usd = round(m.usd + r.usd);
      byModel.set(k, m);
    }
    return {
      session_id: key.slice('explore:'.length),
      calls: calls.length,
      steps: new Set(calls.map((c) => c.step)).size,
      usd: round(calls.reduce((n, c) => n + c.record.usd, 0)),
      input_tokens: calls.reduce((n, c) => n + c.record.input_tokens, 0),
      output_tokens: calls.reduce((n, c) => n + c.record.output_tokens, 0),
      by_model: [...byModel.values()],
    };
  });
}
