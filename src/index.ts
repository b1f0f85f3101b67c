// navkernel's public API: what a user builds with, by name. Everything else is internal (docs/api.md lists this
// surface; tests/package/api-report.test.ts fails when it changes without api/navkernel.api.md being regenerated).
// Extension points have their own entries: navkernel/kernel (the kernel alone, light), navkernel/langgraph,
// navkernel/service, navkernel/forensics, navkernel/testing.

// The kernel and its flows.
export { createKernel, type Kernel, type KernelOptions, type RouteOptions } from './kernel/kernel.js';
export { MemoryStore, type MemoryStoreOptions } from './kernel/memory-store.js';
export { loadFlows, defineFlows } from './kernel/flows/load-flows.js';
export type { CompiledFlow, CompiledStep, FlowSet } from './kernel/flows/compiled-flow.js';
export { flowWarnings, type FlowWarning } from './kernel/flows/flow-warnings.js';
export { proveBounds, type BoundsProof } from './kernel/flows/bounds-proof.js';

// What goes in and what comes out: the request, the decision, the flow (zod schemas and their types).
export { RouteRequest, Forensics } from './contracts/route-request.js';
export { Decision, type DecisionKind, type Tier } from './contracts/decision.js';
export { Flow, type FlowInput, type Step, type Charter } from './contracts/flow.js';
export type { Escalation, EscalationResolution, RunSummary, AuditReport, WhyReport, VerifyReport, ReplayReport, Divergence } from './contracts/ledger.js';

// The ledger: SQLite or PostgreSQL stores, verify, copy, export, archive, checkpoints.
export { openLedger } from './ledger/open-ledger.js';
export { SqliteLedger, DEFAULT_LEDGER_FILE, type LedgerOptions } from './ledger/sqlite-ledger.js';
export { PostgresLedger, type PostgresLedgerOptions } from './ledger/postgres/postgres-ledger.js';
export { verifyLedger, type VerifyOptions } from './ledger/verify.js';
export { copyLedger, type CopyReport } from './ledger/copy.js';
export { exportJsonl } from './ledger/export.js';
export { archiveRuns, restoreBundle, verifyArchive, type ArchiveOptions, type ArchiveReport, type ArchiveVerifyReport } from './ledger/archive/archive-runs.js';
export { createCheckpoint, verifyCheckpoint, type Checkpoint, type CheckpointReport } from './ledger/checkpoint.js';

// The store ports a store implements (navkernel/testing checks one).
export type {
  KernelStore,
  Ledger,
  RunReader,
  StatsReader,
  EscalationReader,
  EscalationStore,
  DecisionsMirror,
  RunState,
  RouteRecord,
  StoredRun,
  StoredRoute,
  StoredEscalation,
  StoredLlmCall,
  ArbiterPort,
  ArbiterInput,
  ArbiterAnswer,
} from './contracts/ports.js';
export type { ArchiveStore } from './contracts/archive-port.js';

// Reading runs: list, audit, why, replay, resolve an escalation.
export { listRuns, auditRun, whyStep } from './runs/audit.js';
export { replayRun, type ReplayOptions } from './runs/replay.js';
export { replayAll, type ReplayAllOptions } from './runs/replay-all.js';
export { resolveEscalation, type ResolveInput } from './runs/resolve.js';

// The context navigator and the explorer.
export { createNavigator, navigate, type NavigatorOptions, type NavigationOutcome, type NavigatorExit } from './navigator/pipeline/create-navigator.js';
export { runExplorer, type ExplorerRunOptions, type ExplorerResult } from './explorer/explorer.js';

// The model port, its adapters, and tier 3 (the arbiter) on top of a model.
export type { LanguageModel, LlmGenerateRequest, LlmGenerateResult, LlmMessage, LlmTool, LlmToolCall, LlmUsage } from './llm/language-model.js';
export { parseLlmSpec, createLanguageModel, type LlmSpec } from './llm/llm-spec.js';
export { createAnthropicModel, type AnthropicModelOptions } from './llm/anthropic-model.js';
export { createGeminiModel, type GeminiModelOptions } from './llm/gemini-model.js';
export { createScriptedModel, loadScriptedModel } from './llm/scripted-model.js';
export { createRecordedModel } from './llm/recorded-model.js';
export { createLlmArbiter, type LlmArbiterOptions } from './llm/llm-arbiter.js';

// Errors: match on `code` (docs/errors.md); the classes below carry data beyond the code.
export { ERROR_CODES, isErrorCode, httpStatusFor, type ErrorCode } from './contracts/error-codes.js';
export { NavkernelError, ValidationError, FlowValidationError, type ValidationIssue } from './contracts/errors.js';
export { ISSUE_CODES, type IssueCode } from './contracts/issue-codes.js';
export { formatIssue, issuePathText, type IssueData, type IssuePath } from './contracts/errors.js';
export { LedgerConflictError, IdempotencyConflictError, StoreUnavailableError, RunArchivedError } from './contracts/store-errors.js';
export { StepMismatchError, RunEndedError, EscalationOpenError } from './contracts/run-errors.js';
export { FlowNotLoadedError } from './runs/replay.js';
export { LlmCallError, type LlmCallErrorKind } from './llm/llm-call-error.js';

export { VERSION } from './version.js';
