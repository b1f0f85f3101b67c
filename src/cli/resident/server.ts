import type { ErrorCode } from '../../contracts/error-codes.js';
import { statSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { exchange } from './client.js';
import { MAX_REQUEST_BYTES, RESIDENT_PROTOCOL, type ResidentReply, type ResidentRequest, type ResidentStatus } from './protocol.js';

/** Idle time after which a resident exits (NAVKERNEL_RESIDENT_IDLE_MS overrides). */
export const DEFAULT_IDLE_MS = 10 * 60 * 1000;

export interface ResidentOptions {
  socket: string;
  /** Runs one CLI call (argv as process.argv) in this process and resolves to its exit code: the CLI's own `main`. */
  run: (argv: string[]) => Promise<number>;
  idleMs?: number;
}

type Console = { stdout: string; stderr: string };

/**
 * The resident navigator: listens on `socket` and answers `navigate` calls one after another by running the CLI's
 * own `main` in this process — in the caller's working directory, with what it prints collected for the caller —
 * so a call answered here prints the same bytes and writes the same artifacts as one run in the caller's process.
 * Requests are acknowledged on arrival (a caller waits for a busy resident rather than doing the work twice); a bad
 * request gets an INVALID_REQUEST reply and the resident goes on serving. It exits after `idleMs` without a call,
 * on `stop`, or on SIGTERM/SIGINT, removing its socket (only its own: the file is checked to be the one it bound).
 * A socket file no process listens on (left by one that died) is replaced; one that answers means another resident
 * is already serving, and this one exits.
 */
export async function serveResident(options: ResidentOptions): Promise<{ close(): Promise<void>; closed: Promise<void> }> {
  const { socket, run } = options;
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const started = new Date().toISOString();
  let calls = 0;
  let queue: Promise<void> = Promise.resolve();
  let idle: NodeJS.Timeout | undefined;
  let closing: Promise<void> | undefined;
  const server = net.createServer((conn) => serveConnection(conn));
  await listen(server, socket);
  const ino = statSync(socket).ino;

  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => void close(), idleMs);
    idle.unref?.();
  };
  let onClosed!: () => void;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      clearTimeout(idle);
      // Only this resident's socket: another may have replaced a file it thought stale.
      if (statSync(socket, { throwIfNoEntry: false })?.ino === ino) {
        try {
          unlinkSync(socket);
        } catch {
          // gone already
        }
      }
      server.close(() => {
        resolve();
        onClosed();
      });
    }));

  function serveConnection(conn: net.Socket): void {
    let buf = '';
    let read = false;
    conn.setEncoding('utf8');
    conn.on('error', () => {});
    const reply = (r: ResidentReply) => {
      if (!conn.destroyed) conn.write(`${JSON.stringify(r)}\n`);
    };
    conn.on('data', (chunk: string) => {
      if (read) return;
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl === -1) {
        if (Buffer.byteLength(buf) > MAX_REQUEST_BYTES) {
          read = true;
          reply({ error: { code: 'INPUT_TOO_LARGE', message: `resident: a request line is larger than ${MAX_REQUEST_BYTES} bytes` } });
          conn.end();
        }
        return;
      }
      read = true;
      const parsed = parseRequest(buf.slice(0, nl));
      if ('error' in parsed) {
        reply(parsed);
        conn.end();
        return;
      }
      const req = parsed.request;
      reply({ ack: true });
      if (req.op === 'status') {
        const status: ResidentStatus = { pid: process.pid, socket, calls, started, idle_ms: idleMs };
        reply({ status });
        conn.end();
        return;
      }
      if (req.op === 'stop') {
        reply({ stopping: true });
        conn.end();
        void close();
        return;
      }
      clearTimeout(idle);
      queue = queue.then(async () => {
        const out = await runCall(run, req.argv, req.cwd);
        calls++;
        reply({ ...out.console, exit: out.exit });
        conn.end();
        armIdle();
      });
    });
  }

  armIdle();
  return { close, closed };
}

/** Binds `socket`, replacing a stale file (one no process answers on); fails when another resident answers there. */
async function listen(server: net.Server, socket: string): Promise<void> {
  const bind = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, () => {
        server.off('error', reject);
        resolve();
      });
    });
  try {
    await bind();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    const probe = await exchange(socket, { v: RESIDENT_PROTOCOL, op: 'status' });
    if (!('failed' in probe) || probe.failed !== 'absent') throw new Error(`resident: another resident answers on ${socket}`);
    unlinkSync(socket);
    await bind();
  }
}

function parseRequest(line: string): { request: ResidentRequest } | { error: { code: ErrorCode; message: string } } {
  const bad = (message: string) => ({ error: { code: 'INVALID_REQUEST' as const, message: `resident: ${message}` } });
  let doc: unknown;
  try {
    doc = JSON.parse(line);
  } catch (err) {
    return { error: { code: 'INVALID_JSON', message: `resident: the request is not JSON: ${(err as Error).message}` } };
  }
  if (typeof doc !== 'object' || doc === null) return bad('the request is not an object');
  const r = doc as Record<string, unknown>;
  if (r.v !== RESIDENT_PROTOCOL) return bad(`protocol version ${JSON.stringify(r.v)}; this resident speaks ${RESIDENT_PROTOCOL}`);
  if (r.op === 'status' || r.op === 'stop') return { request: { v: RESIDENT_PROTOCOL, op: r.op } };
  if (r.op !== 'navigate') return bad(`unknown op ${JSON.stringify(r.op)} (navigate, status, stop)`);
  if (!Array.isArray(r.argv) || !r.argv.every((a) => typeof a === 'string')) return bad('argv must be an array of strings');
  if (r.argv.find((a: string) => !a.startsWith('-')) !== 'navigate') return bad('only navigate calls are answered');
  if (typeof r.cwd !== 'string' || !path.isAbsolute(r.cwd) || !statSync(r.cwd, { throwIfNoEntry: false })?.isDirectory()) return bad('cwd must be an existing folder, as an absolute path');
  return { request: { v: RESIDENT_PROTOCOL, op: 'navigate', argv: r.argv as string[], cwd: r.cwd } };
}

/**
 * One call in this process: the working directory is the caller's and what the CLI writes to stdout/stderr is
 * collected for it, for the call's length (calls run one at a time, so nothing else writes meanwhile).
 */
async function runCall(run: ResidentOptions['run'], argv: string[], cwd: string): Promise<{ console: Console; exit: number }> {
  const out: Console = { stdout: '', stderr: '' };
  const realOut = process.stdout.write;
  const realErr = process.stderr.write;
  const home = process.cwd();
  const collect = (key: keyof Console) =>
    function (chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
      out[key] += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      const done = typeof encoding === 'function' ? encoding : cb;
      if (typeof done === 'function') process.nextTick(done as () => void);
      return true;
    };
  process.stdout.write = collect('stdout') as typeof process.stdout.write;
  process.stderr.write = collect('stderr') as typeof process.stderr.write;
  process.exitCode = undefined;
  let exit: number;
  try {
    process.chdir(cwd);
    exit = await run(['node', 'navkernel', ...argv]);
  } catch (err) {
    out.stderr += `navkernel: ${err instanceof Error ? err.message : String(err)}\n`;
    exit = 2;
  } finally {
    process.stdout.write = realOut;
    process.stderr.write = realErr;
    process.exitCode = undefined;
    try {
      process.chdir(home);
    } catch {
      // the resident's own folder is gone: calls give their cwd anyway
    }
  }
  return { console: out, exit };
}
