export { SqliteLedger, DEFAULT_LEDGER_FILE, type LedgerOptions } from './sqlite-ledger.js';
export type { WalCheckpointLimits, WalCheckpointStats } from './wal-checkpointer.js';
export { openLedger, openLedgerAt } from './open-ledger.js';
export { copyLedger, type CopyReport } from './copy.js';
export { exportJsonl } from './export.js';
export { PostgresLedger, type PostgresLedgerOptions } from './postgres/postgres-ledger.js';
export { PostgresUnavailableError } from './postgres/errors.js';
export { isPostgresUrl, redactUrl } from './postgres/url.js';
export { LEDGER_APPLICATION_ID, LEDGER_SCHEMA_VERSION, type Durability } from './sql.js';
export { SqliteExplorerSessionStore, openExplorerStore, explorerCallSummaries, explorerCallsOf } from './explorer-sessions.js';
export { verifyLedger, type VerifyOptions } from './verify.js';
export { requireRun, routeLatencyUs, toEscalation } from './stored-rows.js';
export { recordResolution } from './record-resolution.js';
export { offRoadRecord, offRoadLine, readJsonl } from './decisions-jsonl.js';
export { decisionsJsonlPath, pathSegment, runFoldersBeside } from './paths.js';
export { routeHash, GENESIS_HASH } from './chain.js';
export {
  UnknownRunError,
  NotALedgerError,
  LedgerTooNewError,
  LedgerNotFoundError,
  LedgerConflictError,
  unknownEscalation,
  escalationAlreadyResolved,
  invalidResolution,
} from './errors.js';
export * from './archive/index.js';
export { createCheckpoint, verifyCheckpoint, readCheckpoint, type Checkpoint, type CheckpointStatement, type CheckpointReport, type CheckpointIssue } from './checkpoint.js';
