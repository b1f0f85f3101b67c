import { spawn } from 'node:child_process';
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
export type Handoff = { exit: number } | { skipped: 'ineligible' | 'no_private_dir' } | { failed: 'absent' | 'timeout' | 'broken'; socket: string };

/** Hands `navigate` to the resident of `cliModule`'s build when eligible and listening; writes its output here. */
export async function handOff(args: readonly string[], cliModule: string, env: NodeJS.ProcessEnv = process.env): Promise<Handoff> {
  if (!residentEligible(args, env)) return { skipped: 'ineligible' };
  const dir = privateDir(residentDir(env));
  const socket = dir && socketPath(dir, cliModule);
  if (!socket) return { skipped: 'no_private_dir' };
  const r = await exchange(socket, { v: RESIDENT_PROTOCOL, op: 'navigate', argv: [...args], cwd: process.cwd() });
  if ('failed' in r) return { failed: r.failed, socket };
  const last = r.reply[r.reply.length - 1]!;
  if (!('exit' in last)) return { failed: 'broken', socket };
  process.stderr.write(last.stderr);
  await new Promise<void>((resolve) => process.stdout.write(last.stdout, () => resolve()));
  return { exit: last.exit };
}

/** The resident's entry module (dist/src/cli/resident/main.js beside this one). */
export const RESIDENT_MAIN = new URL('./main.js', import.meta.url);

/** Starts a resident for `cliModule` on `socket` in the background (detached, no stdio, not waited for). */
export function startResident(socket: string, cliModule: string): void {
  try {
    const child = spawn(process.execPath, [fileURLToPath(RESIDENT_MAIN), socket, cliModule], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {
    // Not started: the next call runs in its own process again.
  }
}
