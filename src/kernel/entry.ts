// navkernel/kernel: the kernel alone (route requests through flows into a store), without the ledgers' drivers, the
// navigator, the models or the service. Kept light to import: tests/package/api-report.test.ts lists its names.
export { createKernel, type Kernel, type KernelOptions, type RouteOptions } from './kernel.js';
export { MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export { loadFlows, defineFlows } from './flows/load-flows.js';
export type { CompiledFlow, CompiledStep, FlowSet } from './flows/compiled-flow.js';
export type { RouteRequest, Forensics } from '../contracts/route-request.js';
export type { Decision, DecisionKind, Tier } from '../contracts/decision.js';
export type { Flow, FlowInput } from '../contracts/flow.js';
export type { KernelStore, RunState, RouteRecord, ArbiterPort, ArbiterInput, ArbiterAnswer } from '../contracts/ports.js';
export { ERROR_CODES, isErrorCode, httpStatusFor, type ErrorCode } from '../contracts/error-codes.js';
export { NavkernelError, ValidationError, FlowValidationError, formatIssue, issuePathText, type IssueData, type IssuePath, type ValidationIssue } from '../contracts/errors.js';
export { LedgerConflictError, IdempotencyConflictError, StoreUnavailableError, RunArchivedError } from '../contracts/store-errors.js';
export { StepMismatchError, RunEndedError, EscalationOpenError } from '../contracts/run-errors.js';
