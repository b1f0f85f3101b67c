// The contracts' internal barrel: the names navkernel's own modules and tests import from it (the public surface is
// src/index.ts). Named, so a name is added here on purpose.
export { FlowValidationError, NavkernelError, ValidationError, type ValidationIssue, formatIssue, issuePathText, issuesFromZod, validationIssue, type IssueData, type IssueOf, type IssuePath } from './errors.js';
export { ISSUE_CODES, ISSUE_CODE_LIST, isIssueCode, toIssueCode, type IssueCode } from './issue-codes.js';
export { IdempotencyConflictError, LedgerConflictError } from './store-errors.js';
export { EscalationOpenError } from './run-errors.js';
export { Concern, Envelope, Forensics, GitStatusForensics, Iteration, LintForensics, RouteRequest, TestsForensics, TypesForensics } from './route-request.js';
export { DECISION_KINDS, Decision, DecisionKind, ProposedNode, RejectedMove, SkippedTier, Tier } from './decision.js';
export { Bounds, Charter, DEFAULT_BOUNDS, Flow, type FlowInput, SignatureRule, Step } from './flow.js';
export { renderJsonSchema } from './json-schema.js';
export { compileValidator, schemasDir, type CompiledValidator } from './validate.js';
export { CandidateMove } from './candidate.js';
export { LlmCallOutcome, LlmCallRecord } from './llm-call.js';
export { type ArbiterAnswer, type ArbiterInput, type ArbiterPort, type EscalationReader, type EscalationStore, type KernelStore, type Ledger, type ReplayTuple, type ReturnPoint, type RouteRecord, type RunPageKey, type RunPageQuery, type RunPosition, type RunReader, type RunState, type RunStatus, type StatsReader, type StoredRoute } from './ports.js';
export { sha256 } from './canonical-json.js';
export { AuditReport, DecisionEntry, Escalation, OffRoadRecord, ReplayReport, RunSummary, VerifyReport, WhyReport } from './ledger.js';
export { type ExplorerSessionStore, explorerCallsKey } from './explorer-sessions.js';
export { ERROR_CODES, isErrorCode, type ErrorCode } from './error-codes.js';
export { DEFAULT_LIMITS, InputTooLargeError, checkInputLimits } from './limits.js';
export { NOT_UTF8, classifyRouteError, decodeUtf8, jsonSyntaxMessage, tooLargeMessage } from './request-input.js';
export { RouteErrorLine } from './route-answer.js';
export { ApiErrorCode, EscalationsInbox, FlowsList, LedgerStats, Problem, RecordedDecision, ReplayBody, ResolveBody, RunDetail, RunsPage } from './service-api.js';
export { FlightPlan } from './flight-plan.js';
export { CnfCapsule, type CnfCapsuleInput, MagicWordRecord, NavigatorBudget, NavigatorConstraints } from './navigator-capsule.js';
export { CompressionReport, ContextLoadReceipt, NavigationMap, TierPathEntry } from './navigator-artifacts.js';
export { BudgetConfig, DecisionLogEntry, MODEL_PRICING_PRESETS, NavigatorState, checkNavigatorState } from './explorer-state.js';
export { NavigatorOutput, TurnReport } from './explorer-report.js';
