export { createKernel, type Kernel, type KernelOptions, type RouteOptions } from './kernel.js';
export { MemoryStore } from './memory-store.js';
export { loadFlows, defineFlows, buildFlowSet, listFlowFiles, parseFlowText } from './flows/load-flows.js';
export { makeFlowSet, compileFlow } from './flows/compile-flow.js';
export type { CompiledFlow, CompiledStep, FlowSet, ResolvedDetour } from './flows/compiled-flow.js';
export { DEFAULT_SIGNATURES, buildSignatureTable, deriveSignature, type SignatureMatcher } from './signatures.js';
export { emptyRunState } from './run-state.js';
export { SUCCESS_STATUSES } from './route-work.js';
export { flowWarnings, type FlowWarning } from './flows/flow-warnings.js';
