import type { Scope } from './principals.js';

/**
 * The scope each endpoint needs, by `METHOD /openapi/path`. One table for the server's check and the OpenAPI
 * document (`x-navkernel-scope`), so an endpoint cannot be served without a scope: the server refuses a /v1
 * route missing here, and building the OpenAPI document throws for an operation missing here.
 */
export const ENDPOINT_SCOPES: Readonly<Record<string, Scope | 'public'>> = {
  'POST /v1/route': 'route',
  'GET /v1/runs': 'read',
  'GET /v1/runs/{id}': 'read',
  'GET /v1/runs/{id}/audit': 'read',
  'POST /v1/runs/{id}/replay': 'read',
  'GET /v1/escalations': 'read',
  'POST /v1/escalations/{id}/resolve': 'resolve',
  'GET /v1/verify': 'read',
  'GET /v1/flows': 'read',
  'GET /v1/stats': 'read',
  'GET /v1/events': 'read',
  'GET /v1/whoami': 'public',
  'GET /v1/healthz': 'public',
  'GET /v1/metrics': 'read',
};

/** `/v1/runs/:id` (a Fastify route) as `/v1/runs/{id}` (an OpenAPI path). */
export function openApiPath(fastifyUrl: string): string {
  return fastifyUrl.replace(/:([A-Za-z_]\w*)/g, '{$1}');
}

/** The scope of a served route, or undefined when the table has none (refused: fail closed). */
export function scopeOf(method: string, fastifyUrl: string): Scope | 'public' | undefined {
  return ENDPOINT_SCOPES[`${method.toUpperCase()} ${openApiPath(fastifyUrl)}`];
}
