import { SCHEMA_REGISTRY } from '../schema-registry.js';
import { toPublishedJsonSchema } from '../contracts/json-schema.js';
import { ENDPOINT_SCOPES } from './endpoint-scopes.js';
import { STATUS_OF } from './problem.js';
import { VERSION } from '../version.js';

/** The published schemas the API uses, by component name (the zod contracts, as in `schemas/`). */
const COMPONENTS: Record<string, string> = {
  RouteRequest: 'route-request',
  Decision: 'decision',
  RunsPage: 'runs-page',
  RunDetail: 'run-detail',
  AuditReport: 'audit-report',
  WhyReport: 'why-report',
  ReplayBody: 'replay-body',
  ReplayReport: 'replay-report',
  ResolveBody: 'resolve-body',
  Escalation: 'escalation',
  VerifyReport: 'verify-report',
  FlowsList: 'flows-list',
  LedgerStats: 'ledger-stats',
  Health: 'health',
  WhoAmI: 'whoami',
  EscalationsInbox: 'escalations-inbox',
  Problem: 'problem',
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const ok = (name: string, description: string) => ({ description, content: { 'application/json': { schema: ref(name) } } });
const body = (name: string, required = true) => ({ required, content: { 'application/json': { schema: ref(name) } } });
const problems = (...codes: (keyof typeof STATUS_OF)[]) => {
  const out: Record<string, unknown> = {};
  const byStatus = new Map<number, string[]>();
  for (const c of ['UNAUTHORIZED', 'INTERNAL', 'STORE_UNAVAILABLE', ...codes] as (keyof typeof STATUS_OF)[]) {
    const s = STATUS_OF[c];
    byStatus.set(s, [...(byStatus.get(s) ?? []), c]);
  }
  for (const [status, cs] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = { description: [...new Set(cs)].join(', '), content: { 'application/problem+json': { schema: ref('Problem') } } };
  }
  return out;
};
const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
const query = (name: string, description: string, schema: Record<string, unknown>) => ({ name, in: 'query', required: false, description, schema });

/** The OpenAPI 3.1 document of `navkernel serve`, generated from the zod contracts. Deterministic. */
export function buildOpenApi(): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (const [component, name] of Object.entries(COMPONENTS)) {
    const entry = SCHEMA_REGISTRY.find((e) => e.name === name);
    if (!entry) throw new Error(`openapi: no registered schema ${name}`);
    const { $id: _id, $schema: _schema, ...rest } = toPublishedJsonSchema(entry);
    schemas[component] = rest;
  }
  const doc = {
    openapi: '3.1.0',
    info: {
      title: 'navkernel',
      version: VERSION,
      description:
        'The navkernel routing kernel and its ledger over HTTP. Errors are application/problem+json documents with a stable `code` (the same codes as the co-process error line). When the server was started with --token or --principals, every /v1 endpoint but /v1/healthz and /v1/whoami needs `Authorization: Bearer <token>` (401 without one); the principal the token belongs to needs the scope named by the `x-navkernel-scope` of each operation (route, read, resolve, admin; 403 FORBIDDEN without it). Every path must be spelled as documented here (a percent-encoded letter of a fixed segment is 400 NON_CANONICAL_PATH); a server without a token answers loopback Host names only (421 HOST_NOT_ALLOWED).',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: 'http://127.0.0.1:8787' }],
    security: [{}, { bearer: [] }],
    paths: {
      '/v1/route': {
        post: {
          operationId: 'route',
          summary: 'Route the step a runner just finished: one request, one decision (idempotent by request_id)',
          requestBody: body('RouteRequest'),
          responses: { '200': ok('Decision', 'The decision, recorded in the ledger'), ...problems('INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'INPUT_TOO_LARGE', 'INVALID_REQUEST', 'INVALID_FORENSICS', 'IDEMPOTENCY_CONFLICT', 'LEDGER_CONFLICT', 'TIMEOUT') },
        },
      },
      '/v1/runs': {
        get: {
          operationId: 'listRuns',
          summary: 'Runs in the ledger, oldest first, filtered and paginated',
          parameters: [
            query('status', 'Only runs with this status', { type: 'string', enum: ['active', 'escalated', 'terminated'] }),
            query('flow', 'Only runs that routed in this flow', { type: 'string' }),
            query('has_open_escalation', 'Only runs with (true) or without (false) an open escalation', { type: 'string', enum: ['true', 'false'] }),
            query('limit', 'Page size (1-500, default 50)', { type: 'integer', minimum: 1, maximum: 500 }),
            query('cursor', 'next_cursor of the previous page', { type: 'string' }),
          ],
          responses: { '200': ok('RunsPage', 'One page of run summaries'), ...problems('INVALID_REQUEST') },
        },
      },
      '/v1/runs/{id}': {
        get: {
          operationId: 'getRun',
          summary: "A run's summary, persisted state, decisions (a page, in order) and escalations",
          parameters: [
            pathParam('id', 'Run id'),
            query('after', 'Only decisions with seq above this (default 0)', { type: 'integer', minimum: 0 }),
            query('limit', 'Decisions per page (1-5000, default 1000)', { type: 'integer', minimum: 1, maximum: 5000 }),
          ],
          responses: { '200': ok('RunDetail', 'The run'), ...problems('UNKNOWN_RUN', 'INVALID_REQUEST') },
        },
      },
      '/v1/runs/{id}/audit': {
        get: {
          operationId: 'auditRun',
          summary: 'How the run was routed (navkernel runs audit); with ?why=STEP the decisions that touched a step',
          parameters: [pathParam('id', 'Run id'), query('why', 'A step id', { type: 'string' })],
          responses: {
            '200': { description: 'AuditReport, or WhyReport with ?why', content: { 'application/json': { schema: { oneOf: [ref('AuditReport'), ref('WhyReport')] } } } },
            ...problems('UNKNOWN_RUN', 'INVALID_REQUEST'),
          },
        },
      },
      '/v1/runs/{id}/replay': {
        post: {
          operationId: 'replayRun',
          summary: 'Re-route the recorded run with the served flows and recorded LLM answers; the divergence report',
          parameters: [pathParam('id', 'Run id')],
          requestBody: body('ReplayBody', false),
          responses: { '200': ok('ReplayReport', 'The replay report (identical: true when every decision reproduced)'), ...problems('UNKNOWN_RUN', 'INVALID_REQUEST', 'INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'TIMEOUT') },
        },
      },
      '/v1/escalations': {
        get: {
          operationId: 'openEscalations',
          summary: 'Open escalations across runs, oldest first (the inbox of the people who resolve them)',
          parameters: [query('limit', 'Runs with an open escalation to include (1–500, default 50)', { type: 'integer', minimum: 1, maximum: 500 })],
          responses: { '200': ok('EscalationsInbox', 'Open escalations'), ...problems('INVALID_REQUEST') },
        },
      },
      '/v1/escalations/{id}/resolve': {
        post: {
          operationId: 'resolveEscalation',
          summary: "Record a person's decision on an open escalation, checked against the flow graph (navkernel runs resolve)",
          parameters: [pathParam('id', 'Escalation id')],
          requestBody: body('ResolveBody'),
          responses: {
            '200': ok('Escalation', 'The resolved escalation'),
            ...problems('UNKNOWN_ESCALATION', 'ESCALATION_ALREADY_RESOLVED', 'INVALID_RESOLUTION', 'INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'INPUT_TOO_LARGE'),
          },
        },
      },
      '/v1/verify': {
        get: { operationId: 'verify', summary: 'Re-compute every hash chain and check decisions.jsonl (read only)', responses: { '200': ok('VerifyReport', 'ok: false names the first bad row of each run'), ...problems() } },
      },
      '/v1/flows': { get: { operationId: 'listFlows', summary: 'The flows this service routes with', responses: { '200': ok('FlowsList', 'Flow definitions'), ...problems() } } },
      '/v1/stats': {
        get: { operationId: 'ledgerStats', summary: 'Decisions by tier and rule over the whole ledger, and cost over time', responses: { '200': ok('LedgerStats', 'Ledger statistics'), ...problems() } },
      },
      '/v1/events': {
        get: {
          operationId: 'events',
          summary:
            'Server-Sent Events: each decision, escalation and resolution as it is committed (event types decision, escalation, resolution; reset when Last-Event-ID cannot be resumed). Heartbeat comments every 15 s; a subscriber that falls 1 MiB behind is dropped and may resume',
          parameters: [
            query('run', 'Only this run', { type: 'string' }),
            { name: 'Last-Event-ID', in: 'header', required: false, description: 'The id of the last event received: resume after it', schema: { type: 'string' } },
          ],
          responses: { '200': { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...problems('INVALID_REQUEST', 'TOO_MANY_SUBSCRIBERS') },
        },
      },
      '/v1/whoami': {
        get: { operationId: 'whoami', summary: 'Who the presented bearer token belongs to and its scopes (never refused; for the web UI)', security: [{}, { bearer: [] }], responses: { '200': ok('WhoAmI', 'The caller') } },
      },
      '/v1/healthz': { get: { operationId: 'health', summary: 'Liveness (never needs the token)', security: [{}], responses: { '200': ok('Health', 'Serving') } } },
      '/v1/metrics': {
        get: {
          operationId: 'metrics',
          summary: 'Prometheus text: routes by tier/rule/decision, route latency histogram, LLM calls and cost',
          responses: { '200': { description: 'Prometheus exposition format', content: { 'text/plain': { schema: { type: 'string' } } } }, ...problems() },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A token of a principal in the --principals file (scoped), or the single --token (every scope)' } },
      schemas,
    },
  };
  withScopes(doc.paths as Record<string, Record<string, Record<string, unknown>>>);
  return doc;
}

/** Marks each operation with the scope it needs (`x-navkernel-scope`) and, unless public, the 403 it can answer. */
function withScopes(paths: Record<string, Record<string, Record<string, unknown>>>): void {
  for (const [p, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const scope = ENDPOINT_SCOPES[`${method.toUpperCase()} ${p}`];
      if (!scope) throw new Error(`openapi: ${method.toUpperCase()} ${p} has no scope in src/service/endpoint-scopes.ts`);
      op['x-navkernel-scope'] = scope;
      if (scope !== 'public') {
        const responses = op.responses as Record<string, unknown>;
        responses['403'] = { description: 'FORBIDDEN: the principal lacks the scope', content: { 'application/problem+json': { schema: ref('Problem') } } };
        op.responses = Object.fromEntries(Object.entries(responses).sort((a, b) => a[0].localeCompare(b[0])));
      }
    }
  }
}

/** Serialised form written to `schemas/openapi.json`. */
export function renderOpenApi(): string {
  return JSON.stringify(buildOpenApi(), null, 2) + '\n';
}
