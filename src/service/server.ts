import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import {
  DEFAULT_LIMITS,
  NOT_UTF8,
  NavkernelError,
  ValidationError,
  classifyRouteError,
  decodeUtf8,
  jsonSyntaxMessage,
  tooLargeMessage,
  compileValidator,
  type CompiledValidator,
  type Decision,
  type ArbiterPort,
  type Problem,
  type ReplayBody,
  type ResolveBody,
  type RouteRecord,
  type RunPageKey,
  type RunStatus,
} from '../contracts/index.js';
import { createKernel, type FlowSet, type Kernel } from '../kernel/index.js';
import { packageRoot } from '../package-root.js';
import { VERSION } from '../version.js';
import type { ServiceLedger } from './ledger-reader.js';
import { scopeOf } from './endpoint-scopes.js';
import { EventHub, type EventHubOptions } from './events.js';
import { buildOpenApi } from './openapi.js';
import { withReports } from '../forensics/with-reports.js';
import { SCOPES, createPrincipalDirectory, type Principal, type PrincipalDirectory, type Scope } from './principals.js';
import { ApiError, problem, problemFor } from './problem.js';
import { flowsList } from './report.js';
import { RunQueue } from './run-queue.js';
import { createMetrics, navkernelTracer, observedStore, tracedArbiter, type ServiceMetrics } from './telemetry.js';

export interface ServiceOptions {
  flows: FlowSet;
  ledger: ServiceLedger;
  /** Refuse misspelt forensic fields and contradicting numbers (`KernelOptions.strict`, `--strict`). */
  strict?: boolean;
  /** Tier 3 (see `KernelOptions.arbiter`). */
  arbiter?: ArbiterPort;
  /** @deprecated The former name of `arbiter`. */
  navigator?: ArbiterPort;
  /** A single bearer token with every scope (principal `shared-token`). Required, or `principals`, to bind beyond loopback. */
  token?: string;
  /** Principals with scopes (`serve --tokens FILE`); combined with `token` when both are given. */
  principals?: PrincipalDirectory;
  /** Largest accepted body in bytes, and the kernel's request size limit (default 1 MiB; `navkernel serve --max-bytes`). */
  bodyLimit?: number;
  /** Time limit for one request's handling in ms (default 30 s). */
  requestTimeoutMs?: number;
  /** Validate every response against its published schema (default true). */
  validateResponses?: boolean;
  /** Folder of the built web UI (default `dist/ui` of the package). */
  uiDir?: string;
  /** Limits of the live event stream (`GET /v1/events`). */
  events?: EventHubOptions;
  /** Time source for recorded timestamps (tests). */
  clock?: () => number | Date;
  /** Folder under which a route request's `reports` files are read into its forensics (default: none, refused). */
  reportsRoot?: string;
}

export interface Service {
  readonly app: FastifyInstance;
  readonly kernel: Kernel;
  readonly metrics: ServiceMetrics;
  /** Listens; resolves to the address (`http://127.0.0.1:8787`). */
  listen(host: string, port: number): Promise<string>;
  /** Stops accepting, finishes in-flight requests, then closes the kernel and the ledger. */
  close(): Promise<void>;
}

const MAX_PAGE = 500;
const MAX_DECISIONS_PAGE = 5000;

/** True for addresses that only this machine reaches. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/** The caller when the server needs no token (loopback only): every scope, nobody in particular. */
const ANONYMOUS: Principal = { name: 'anonymous', scopes: new Set(SCOPES), identified: false };

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent the request (set by the auth hook for every /v1 route). */
    principal: Principal | null;
  }
}

/** Builds the HTTP service (not yet listening). */
export function createService(options: ServiceOptions): Service {
  const { flows, ledger } = options;
  const validateResponses = options.validateResponses ?? true;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const metrics = createMetrics();
  const queue = new RunQueue();
  const routeSpans = new Map<string, Span>();
  const lastRecord = new Map<string, RouteRecord>();
  const events = new EventHub(options.events);
  const store = observedStore(ledger.store, (record) => {
    lastRecord.set(record.run_id, record);
    publishRoute(events, record);
  });
  const untraced = options.arbiter ?? options.navigator;
  const arbiter = untraced ? tracedArbiter(untraced, (run) => routeSpans.get(run)) : undefined;
  const bodyLimit = options.bodyLimit ?? DEFAULT_LIMITS.maxBytes;
  // One size limit for the body and the request inside it (navkernel serve --max-bytes).
  const kernel = createKernel({ flows, store, limits: { maxBytes: bodyLimit }, ...(arbiter ? { arbiter } : {}), ...(options.strict ? { strict: true } : {}), ...(options.clock ? { clock: options.clock } : {}) });
  const openapi = buildOpenApi();
  const principals = options.principals ?? createPrincipalDirectory(options.token !== undefined ? { token: options.token } : {});
  const sharedToken = options.principals && options.token !== undefined ? createPrincipalDirectory({ token: options.token }) : undefined;
  /** The principal a request's bearer token belongs to (undefined: none or wrong). */
  const caller = (authorization: string | undefined): Principal | undefined => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!m) return undefined;
    return principals.authenticate(m[1]!) ?? sharedToken?.authenticate(m[1]!);
  };
  const authRequired = principals.required || sharedToken !== undefined;

  const app = Fastify({
    logger: false,
    bodyLimit,
    // Receiving one request (headers and body) may take at most this long; slow clients do not hold a slot.
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: 5_000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  // JSON only (Fastify would otherwise accept text/plain bodies as strings), parsed here so that a syntax error
  // names where the JSON breaks, and keys that could pollute a prototype are refused.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  // Bytes, not a string: the body is decoded by the input rule every transport shares (strict UTF-8).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    try {
      const text = decodeUtf8(body as Buffer);
      if (text === undefined) throw new ApiError('INVALID_JSON', `the body is ${NOT_UTF8}`);
      done(null, parseJsonBody(text));
    } catch (e) {
      done(e as Error, undefined);
    }
  });

  const sendProblem = (reply: FastifyReply, p: Problem) => {
    metrics.problem(p.code);
    return reply.code(p.status).header('content-type', 'application/problem+json').send(JSON.stringify(p));
  };

  app.setErrorHandler((err, req, reply) => {
    let p = problemFor(err, req.url);
    // Fastify refuses an oversized body before reading it: say the limit and the flag that sets it.
    if (p.code === 'INPUT_TOO_LARGE' && (err as { code?: unknown }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const length = Number(req.headers['content-length']);
      p = problem('INPUT_TOO_LARGE', tooLargeMessage('the body', Number.isSafeInteger(length) ? length : undefined, bodyLimit), req.url);
    }
    if (p.code === 'UNSUPPORTED_MEDIA_TYPE') p = problem(p.code, `the body must be application/json (got ${JSON.stringify(req.headers['content-type'] ?? 'no content type')})`, req.url);
    // Internal faults go to stderr with their stack, never with the request's headers (the token).
    if (p.code === 'INTERNAL') process.stderr.write(`navkernel serve: ${req.method} ${req.url.split('?')[0]}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return sendProblem(reply, p);
  });
  app.setNotFoundHandler((req, reply) => sendProblem(reply, problem('NOT_FOUND', `no endpoint ${req.method} ${req.url.split('?')[0]}`, req.url)));

  // Every /v1 route needs the scope src/service/endpoint-scopes.ts gives it; a route missing there is refused
  // (fail closed), so a new endpoint cannot be served without deciding who may call it.
  app.decorateRequest('principal', null);
  // The scope of each METHOD and route template, looked up in the table once (null: none configured, refused).
  const scopes = new Map<string, Scope | 'public' | null>();
  const scopeFor = (method: string, template: string): Scope | 'public' | undefined => {
    const key = `${method} ${template}`;
    let scope = scopes.get(key);
    if (scope === undefined) scopes.set(key, (scope = scopeOf(method, template) ?? null));
    return scope ?? undefined;
  };
  // A callback hook, not an async one: no promise per request for what is a table look-up when it passes.
  app.addHook('onRequest', (req, reply, done) => {
    const url = req.url;
    if (!url.startsWith('/v1/')) return done();
    const template = req.routeOptions.url;
    // No such endpoint (the UI's static wildcard catches /v1/nothing): the not-found handler answers.
    if (template === undefined || !template.startsWith('/v1/')) return done();
    const scope = scopeFor(req.method, template);
    if (scope === 'public') return done();
    let who: Principal | undefined = ANONYMOUS;
    if (authRequired) {
      who = caller(req.headers.authorization);
      if (!who) {
        reply.header('www-authenticate', 'Bearer realm="navkernel"');
        const given = /^Bearer\s+\S+/i.test(req.headers.authorization ?? '');
        return sendProblem(reply, problem('UNAUTHORIZED', given ? 'the bearer token is wrong (not one this server knows)' : 'this server needs an Authorization: Bearer <token> header', url.split('?')[0]));
      }
    }
    if (scope === undefined) return sendProblem(reply, problem('FORBIDDEN', `${req.method} ${template} has no scope configured, so nobody may call it`, url.split('?')[0]));
    if (!who.scopes.has(scope)) {
      const path = url.split('?')[0];
      return sendProblem(reply, problem('FORBIDDEN', `${req.method} ${path} needs the ${scope} scope; principal ${who.name} has ${[...who.scopes].join(', ')}`, path));
    }
    req.principal = who;
    done();
  });

  /** Runs a handler under the time limit. */
  const deadline = <T>(work: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new ApiError('TIMEOUT', `no answer within ${requestTimeoutMs} ms; a route may still be recorded: retry with the same request_id`)),
        requestTimeoutMs,
      );
      work.then(
        (v) => (clearTimeout(timer), resolve(v)),
        (e) => (clearTimeout(timer), reject(e)),
      );
    });

  // Each response schema's validator, compiled at its first use and held here (no look-up by name per response).
  const validators = new Map<string, CompiledValidator<unknown>>();
  const checked = <T>(schema: string, body: T): T => {
    if (!validateResponses) return body;
    let validate = validators.get(schema);
    if (validate === undefined) validators.set(schema, (validate = compileValidator(schema)));
    const r = validate(body);
    if (!r.success) throw new Error(`response does not match schemas/${schema}.schema.json: ${r.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    return body;
  };

  const json = (reply: FastifyReply, schema: string, body: unknown) => reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(checked(schema, body)));

  const router = withReports(kernel, { root: options.reportsRoot });

  async function routeOne(body: unknown, run_id: string | undefined, principal: string | null): Promise<Decision> {
    const started = performance.now();
    const span = navkernelTracer().startSpan('navkernel.route', run_id !== undefined ? { attributes: { 'navkernel.run_id': run_id } } : undefined);
    // Only tier 3's spans look the route's span up (by run: routes of one run are serialised).
    if (arbiter && run_id !== undefined) routeSpans.set(run_id, span);
    try {
      const decision = await router.route(body, { principal });
      const record = run_id !== undefined ? lastRecord.get(run_id) : undefined;
      if (run_id !== undefined) lastRecord.delete(run_id);
      const req = body as { flow: string; step_completed: string };
      // Without an OpenTelemetry SDK the span records nothing: its attributes are not even built.
      if (span.isRecording()) {
        span.setAttributes({
          'navkernel.flow': req.flow,
          'navkernel.step': req.step_completed,
          'navkernel.tier': decision.tier,
          'navkernel.rule': decision.rule,
          'navkernel.decision': decision.decision,
          'navkernel.cost_usd': record?.cost_usd ?? 0,
          ...(decision.seq !== undefined ? { 'navkernel.seq': decision.seq } : {}),
          ...(decision.next_step_id ? { 'navkernel.next_step': decision.next_step_id } : {}),
        });
      }
      metrics.route(decision, (performance.now() - started) / 1000, record);
      return decision;
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof NavkernelError ? e.code : 'INTERNAL' });
      // Worded and coded as the co-process words it (src/contracts/request-input.ts).
      if (e instanceof NavkernelError) {
        const r = classifyRouteError(e);
        if (r.code !== 'INTERNAL' && r.code !== 'STORE_UNAVAILABLE') throw new ApiError(r.code, r.message, r.issues, r.legacy_code);
      }
      throw e;
    } finally {
      if (arbiter && run_id !== undefined) routeSpans.delete(run_id);
      span.end();
    }
  }

  app.post('/v1/route', async (req, reply) => {
    const body = req.body;
    const run = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { run_id?: unknown }).run_id : undefined;
    const run_id = typeof run === 'string' ? run : undefined;
    // The route is recorded as sent by the token's principal (the shared --token's is `shared-token`); without auth, nobody.
    const principal = authRequired && req.principal ? req.principal.name : null;
    // Routes of one run one at a time, in arrival order; other runs in parallel.
    const decision = await deadline(run_id !== undefined ? queue.run(run_id, () => routeOne(body, run_id, principal)) : routeOne(body, undefined, principal));
    return json(reply, 'decision', decision);
  });

  app.get('/v1/runs', async (req, reply) => {
    const q = req.query as Record<string, string | string[] | undefined>;
    const one = (k: string): string | undefined => {
      const v = q[k];
      if (Array.isArray(v)) throw new ApiError('INVALID_REQUEST', `query parameter ${k} is given ${v.length} times`);
      return v;
    };
    const status = one('status');
    if (status !== undefined && !['active', 'escalated', 'terminated'].includes(status)) throw new ApiError('INVALID_REQUEST', `status must be active, escalated or terminated (got ${JSON.stringify(status)})`);
    const flow = one('flow');
    const open = one('has_open_escalation');
    if (open !== undefined && open !== 'true' && open !== 'false') throw new ApiError('INVALID_REQUEST', `has_open_escalation must be true or false (got ${JSON.stringify(open)})`);
    const limit = intParam(one('limit'), 'limit', 50, 1, MAX_PAGE);
    const cursor = one('cursor');
    const page = await deadline(
      ledger.runsPage({
        limit,
        ...(status !== undefined ? { status: status as RunStatus } : {}),
        ...(flow !== undefined ? { flow } : {}),
        ...(open !== undefined ? { has_open_escalation: open === 'true' } : {}),
        ...(cursor !== undefined ? decodeRunsCursor(cursor) : {}),
      }),
    );
    return json(reply, 'runs-page', { runs: page.runs, total: page.total, next_cursor: page.next ? encodeRunsCursor(page.next) : null });
  });

  app.get('/v1/runs/:id', async (req, reply) => {
    const { id } = req.params as { id: string };
    const q = req.query as Record<string, string | undefined>;
    const after = intParam(q.after, 'after', 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = intParam(q.limit, 'limit', 1000, 1, MAX_DECISIONS_PAGE);
    return json(reply, 'run-detail', await deadline(ledger.runDetail(id, after, limit)));
  });

  app.get('/v1/runs/:id/audit', async (req, reply) => {
    const { id } = req.params as { id: string };
    const why = (req.query as { why?: unknown }).why;
    if (why !== undefined && (typeof why !== 'string' || why === '')) throw new ApiError('INVALID_REQUEST', 'why must name one step');
    if (typeof why === 'string') return json(reply, 'why-report', await deadline(ledger.why(id, why, flows)));
    return json(reply, 'audit-report', await deadline(ledger.audit(id)));
  });

  app.post('/v1/runs/:id/replay', async (req, reply) => {
    const { id } = req.params as { id: string };
    const body = validated<ReplayBody>('replay-body', req.body ?? {}, 'INVALID_REQUEST');
    return json(reply, 'replay-report', await deadline(queue.run(id, () => ledger.replay(id, flows, body.max_divergences))));
  });

  app.post('/v1/escalations/:id/resolve', async (req, reply) => {
    const { id } = req.params as { id: string };
    const body = validated<ResolveBody>('resolve-body', req.body, 'INVALID_RESOLUTION');
    const who = req.principal ?? ANONYMOUS;
    // A named principal is the author; a different name in the body is refused rather than recorded beside it.
    if (who.identified && body.by !== undefined && body.by !== who.name) {
      throw new ApiError('INVALID_RESOLUTION', `by says ${JSON.stringify(body.by)} but the request is authenticated as ${who.name}; leave by out`);
    }
    const by = who.identified ? who.name : body.by;
    if (by === undefined) throw new ApiError('INVALID_RESOLUTION', '$.by: required: name who resolves the escalation (this server has no per-person tokens to tell)');
    const run = await ledger.escalationRun(id);
    const input = {
      escalation_id: id,
      decision: body.decision,
      by,
      reason: body.reason,
      authenticated: who.identified,
      via: 'http' as const,
      ...(body.next !== undefined ? { next: body.next } : {}),
    };
    const resolve = () => ledger.resolve(flows, input);
    const resolved = await deadline(run !== undefined ? queue.run(run, resolve) : resolve());
    events.publish('resolution', resolved.run_id, resolved);
    return json(reply, 'escalation', resolved);
  });

  app.get('/v1/verify', async (_req, reply) => json(reply, 'verify-report', await deadline(ledger.verify())));
  app.get('/v1/stats', async (_req, reply) => json(reply, 'ledger-stats', await deadline(ledger.stats())));
  app.get('/v1/flows', async (_req, reply) => json(reply, 'flows-list', flowsList(flows)));
  app.get('/v1/events', async (req, reply) => {
    const run = (req.query as { run?: unknown }).run;
    if (run !== undefined && (typeof run !== 'string' || run === '')) throw new ApiError('INVALID_REQUEST', 'run must name one run');
    const last = req.headers['last-event-id'];
    const raw = reply.raw;
    // Subscribing writes at once, so the headers go first; a refusal is still an ordinary problem document.
    if (events.size >= (options.events?.maxSubscribers ?? 256)) throw new ApiError('TOO_MANY_SUBSCRIBERS', `the event stream already has ${events.size} subscribers; retry later`);
    reply.hijack();
    raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    const sub = events.subscribe(raw, { ...(typeof run === 'string' ? { run } : {}), ...(typeof last === 'string' ? { lastEventId: last } : {}) });
    if (!sub.ok) return raw.end();
    req.raw.once('close', sub.unsubscribe);
  });
  app.get('/v1/whoami', async (req, reply) => {
    const who = authRequired ? caller(req.headers.authorization) : ANONYMOUS;
    return json(reply, 'whoami', {
      auth_required: authRequired,
      principal: who && authRequired ? who.name : null,
      authenticated: who?.identified ?? false,
      scopes: who ? SCOPES.filter((s) => who.scopes.has(s)) : [],
    });
  });
  app.get('/v1/escalations', async (req, reply) => {
    const limit = intParam((req.query as { limit?: string }).limit, 'limit', 50, 1, MAX_PAGE);
    return json(reply, 'escalations-inbox', await deadline(ledger.openEscalations(limit)));
  });
  app.get('/v1/healthz', async (_req, reply) => json(reply, 'health', { status: 'ok', version: VERSION, flows_hash: flows.hash, ledger: ledger.location }));
  app.get('/v1/metrics', async (_req, reply) => reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics()));
  app.get('/openapi.json', async (_req, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(openapi)));

  const uiDir = options.uiDir ?? path.join(packageRoot(), 'dist', 'ui');
  if (existsSync(path.join(uiDir, 'index.html'))) {
    app.register(fastifyStatic, { root: uiDir, prefix: '/', index: 'index.html', wildcard: true });
  } else {
    app.get('/', async (_req, reply) =>
      reply.type('text/html; charset=utf-8').send('<!doctype html><title>navkernel</title><p>The web UI is not built: run <code>npm run build</code>. The API is under <a href="/openapi.json">/v1</a>.</p>'),
    );
  }

  let closed = false;
  return {
    app,
    kernel,
    metrics,
    async listen(host, port) {
      if (!isLoopback(host) && !authRequired) {
        throw new NavkernelError('UNSAFE_BIND', `refusing to listen on ${host} without --token or --tokens: only loopback addresses (127.0.0.1, ::1, localhost) may be served without bearer tokens`);
      }
      return app.listen({ host, port });
    },
    async close() {
      if (closed) return;
      closed = true;
      events.close();
      await app.close();
      await kernel.close();
    },
  };
}

/** A committed route as the event stream tells it: the run page's timeline entry, and the escalation it opened. */
function publishRoute(events: EventHub, record: RouteRecord): void {
  // Nobody can receive it (no subscriber, and none has had an event it could resume from): not even built.
  if (!events.listening) return;
  const { decision } = record;
  events.publish('decision', record.run_id, {
    run_id: record.run_id,
    seq: record.seq,
    flow: record.flow,
    step: record.step,
    status: record.request.status,
    ts: record.ts,
    latency_us: record.latency_us,
    cost_usd: record.cost_usd,
    decision,
    llm_calls: record.llm_calls,
    principal: record.principal ?? null,
  });
  if (decision.decision === 'ESCALATE' && decision.escalation_id) {
    events.publish('escalation', record.run_id, {
      escalation_id: decision.escalation_id,
      run_id: record.run_id,
      seq: record.seq,
      flow: record.flow,
      step: record.step,
      reason: decision.reason,
      opened_ts: record.ts,
      status: 'open',
      resolution: null,
    });
  }
}

/** JSON.parse for request bodies: INVALID_JSON naming the problem; `__proto__` / `constructor.prototype` refused. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw new ApiError('INVALID_JSON', 'the body is empty; expected a JSON document');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // Worded as every transport words it: V8's message without the excerpt of the body it quotes (a secret, maybe).
    throw new ApiError('INVALID_JSON', `the body is not valid JSON: ${jsonSyntaxMessage(e)}`);
  }
  if (text.includes('__proto__') || text.includes('prototype')) {
    JSON.parse(text, function (this: unknown, key, v: unknown) {
      if (key === '__proto__' || (key === 'prototype' && this !== null && typeof this === 'object')) {
        throw new ApiError('INVALID_JSON', `the body has a ${JSON.stringify(key)} key, which is refused (prototype pollution)`);
      }
      return v;
    });
  }
  return value;
}

/**
 * `/v1/runs` cursors are keysets: the sort key (created_ts, run_id) of the page's last run, as base64url JSON, so a
 * page costs the same wherever it is and runs created meanwhile shift nothing. A cursor of digits only is an offset,
 * as cursors were before (pages handed out by an older version keep working).
 */
export function encodeRunsCursor(key: RunPageKey): string {
  return Buffer.from(JSON.stringify([key.created_ts, key.run_id]), 'utf8').toString('base64url');
}

function decodeRunsCursor(cursor: string): { after: RunPageKey } | { offset: number } {
  if (/^\d+$/.test(cursor)) return { offset: intParam(cursor, 'cursor', 0, 0, Number.MAX_SAFE_INTEGER) };
  let key: unknown;
  try {
    key = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  } catch {
    key = undefined;
  }
  if (!Array.isArray(key) || key.length !== 2 || typeof key[0] !== 'string' || typeof key[1] !== 'string') {
    throw new ApiError('INVALID_REQUEST', `cursor is not a next_cursor this service gave (got ${JSON.stringify(cursor)})`);
  }
  return { after: { created_ts: key[0], run_id: key[1] } };
}

function intParam(v: string | undefined, name: string, dflt: number, min: number, max: number): number {
  if (v === undefined) return dflt;
  if (!/^\d{1,16}$/.test(v)) throw new ApiError('INVALID_REQUEST', `${name} must be a whole number (got ${JSON.stringify(v)})`);
  const n = Number(v);
  if (n < min || n > max) throw new ApiError('INVALID_REQUEST', `${name} must be between ${min} and ${max} (got ${n})`);
  return n;
}

function validated<T>(schema: string, body: unknown, code: 'INVALID_REQUEST' | 'INVALID_RESOLUTION'): T {
  const r = compileValidator<T>(schema)(body);
  if (!r.success) throw new ValidationError(code, 'body', r.issues);
  return r.data;
}

