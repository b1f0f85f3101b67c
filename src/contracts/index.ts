export * from './errors.js';
export * from './route-request.js';
export * from './decision.js';
export * from './flow.js';
export { SCHEMA_REGISTRY, type RegisteredSchema } from './schema-registry.js';
export { renderJsonSchema, toPublishedJsonSchema } from './json-schema.js';
export { compileValidator, issuesFromAjv, toJsonPath, schemasDir, type CompiledValidator, type ValidationResult } from './validate.js';
