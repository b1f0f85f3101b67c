import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { privateDir, residentDir, socketPath } from './place.js';
import { RESIDENT_PROTOCOL, type ResidentReply, type ResidentRequest } from './protocol.js';

/**
 * The CLI's side of the resident navigator: `navkernel navigate` hands its call to a resident process of the same
 * build when one listens (the index, the open full-text index and the compiled code are warm there), and otherwise
 * runs in its own process as before and then starts one in the background for the next call. Anything unexpected
 * — no resident, a stale socket, no acknowledgement in time, a resident that dies mid-call — means the call runs in
 * this process: nothing has been printed by then (the output is written once the exit code is in).
 */

/** How long a client waits for the resident to acknowledge a request before doing the work itself. */
export const ACK_TIMEOUT_MS = 1500;

/** Flags after which `navigate` is never handed off: they read stdin-like inputs, compare runs, or opt out. */
const IN_PROCESS_FLAGS = new Set(['--no-resident', '--no-cache', '--check', '--rung', '--verify-stable', '--help', '-h']);

/** Whether `args` (process.argv without node and the script) is a navigate call a resident may answer. */
export function residentEligible(args: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NAVKERNEL_RESIDENT === '0') return false;
  if (args.find((a) => !a.startsWith('-')) !== 'navigate') return false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const flag = a.startsWith('--') ? a.split('=')[0]! : a;
    if (IN_PROCESS_FLAGS.has(flag)) return false;
    if (flag === '--capsule') {
      // Only a regular file: the resident cannot read this process's stdin or a FIFO.
      const file = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[i + 1];
      if (file === undefined || !statSync(file, { throwIfNoEntry: false })?.isFile()) return false;
    }
  }
  return true;
}

export type Exchange = { reply: ResidentReply[] } | { failed: 'absent' | 'timeout' | 'broken' };

/**
 * Sends one request and collects the replies until the last (an exit code, a status, an error); `absent` when no
 * process listens on the socket (missing, or a stale file left by one that died).
 */
export function exchange(socket: string, request: ResidentRequest, ackMs = ACK_TIMEOUT_MS): Promise<Exchange> {
  return new Promise((resolve) => {
    const replies: ResidentReply[] = [];
    let buf = '';
    let settled = false;
    const done = (r: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      conn.destroy();
      resolve(r);
    };
    const conn = net.createConnection(socket);
    const timer = setTimeout(() => done({ failed: 'timeout' }), ackMs);
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.write(`${JSON.stringify(request)}\n`));
    conn.on('data', (chunk: string) => {
      buf += chunk;
      for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let r: ResidentReply;
        try {
          r = JSON.parse(line) as ResidentReply;
        } catch {
          return done({ failed: 'broken' });
        }
        if ('ack' in r) {
          clearTimeout(timer);
          continue;
        }
        replies.push(r);
        return done({ reply: replies });
      }
    });
    conn.on('error', (err: NodeJS.ErrnoException) => done({ failed: err.code === 'ENOENT' || err.code === 'ECONNREFUSED' ? 'absent' : 'broken' }));
    conn.on('close', () => done({ failed: 'broken' }));
  });
}

/** What a navigate call through the resident came to: its exit code (output written), or why it was not answered. */
export type Handoff =
  | { exit: number; started?: true; socket?: string }
  | { skipped: 'ineligible' | 'no_private_dir' }
  | { failed: 'absent' | 'timeout' | 'broken'; socket: string; started?: true };

/** How long a client that started a resident waits for it to listen before doing the work itself. */
export const START_TIMEOUT_MS = 3000;

export interface HandOffOptions {
  /**
   * When no resident listens: start one now and hand it this call (its first), instead of leaving the call to this
   * process. The call then runs where the next one will (its index, open full-text database and compiled code stay
   * warm there), so the next call is a resident's second, not its first (about a third of the CPU). Off where this
   * process would show progress (the resident shows none).
   */
  startFirst?: boolean;
}

/** Hands `navigate` to the resident of `cliModule`'s build when eligible and listening; writes its output here. */
export async function handOff(args: readonly string[], cliModule: string, env: NodeJS.ProcessEnv = process.env, options: HandOffOptions = {}): Promise<Handoff> {
  if (!residentEligible(args, env)) return { skipped: 'ineligible' };
  const dir = privateDir(residentDir(env));
  const socket = dir && socketPath(dir, cliModule);
  if (!socket) return { skipped: 'no_private_dir' };
  const request: ResidentRequest = { v: RESIDENT_PROTOCOL, op: 'navigate', argv: [...args], cwd: process.cwd() };
  let r = await exchange(socket, request);
  let started: true | undefined;
  if ('failed' in r && r.failed === 'absent' && options.startFirst) {
    started = true;
    r = await firstExchange(socket, cliModule, request);
  }
  if ('failed' in r) return { failed: r.failed, socket, ...(started ? { started } : {}) };
  const last = r.reply[r.reply.length - 1]!;
  if (!('exit' in last)) return { failed: 'broken', socket, ...(started ? { started } : {}) };
  process.stderr.write(last.stderr);
  await new Promise<void>((resolve) => process.stdout.write(last.stdout, () => resolve()));
  return { exit: last.exit, ...(started ? { started, socket } : {}) };
}

/**
 * Starts a resident on `socket` and sends it `request` once it listens: `absent` when it has not listened within
 * START_TIMEOUT_MS or exited first (another resident that answers there is asked once more). The request is sent only
 * on a connection, so nothing has run when it fails.
 */
async function firstExchange(socket: string, cliModule: string, request: ResidentRequest): Promise<Exchange> {
  const child = startResident(socket, cliModule);
  if (!child) return { failed: 'absent' };
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (let wait = 5; ; wait = Math.min(wait * 2, 40)) {
    const r = await exchange(socket, request);
    if (!('failed' in r) || r.failed !== 'absent' || exited || Date.now() >= deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** Asks the resident on `socket` to exit (it removes its socket); resolves once it has answered or is gone. */
export async function stopResident(socket: string): Promise<void> {
  await exchange(socket, { v: RESIDENT_PROTOCOL, op: 'stop' });
}

/** The resident's entry module (dist/src/cli/resident/main.js beside this one). */
export const RESIDENT_MAIN = new URL('./main.js', import.meta.url);

/** Starts a resident for `cliModule` on `socket` in the background (detached, no stdio, not waited for). */
export function startResident(socket: string, cliModule: string): ChildProcess | undefined {
  try {
    const child = spawn(process.execPath, [fileURLToPath(RESIDENT_MAIN), socket, cliModule], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    return child;
  } catch {
    // Not started: the next call runs in its own process again.
    return undefined;
  }
}
