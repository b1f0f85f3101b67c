export { createService, isLoopback, type Service, type ServiceOptions } from './server.js';
export { serviceLedger, type ServiceLedger } from './ledger-reader.js';
export { buildOpenApi, renderOpenApi } from './openapi.js';
export { ApiError, problem, problemFor, STATUS_OF } from './problem.js';
export { RunQueue } from './run-queue.js';
export { createMetrics, observedStore, tracedArbiter, navkernelTracer, type ServiceMetrics } from './telemetry.js';
export { renderRunReport, flowsList } from './report.js';
export { flowDiagram, runOverlay, type DiagramOverlay, type FlowDiagram, type OverlayDecision, type OverlayEscalation } from './diagram.js';
export {
  SCOPES,
  SHARED_TOKEN_PRINCIPAL,
  invalidTokensFile,
  createPrincipalDirectory,
  newToken,
  parseTokensFile,
  type Principal,
  type PrincipalDirectory,
  type Scope,
} from './principals.js';
export { ENDPOINT_SCOPES, scopeOf } from './endpoint-scopes.js';
export { startServe, navkernelBin, type ServeProcess, type StartServeOptions } from './start-serve.js';
export { startCoProcess, type CoProcess, type StartCoProcessOptions } from './start-coprocess.js';
