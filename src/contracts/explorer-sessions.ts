// The explorer's session store, as a port: the explorer depends on this interface only; the ledger implements it
// (src/ledger/explorer-sessions.ts, the `explorer_sessions` table of a SQLite ledger) and the CLI hands it over.
import type { ExplorerSessionConfig, NavigatorState } from './explorer-state.js';
import type { LlmCallRecord } from './llm-call.js';

/** One saved session. */
export interface ExplorerSession {
  session_id: string;
  state: NavigatorState;
  config: ExplorerSessionConfig;
  created_ts: string;
  updated_ts: string;
}

/** A model call of a session's step, as the explorer hands it to `save()`. */
export interface ExplorerCall {
  step: number;
  record: LlmCallRecord;
}

/** The ledger key of a session's LLM calls: `explore:<session>` (the `run_id` column of the LLM-call table). */
export const explorerCallsKey = (sessionId: string): string => `explore:${sessionId}`;

/** What a session's model calls cost, from the ledger's LLM-call table. */
export interface ExplorerCallSummary {
  session_id: string;
  calls: number;
  steps: number;
  usd: number;
  input_tokens: number;
  output_tokens: number;
  by_model: { provider: string; model: string; persona: string | null; calls: number; usd: number }[];
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

/**
 * Where explorer sessions are kept: a session's NavigatorState, rewritten after every step, and the model calls
 * of each step. `runExplorer` / `resumeExplorer` use `save` and `load`; the CLI lists and reports with the rest.
 */
export interface ExplorerSessionStore {
  /**
   * Saves (creates or replaces) a session's state, and appends the model calls made since the last save
   * (key `explore:<session>`, seq = step, purpose `explore`), atomically: a step is saved whole or not at all.
   */
  save(sessionId: string, state: NavigatorState, config: ExplorerSessionConfig, ts: Date, calls?: readonly ExplorerCall[]): void;
  /** The saved session, validated; undefined when there is none. */
  load(sessionId: string): ExplorerSession | undefined;
  /** Every saved session, most recently updated first. */
  list(): ExplorerSessionSummary[];
  /** The session's recorded model calls, in step order. */
  calls(sessionId: string): ExplorerCall[];
  /** What each session's model calls cost (sessions without a call are left out), by session id. */
  callSummaries(): ExplorerCallSummary[];
  close(): void;
}
