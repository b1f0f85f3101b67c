import { existsSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
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
  type ReplayReport,
  type VerifyReport,
  type ResolveBody,
  type RouteRecord,
  type RunPageKey,
  type RunStatus,
} from '../contracts/index.js';
import { createKernel, type FlowSet, type Kernel } from '../kernel/index.js';
import { packageRoot } from '../package-root.js';
import { VERSION } from '../version.js';
import type { ServiceLedger } from './ledger-reader.js';
import { openApiPath, scopeOf } from './endpoint-scopes.js';
import { EventHub, type EventHubOptions } from './events.js';
import { buildOpenApi } from './openapi.js';
import { withReports } from '../forensics/with-reports.js';
import { SCOPES, createPrincipalDirectory, type Principal, type PrincipalDirectory, type Scope } from './principals.js';
import { ApiError, problem, problemFor } from './problem.js';
import { flowsList } from './report.js';
import { hostCheck, pathOf, spellsLiterally } from './request-guard.js';
import { HeavyReads, readWorkerAvailable, type HeavyReadsOptions } from './heavy-reads.js';
import { RouteAttempt, RouteAttempts } from './route-attempts.js';
import { RunQueue } from './run-queue.js';
import { createMetrics, navkernelTracer, observedStore, tracedArbiter, type ServiceMetrics } from './telemetry.js';

/** Options of createService: the flows, the ledger, tier 3, tokens and principals, limits. */
export interface ServiceOptions {
  flows: FlowSet;
  ledger: ServiceLedger;
  /** Refuse misspelt forensic fields and contradicting numbers (`KernelOptions.strict`, `--strict`). */
  strict?: boolean;
  /** Tier 3 (see `KernelOptions.arbiter`). */
  arbiter?: ArbiterPort;
  /** A single bearer token with every scope (principal `shared-token`). Required, or `principals`, to bind beyond loopback. */
  token?: string;
  /** Principals with scopes (`serve --principals FILE`); combined with `token` when both are given. */
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
  /**
   * Host names accepted in the Host header besides loopback names (`serve --allow-host`). Without a token the
   * server answers loopback names only (DNS rebinding); with one, any Host unless some are named here.
   */
  allowedHosts?: readonly string[];
  /**
   * Where worker threads open the ledger for verify and replay (`serve` passes its --ledger): off the event loop, at
   * most `running` at once, each stopped when its request times out. Without it (or from TypeScript sources, where
   * no compiled worker exists) they run on the event loop.
   */
  heavyReads?: HeavyReadsOptions;
  /** Folder under which a route request's `reports` files are read into its forensics (default: none, refused). */
  reportsRoot?: string;
}

/** The HTTP service: listen(), close(), and its Fastify instance to mount. */
export interface Service {
  readonly app: FastifyInstance;
  readonly kernel: Kernel;
  readonly metrics: ServiceMetrics;
  /** Requests' work still running (routes, reads), including a timed-out request's until it stops. */
  readonly pendingWork: number;
  /** Listens; resolves to the address (`http://127.0.0.1:8787`). */
  listen(host: string, port: number): Promise<string>;
  /** Stops accepting, finishes in-flight requests, then closes the kernel and the ledger. */
  close(): Promise<void>;
}

const MAX_PAGE = 500;
/** Control characters (C0, DEL, C1), which no run id holds (schemas/route-request). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** The longest path segment (a run or escalation id, as sent) the router reads; longer ones are URI_TOO_LONG. */
const MAX_PARAM_CHARS = 4096;
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
  const heavy = options.heavyReads && readWorkerAvailable() ? new HeavyReads(options.heavyReads, flows) : undefined;
  if (heavy) metrics.heavyReads(() => heavy.stats);
  const attempts = new RouteAttempts();
  // Work still running, including work whose client was already answered (a timed-out request's): close awaits it.
  // Counted by the deadlines below, which already wait for the work (no promise of its own per request).
  let pending = 0;
  let drained: (() => void) | undefined;
  const workEnded = () => {
    if (--pending === 0) drained?.();
  };
  const store = observedStore(attempts.gate(ledger.store), (record) => {
    lastRecord.set(record.run_id, record);
    publishRoute(events, record);
  });
  const untraced = options.arbiter;
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
    // Run ids are up to 200 characters (schemas/route-request), each up to 12 when percent-encoded.
    routerOptions: { maxParamLength: MAX_PARAM_CHARS },
    // What the router refuses before any hook (a malformed %-escape, an over-long segment) is a problem document too.
    frameworkErrors: (err, req, reply) => {
      const at = pathOf(req.url);
      if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return sendProblem(reply, problem('URI_TOO_LONG', `a segment of the path is longer than ${MAX_PARAM_CHARS} characters`, at.slice(0, 200)));
      if (err.code === 'FST_ERR_BAD_URL') return sendProblem(reply, problem('INVALID_REQUEST', 'the path holds a malformed percent-escape', at.slice(0, 200)));
      return sendProblem(reply, problem('INVALID_REQUEST', `the request cannot be routed (${err.code})`, at.slice(0, 200)));
    },
    // What Node's HTTP parser refuses (no request object exists): answered as a problem document on the socket.
    clientErrorHandler: (err, socket) => {
      if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || socket.destroyed) return;
      const code = (err as NodeJS.ErrnoException).code;
      const p =
        code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? { ...problem('TIMEOUT', `the request was not received within ${requestTimeoutMs} ms`), status: 408 }
          : code === 'HPE_HEADER_OVERFLOW'
            ? problem('HEADERS_TOO_LARGE', 'the request line and headers are larger than 16 KiB')
            : problem('INVALID_REQUEST', `the request is not valid HTTP/1.1 (${String(code ?? 'unparsable')})`);
      if (socket.writable) {
        const body = JSON.stringify(p);
        socket.write(`HTTP/1.1 ${p.status} ${STATUS_CODES[p.status] ?? ''}\r\nConnection: close\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      }
      socket.destroy();
    },
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
  app.setNotFoundHandler((req, reply) => {
    const at = pathOf(req.url);
    // A segment over the router's limit does not match its route (it falls to the UI's wildcard): say so.
    if (at.split('/').some((seg) => seg.length > MAX_PARAM_CHARS)) return sendProblem(reply, problem('URI_TOO_LONG', `a segment of the path is longer than ${MAX_PARAM_CHARS} characters`, at.slice(0, 200)));
    return sendProblem(reply, problem('NOT_FOUND', `no endpoint ${req.method} ${at.length > 200 ? `${at.slice(0, 200)}…` : at}`, at.slice(0, 200)));
  });

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
  const hostAccepted = hostCheck({ authRequired, allowed: options.allowedHosts ?? [] });
  // A callback hook, not an async one: no promise per request for what is a table look-up when it passes.
  // Authorisation is decided on the route the router matched (req.routeOptions.url), never on the raw URL: the
  // router matches the percent-decoded path, so a prefix test on req.url can be walked around (issue 35).
  app.addHook('onRequest', (req, reply, done) => {
    const url = req.url;
    if (hostAccepted !== undefined && !hostAccepted(req.headers.host)) {
      return sendProblem(reply, problem('HOST_NOT_ALLOWED', `this server does not answer for Host ${JSON.stringify((req.headers.host ?? '').slice(0, 200))}: ${authRequired ? 'it answers for loopback names and --allow-host names' : 'without a token it answers for loopback names only (localhost, 127.0.0.1, [::1]) and --allow-host names'}`, pathOf(url)));
    }
    const template = req.routeOptions.url;
    // No such endpoint, or a file of the UI (its static wildcard): no scope needed, nothing to spell.
    if (template === undefined || template === '/*') return done();
    const rawPath = pathOf(url);
    if (!spellsLiterally(rawPath, template)) {
      return sendProblem(reply, problem('NON_CANONICAL_PATH', `the path ${JSON.stringify(rawPath)} spells ${openApiPath(template)} other than literally (percent-encoded letters, say): send the path as the API documents it`, rawPath));
    }
    if (!template.startsWith('/v1/')) return done();
    const scope = scopeFor(req.method, template);
    if (scope === 'public') return done();
    let who: Principal | undefined = ANONYMOUS;
    if (authRequired) {
      who = caller(req.headers.authorization);
      if (!who) {
        reply.header('www-authenticate', 'Bearer realm="navkernel"');
        const given = /^Bearer\s+\S+/i.test(req.headers.authorization ?? '');
        return sendProblem(reply, problem('UNAUTHORIZED', given ? 'the bearer token is wrong (not one this server knows)' : 'this server needs an Authorization: Bearer <token> header', rawPath));
      }
    }
    if (scope === undefined) return sendProblem(reply, problem('FORBIDDEN', `${req.method} ${template} has no scope configured, so nobody may call it`, rawPath));
    if (!who.scopes.has(scope)) {
      return sendProblem(reply, problem('FORBIDDEN', `${req.method} ${rawPath} needs the ${scope} scope; principal ${who.name} has ${[...who.scopes].join(', ')}`, rawPath));
    }
    req.principal = who;
    done();
  });

  /** The caller of a handler that needs a scope: set by the hook, or the handler was reached without it (refused). */
  const principalOf = (req: { principal: Principal | null }): Principal => {
    if (req.principal === null) throw new ApiError('FORBIDDEN', 'the request was not authorised');
    return req.principal;
  };

  const timeoutError = (what: string) => new ApiError('TIMEOUT', `no answer within ${requestTimeoutMs} ms; ${what}`);
  /**
   * A route under the time limit: when it passes before the route is being recorded, the attempt is given up (its
   * report reading stops, its append is refused) and the client told TIMEOUT; once recording began, it is answered.
   */
  const routeDeadline = <T>(attempt: RouteAttempt, work: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      pending++;
      const timer = setTimeout(() => {
        const e = timeoutError('nothing was recorded: retry (with the same request_id)');
        if (attempt.giveUp(e)) reject(e);
      }, requestTimeoutMs);
      work.then(
        (v) => (clearTimeout(timer), workEnded(), resolve(v)),
        (e) => (clearTimeout(timer), workEnded(), reject(e)),
      );
    });

  /** Runs a handler under the time limit; `giveUp` (a heavy read's abort) is called when it passes. */
  const deadline = <T>(work: Promise<T>, giveUp?: AbortController): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      pending++;
      const timer = setTimeout(() => {
        const e = timeoutError(giveUp ? 'the work was stopped: retry later' : 'retry later');
        giveUp?.abort(e);
        reject(e);
      }, requestTimeoutMs);
      work.then(
        (v) => (clearTimeout(timer), workEnded(), resolve(v)),
        (e) => (clearTimeout(timer), workEnded(), reject(e)),
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

  // The signal reaches the report reading (withReports); the kernel itself does not read it.
  const router = withReports<Decision, { principal: string | null; signal: AbortSignal }>(kernel, { root: options.reportsRoot });

  async function routeOne(body: unknown, run_id: string | undefined, principal: string | null, attempt: RouteAttempt): Promise<Decision> {
    const started = performance.now();
    const span = navkernelTracer().startSpan('navkernel.route', run_id !== undefined ? { attributes: { 'navkernel.run_id': run_id } } : undefined);
    // Only tier 3's spans look the route's span up (by run: routes of one run are serialised).
    if (arbiter && run_id !== undefined) routeSpans.set(run_id, span);
    try {
      // The signal is made only when read: by the report reading, for a request that names reports.
      const decision = await router.route(body, {
        principal,
        get signal() {
          return attempt.signal;
        },
      });
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
        if (r.code !== 'INTERNAL' && r.code !== 'STORE_UNAVAILABLE') throw new ApiError(r.code, r.message, r.issues);
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
    const who = principalOf(req);
    const principal = authRequired ? who.name : null;
    // Routes of one run one at a time, in arrival order; other runs in parallel.
    const attempt = new RouteAttempt();
    const work = run_id !== undefined ? queue.run(run_id, () => attempts.run(run_id, attempt, () => routeOne(body, run_id, principal, attempt))) : routeOne(body, undefined, principal, attempt);
    const decision = await routeDeadline(attempt, work);
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
    if (typeof why === 'string') return json(reply, 'why-report', await deadline(ledger.why(id, why, kernel.flows)));
    return json(reply, 'audit-report', await deadline(ledger.audit(id)));
  });

  app.post('/v1/runs/:id/replay', async (req, reply) => {
    const { id } = req.params as { id: string };
    const body = validated<ReplayBody>('replay-body', req.body ?? {}, 'INVALID_REQUEST');
    const stop = new AbortController();
    const replay = () =>
      heavy ? heavy.run<ReplayReport>({ kind: 'replay', run_id: id, ...(body.max_divergences !== undefined ? { maxDivergences: body.max_divergences } : {}) }, stop.signal) : ledger.replay(id, kernel.flows, body.max_divergences);
    return json(reply, 'replay-report', await deadline(queue.run(id, replay), stop));
  });

  app.post('/v1/escalations/:id/resolve', async (req, reply) => {
    const { id } = req.params as { id: string };
    const body = validated<ResolveBody>('resolve-body', req.body, 'INVALID_RESOLUTION');
    const who = principalOf(req);
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
    // As a route: given up (its time limit passed) before it is recorded, it never is; once recording began, answered.
    const attempt = new RouteAttempt();
    const resolve = () => {
      attempt.claimAppend();
      return ledger.resolve(kernel.flows, input);
    };
    const resolved = await routeDeadline(attempt, run !== undefined ? queue.run(run, resolve) : Promise.resolve().then(resolve));
    events.publish('resolution', resolved.run_id, resolved);
    return json(reply, 'escalation', resolved);
  });

  app.get('/v1/verify', async (_req, reply) => {
    const stop = new AbortController();
    return json(reply, 'verify-report', await deadline(heavy ? heavy.run<VerifyReport>({ kind: 'verify' }, stop.signal) : ledger.verify(), stop));
  });
  app.get('/v1/stats', async (_req, reply) => json(reply, 'ledger-stats', await deadline(ledger.stats())));
  app.get('/v1/flows', async (_req, reply) => json(reply, 'flows-list', flowsList(kernel.flows)));
  app.get('/v1/events', async (req, reply) => {
    const run = (req.query as { run?: unknown }).run;
    if (run !== undefined && (typeof run !== 'string' || run === '')) throw new ApiError('INVALID_REQUEST', 'run must name one run');
    if (typeof run === 'string' && CONTROL.test(run)) throw new ApiError('INVALID_REQUEST', 'run must not hold control characters (line breaks, escapes): no run id has them');
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
  app.get('/v1/healthz', async (_req, reply) => json(reply, 'health', { status: 'ok', version: VERSION, flows_hash: kernel.flows.hash, ledger: ledger.location }));
  app.get('/v1/metrics', async (_req, reply) => reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics()));
  app.get('/openapi.json', async (_req, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(openapi)));

  const uiDir = options.uiDir ?? path.join(packageRoot(), 'dist', 'ui');
  if (existsSync(path.join(uiDir, 'index.html'))) {
    app.register(fastifyStatic, { root: uiDir, prefix: '/', index: 'index.html', wildcard: true, setHeaders: (res) => setUiHeaders((k, v) => res.setHeader(k, v)) });
  } else {
    app.get('/', async (_req, reply) =>
      setUiHeaders((k, v) => reply.header(k, v)).type('text/html; charset=utf-8').send('<!doctype html><title>navkernel</title><p>The web UI is not built: run <code>npm run build</code>. The API is under <a href="/openapi.json">/v1</a>.</p>'),
    );
  }

  let closed = false;
  return {
    app,
    kernel,
    metrics,
    get pendingWork() {
      return pending;
    },
    async listen(host, port) {
      if (!isLoopback(host) && !authRequired) {
        throw new NavkernelError('UNSAFE_BIND', `refusing to listen on ${host} without --token or --principals: only loopback addresses (127.0.0.1, ::1, localhost) may be served without bearer tokens`);
      }
      return app.listen({ host, port });
    },
    async close() {
      if (closed) return;
      closed = true;
      events.close();
      await app.close();
      // Work whose client was answered already (timed out) stops at its next check; it ends before the ledger.
      await heavy?.close();
      if (pending > 0) await new Promise<void>((resolve) => (drained = resolve));
      await kernel.close();
    },
  };
}

/**
 * The web UI's own files only: scripts and styles from this origin (Mermaid's SVG and uPlot set inline styles,
 * hence 'unsafe-inline' for styles only), fetches to this origin, no framing, no MIME sniffing, no referrer.
 */
const UI_HEADERS: readonly (readonly [string, string])[] = [
  ['content-security-policy', "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"],
  ['x-frame-options', 'DENY'],
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
];
function setUiHeaders<T>(set: (name: string, value: string) => T): T {
  let last!: T;
  for (const [k, v] of UI_HEADERS) last = set(k, v);
  return last;
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

