// navkernel/service: the HTTP service in your own process (createService), or `navkernel serve` as a child process
// (startServe) or `navkernel route` as a co-process (startCoProcess); principals and their scopes; the OpenAPI document. docs/service.md.
export { createService, type Service, type ServiceOptions } from './server.js';
export { serviceLedger, type ServiceLedger } from './ledger-reader.js';
export { startServe, type ServeProcess, type StartServeOptions } from './start-serve.js';
export { startCoProcess, type CoProcess, type StartCoProcessOptions } from './start-coprocess.js';
export { SCOPES, createPrincipalDirectory, parseTokensFile, newToken, type Principal, type PrincipalDirectory, type Scope } from './principals.js';
export { buildOpenApi } from './openapi.js';
