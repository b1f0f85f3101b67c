// The HTTP surface of issue 35: URL paths and headers against a real `navkernel serve` (the compiled CLI, a child
// process on 127.0.0.1, a fresh SQLite ledger in a temp folder), bounded in cases and in time, stopping by itself.
// Requests go out as raw bytes on a socket, so any path spelling reaches the server as written.
//
// Properties, for every case: no 5xx; every error is a problem document with a stable code; no answer a credential
// may not get (a 2xx is only ever what the request's principal may see: public documents without a token, a
// decision only with the route scope, a resolution only with resolve, any other read only with read); a tokenless
// loopback server answers loopback Host names only. After the cases the server still answers.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { ApiErrorCode } from '../../src/contracts/index.js';
import { packageRoot } from '../../src/package-root.js';
import type { FuzzFigures } from './surfaces.js';

type Scope = 'route' | 'read' | 'resolve' | 'admin';
const PRINCIPALS: Record<string, Scope[]> = { runner: ['route'], auditor: ['read'], resolver: ['resolve'], ops: ['admin'], root: ['route', 'read', 'resolve', 'admin'] };
const tokenOf = (name: string) => `nk_fuzz_${name}_${'k'.repeat(24)}`;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Serve {
  base: URL;
  child: ChildProcess;
  stop(): Promise<void>;
}

function startServe(args: string[]): Promise<Serve> {
  const child = spawn(process.execPath, [path.join(packageRoot(), 'bin', 'navkernel.js'), 'serve', '--host', '127.0.0.1', '--port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (t: string) => {
      err += t;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m)
        resolve({
          base: new URL(m[1]!),
          child,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
              child.once('exit', () => (clearTimeout(kill), done()));
              child.kill('SIGTERM');
            }),
        });
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code} before listening: ${err}`)));
  });
}

/** One request as raw bytes on a fresh connection; the answer's head and (for a stream, the first) body bytes. */
function send(base: URL, head: string, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(base.port), '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => finish(new Error('HANG: no complete answer within 10 s')), 10_000);
    const finish = (e?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (e) return reject(e);
      // Interim answers (100 Continue) come before the answer.
      while (/^HTTP\/1\.[01] 1\d\d /.test(data) && data.includes('\r\n\r\n')) data = data.slice(data.indexOf('\r\n\r\n') + 4);
      const cut = data.indexOf('\r\n\r\n');
      const lines = data.slice(0, cut < 0 ? data.length : cut).split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
      if (!Number.isInteger(status)) return reject(new Error(`no HTTP answer: ${JSON.stringify(data.slice(0, 200))}`));
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      const length = Number(headers['content-length']);
      const rest = cut < 0 ? '' : data.slice(cut + 4);
      resolve({ status, headers, body: Number.isInteger(length) ? rest.slice(0, length) : rest });
    };
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => {
      data += c;
      // An event stream never ends: its head and first lines are enough.
      if (/content-type: text\/event-stream/i.test(data) && data.includes('\r\n\r\n')) finish();
    });
    socket.on('end', () => finish());
    socket.on('error', (e) => (data ? finish() : finish(e)));
    socket.write(head + body, 'latin1');
  });
}

/** What a 2xx answer is, and so which scope may get it (null: anyone). */
function needs(a: Answer): Scope | null {
  const type = a.headers['content-type'] ?? '';
  if (!type.startsWith('application/json')) {
    // The UI's files are public; a Prometheus page or an event stream is a read.
    return /^text\/(html|css|javascript)|^application\/javascript/.test(type) ? null : 'read';
  }
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(Buffer.from(a.body, 'latin1').toString('utf8')) as Record<string, unknown>;
  } catch {
    return 'read';
  }
  if ('openapi' in doc || 'auth_required' in doc || (doc.status === 'ok' && 'version' in doc)) return null;
  if ('decision' in doc && 'tier' in doc) return 'route';
  if ('escalation_id' in doc && doc.resolution !== null && doc.resolution !== undefined && !('escalations' in doc)) return 'resolve';
  return 'read';
}

const LOOKALIKES = ['attacker.example', 'localhost.attacker.example', '127.0.0.1.nip.io', 'localhost.', '0x7f000001', '2130706433', '127.1', '[::1].evil', 'evil.example@127.0.0.1', '127.0.0.256', ''];

/** Whether a Host header names a loopback host (the oracle, written apart from the server's check). */
function loopbackHost(host: string | undefined): boolean {
  if (host === undefined) return true;
  const m = /^(.*?)(?::(\d{1,5}))?$/.exec(host)!;
  const name = m[1]!.toLowerCase();
  if (m[2] !== undefined && Number(m[2]) > 65535) return false;
  if (name === 'localhost' || name === '[::1]') return true;
  const q = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  return q !== null && q.slice(1).every((o) => Number(o) <= 255);
}

/** Percent-encodes one character (upper- or lower-case hex). */
const enc = (c: string, lower: boolean) => {
  const h = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${lower ? h : h.toUpperCase()}`;
};

/** A path mutated the ways an attacker spells one: escapes, case, slashes, dots, long and odd segments. */
function pathArb(paths: readonly string[]) {
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('escape' as const), at: fc.nat(), lower: fc.boolean() }),
    fc.record({ kind: fc.constant('upper' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom('/', '//', '/./', '/../', '%2F', '%2f', '%00', '%0A', '%0D%0A', ';', '%', '%zz', '%C0%AF', '\\', '~', '%25', 'é', '%E2%80%A8') }),
    fc.record({ kind: fc.constant('trail' as const), text: fc.constantFrom('/', '?', '?x=1&x=2', '#frag', '?run=a%0Aevent:%20x', '?limit=-1', '?cursor=%00') }),
    fc.record({ kind: fc.constant('long' as const), n: fc.constantFrom(101, 200, 4097, 9000) }),
  );
  return fc.tuple(fc.constantFrom(...paths), fc.array(mutation, { maxLength: 3 })).map(([p, ms]) => {
    let out = p;
    for (const m of ms) {
      const i = 'at' in m ? 1 + (m.at % Math.max(1, out.length - 1)) : 0;
      if (m.kind === 'escape') out = out.slice(0, i) + enc(out[i] ?? 'v', m.lower) + out.slice(i + 1);
      else if (m.kind === 'upper') out = out.slice(0, i) + (out[i] ?? '').toUpperCase() + out.slice(i + 1);
      else if (m.kind === 'insert') out = out.slice(0, i) + m.text + out.slice(i);
      else if (m.kind === 'trail') out += m.text;
      else out = `${out.replace(/\/$/, '')}/${'a'.repeat(m.n)}`;
    }
    return out;
  });
}

function headerArb(hostDefault: string) {
  const auth = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(...Object.keys(PRINCIPALS)).map((n) => `Bearer ${tokenOf(n)}`),
    fc.constantFrom(...Object.keys(PRINCIPALS)).map((n) => `bearer  ${tokenOf(n)} `),
    fc.constantFrom('Bearer wrong', 'Bearer', 'Basic cm9vdDpyb290', `Basic ${Buffer.from(`root:${tokenOf('root')}`).toString('base64')}`, `Token ${tokenOf('root')}`, `Bearer ${tokenOf('root')}x`),
  );
  const extra = fc.array(
    fc.constantFrom(
      'Cookie: token=' + tokenOf('root'),
      'X-Forwarded-For: 127.0.0.1',
      'X-Forwarded-Host: localhost',
      'X-Original-URL: /v1/runs',
      'X-Rewrite-URL: /v1/route',
      'Last-Event-ID: x\u0085y',
      'Last-Event-ID: 00000000.1',
      'Content-Type: text/plain',
      'Content-Type: application/json; charset=latin1',
      'Transfer-Encoding: chunked',
      'Expect: 100-continue',
      'Accept: text/event-stream',
      'Origin: http://attacker.example',
    ),
    { maxLength: 3 },
  );
  return fc.record({ auth, extra, host: fc.oneof({ weight: 5, arbitrary: fc.constant(hostDefault) }, { weight: 1, arbitrary: fc.constantFrom(...LOOKALIKES) }) });
}

const ROUTE_BODY = JSON.stringify({ run_id: 'fz-run', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' });
const RESOLVE_BODY = JSON.stringify({ decision: 'TERMINATE', by: 'fuzz', reason: 'fuzzed' });

/**
 * `numRuns` requests (at most `maxMs` of them) against a serve with principals of each scope, then `numRuns / 4`
 * against a tokenless loopback serve with fuzzed Host names. Throws on the first property that fails.
 */
export async function fuzzServe(numRuns: number, seed?: number, maxMs = 120_000): Promise<FuzzFigures> {
  const t0 = performance.now();
  const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-fuzz-http-'));
  const figures: FuzzFigures = { surface: 'serve: URL paths and headers (real child)', cases: 0, outcomes: {}, untyped: 0, hangs: 0, ms: 0 };
  const servers: Serve[] = [];
  const count = (k: string) => (figures.outcomes[k] = (figures.outcomes[k] ?? 0) + 1);
  try {
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    writeFileSync(path.join(dir, 'tokens.yaml'), `principals:\n${Object.entries(PRINCIPALS).map(([n, s]) => `  - name: ${n}\n    scopes: [${s.join(', ')}]\n    token_sha256: ${sha(tokenOf(n))}\n`).join('')}`);
    const charters = path.join(packageRoot(), 'charters');
    const s = await startServe(['--flows', charters, '--ledger', path.join(dir, 'a.sqlite'), '--tokens', path.join(dir, 'tokens.yaml'), '--request-timeout-ms', '10000']);
    servers.push(s);
    const hostOf = (srv: Serve) => `127.0.0.1:${srv.base.port}`;
    const plain = async (srv: Serve, method: string, p: string, auth?: string, body = '') =>
      send(srv.base, `${method} ${p} HTTP/1.1\r\nHost: ${hostOf(srv)}\r\nConnection: close\r\n${auth ? `Authorization: ${auth}\r\n` : ''}${body ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n`, body);
    // A run with an open escalation, so the resolve endpoint has something to resolve.
    for (const step of ['gate-receipts', 'gate-contracts', 'gate-security', 'gate-decide']) {
      const a = await plain(s, 'POST', '/v1/route', `Bearer ${tokenOf('runner')}`, JSON.stringify({ run_id: 'fz-gate', flow: 'gate', step_completed: step, status: step === 'gate-decide' ? 'HOLD' : 'VERIFIED' }));
      if (a.status !== 200) throw new Error(`setup route: ${a.status} ${a.body}`);
    }
    const doc = JSON.parse((await plain(s, 'GET', '/openapi.json')).body) as { paths: Record<string, Record<string, unknown>> };
    const ops = Object.entries(doc.paths).flatMap(([p, o]) => Object.keys(o).map((m) => [m.toUpperCase(), p.replace('{id}', p.includes('escalations') ? 'esc-fz-gate-4' : 'fz-gate')] as const));
    const literal = Object.keys(doc.paths).map((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/?#]+').replace(/\./g, '\\.')}$`));
    const deadline = t0 + maxMs;
    const check = (cond: boolean, what: string) => {
      if (!cond) throw new Error(`PROPERTY: ${what}`);
    };
    const problemCheck = (a: Answer, what: string, head = false) => {
      check(a.status < 500, `${what}: answered ${a.status}: ${a.body.slice(0, 300)}`);
      if (a.status >= 400 && head) {
        check((a.headers['content-type'] ?? '').startsWith('application/problem+json'), `${what}: ${a.status} is not a problem document (${a.headers['content-type']})`);
        count(`HEAD ${a.status}`);
      } else if (a.status >= 400) {
        check((a.headers['content-type'] ?? '').startsWith('application/problem+json'), `${what}: ${a.status} is not a problem document (${a.headers['content-type']})`);
        const code = (JSON.parse(a.body) as { code?: unknown }).code;
        check(ApiErrorCode.safeParse(code).success, `${what}: code ${JSON.stringify(code)} is not a stable code`);
        count(String(code));
      } else count(`${a.status}`);
    };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ops), pathArb(ops.map((o) => o[1])), headerArb(hostOf(s)), fc.constantFrom('GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'), fc.boolean(), async (op, p, h, otherMethod, keepMethod) => {
        if (performance.now() > deadline) return;
        figures.cases++;
        const method = keepMethod ? op[0] : otherMethod;
        const body = method === 'POST' ? (p.includes('resolve') ? RESOLVE_BODY : p.includes('route') ? ROUTE_BODY : '{}') : '';
        const lines = [`${method} ${p} HTTP/1.1`, `Host: ${h.host}`, 'Connection: close', ...(h.auth !== undefined ? [`Authorization: ${h.auth}`] : []), ...h.extra];
        if (body && !h.extra.some((x) => x.startsWith('Content-Type'))) lines.push('Content-Type: application/json');
        if (!h.extra.includes('Transfer-Encoding: chunked')) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
        const payload = h.extra.includes('Transfer-Encoding: chunked') ? `${body ? `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n` : ''}0\r\n\r\n` : body;
        let a: Answer;
        try {
          a = await send(s.base, `${lines.join('\r\n')}\r\n\r\n`, payload);
        } catch (e) {
          figures.hangs++;
          throw e;
        }
        const what = `${method} ${JSON.stringify(p)} auth=${JSON.stringify(h.auth)} host=${JSON.stringify(h.host)} extra=${JSON.stringify(h.extra)}`;
        problemCheck(a, what, method === 'HEAD');
        if (a.status < 300 && method !== 'HEAD' && method !== 'OPTIONS') {
          const scope = needs(a);
          const m = h.auth !== undefined ? /^Bearer\s+(\S+)\s*$/i.exec(h.auth) : null;
          const who = m ? Object.keys(PRINCIPALS).find((n) => tokenOf(n) === m[1]) : undefined;
          check(scope === null || (who !== undefined && PRINCIPALS[who]!.includes(scope)), `${what}: ${a.status} answer needing ${scope} given to ${who ?? 'no principal'}`);
          // A 2xx is only ever an endpoint spelled literally (its parameters aside).
          const raw = p.split('?')[0]!;
          check(scope === null || literal.some((t) => t.test(raw)), `${what}: a non-literal spelling was served`);
        }
      }),
      { numRuns, ...(seed !== undefined ? { seed } : {}) },
    );
    // Tokenless loopback server: only loopback Host names are answered.
    const open = await startServe(['--flows', charters, '--ledger', path.join(dir, 'b.sqlite')]);
    servers.push(open);
    const hostArb = fc.oneof(
      fc.constantFrom(...LOOKALIKES, `localhost:${open.base.port}`, `127.0.0.1:${open.base.port}`, `[::1]:${open.base.port}`, `LOCALHOST:${open.base.port}`, '127.9.9.9', 'localhost:99999'),
      fc.string({ maxLength: 30 }).filter((x) => !/[\r\n\0]/.test(x) && x.trim() === x && x !== ''),
      fc.tuple(fc.constantFrom('localhost', '127.0.0.1', '[::1]'), fc.constantFrom('.evil', '.', ':80@evil', '.nip.io', '%2e', '#', '/x')).map(([a, b]) => a + b),
    );
    await fc.assert(
      fc.asyncProperty(hostArb, fc.constantFrom('GET /v1/runs', 'GET /', 'POST /v1/route', 'GET /v1/healthz'), async (host, line) => {
        if (performance.now() > deadline + maxMs / 4) return;
        figures.cases++;
        const [method, p] = line.split(' ') as [string, string];
        const body = method === 'POST' ? ROUTE_BODY.replace('fz-run', 'fz-host') : '';
        const a = await send(open.base, `${method} ${p} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`, body);
        const what = `Host ${JSON.stringify(host)} ${line}`;
        problemCheck(a, what);
        if (a.status < 300) check(loopbackHost(host), `${what}: answered ${a.status} for a Host that is not loopback`);
      }),
      { numRuns: Math.max(1, Math.floor(numRuns / 4)), ...(seed !== undefined ? { seed } : {}) },
    );
    // Still serving, both.
    const alive = await plain(s, 'POST', '/v1/route', `Bearer ${tokenOf('runner')}`, JSON.stringify({ run_id: 'fz-alive', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' }));
    check(alive.status === 200, `the server stopped answering routes: ${alive.status}`);
    check((await plain(open, 'GET', '/v1/healthz')).status === 200, 'the tokenless server stopped answering');
    count('alive');
    check(s.child.exitCode === null && open.child.exitCode === null, 'a server exited');
  } finally {
    await Promise.all(servers.map((x) => x.stop()));
    rmSync(dir, { recursive: true, force: true });
    figures.ms = performance.now() - t0;
  }
  return figures;
}
