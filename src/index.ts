// navkernel's public API.
export * from './contracts/index.js';
export * from './kernel/index.js';
export * from './ledger/index.js';
export * from './runs/index.js';
export * from './explorer/index.js';
export * from './llm/index.js';
export * from './demo/index.js';
export * from './navigator/index.js';
export {
  renderFlightPlan,
  renderFile,
  indexRepo,
  scanRepo,
  extractOutline,
  rankFiles,
  countTokens,
  compileCustomQuery,
  languageOf,
  resolveInsideRoot,
  splitWords,
  TOKEN_ENCODING,
  type RenderFlightPlanOptions,
  type RenderResult,
  type MapFile,
  type RepoIndex,
  type IndexedFile,
  type IndexOptions,
  type Outline,
  type Definition,
  type Level,
} from './repomap/index.js';
export { startServe, navkernelBin, type ServeProcess, type StartServeOptions } from './service/start-serve.js';
export { VERSION } from './version.js';
export { SCHEMA_REGISTRY } from './schema-registry.js';
