// navkernel's public API.
export * from './contracts/index.js';
export * from './kernel/index.js';
export * from './ledger/index.js';
export * from './explorer/index.js';
export * from './llm/index.js';
export * from './demo/index.js';
export { VERSION } from './version.js';
