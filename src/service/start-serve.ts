// `navkernel serve` as a child process group, for scripts and tests that want the HTTP service in a process of its
// own (createService mounts it in yours). The child is started with this package's own bin/navkernel.js under the
// running Node (never npx: outside a clone npx asks the registry), as the leader of a new process group, and close()
// signals the whole group: nothing it started outlives the caller. A caller that exits without close() still stops
// the group (a process 'exit' hook).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { NavkernelError } from '../contracts/errors.js';
import { packageRoot } from '../package-root.js';
import { signalGroup, stopGroup, stopGroupOnExit } from './process-group.js';

/** Options of startServe: the flows, the ledger, host, port and extra arguments. */
export interface StartServeOptions {
  /** The flows folder or file (`--flows`); default: serve's own default (./charters, else the sample flows). */
  flows?: string;
  /** The ledger (`--ledger`): a SQLite file or a postgres:// URL; default: serve's own default. */
  ledger?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** More `serve` flags, e.g. `['--token', token]`. */
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** How long to wait for serve to listen (default 60 s). */
  startTimeoutMs?: number;
}

/** A running `navkernel serve` child process: its URL and pid; close() stops it. */
export interface ServeProcess {
  /** `http://host:port` */
  readonly url: string;
  /** The process id of serve, which is also its process group's id. */
  readonly pid: number;
  /** What serve printed on stderr so far (its start-up lines name its ledger and flows). */
  readonly stderr: () => string;
  /**
   * Stops the process group: SIGTERM (serve finishes in-flight requests and closes its ledger), SIGKILL after
   * `timeoutMs` (default 30 s). Resolves with serve's exit code (null when killed by a signal). Safe to call twice.
   */
  close(timeoutMs?: number): Promise<number | null>;
}

/** bin/navkernel.js of this package. */
export function navkernelBin(): string {
  return path.join(packageRoot(), 'bin', 'navkernel.js');
}

/** Starts `navkernel serve` as a process group of its own and resolves once it listens. */
export async function startServe(options: StartServeOptions = {}): Promise<ServeProcess> {
  const args = [navkernelBin(), 'serve', '--host', options.host ?? '127.0.0.1', '--port', String(options.port ?? 0)];
  if (options.flows !== undefined) args.push('--flows', options.flows);
  if (options.ledger !== undefined) args.push('--ledger', options.ledger);
  args.push(...(options.args ?? []));
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  stopGroupOnExit(child);
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Keep reading stderr for the child's whole life, so it never blocks on a full pipe.
  child.stderr!.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(`did not listen within ${options.startTimeoutMs ?? 60_000} ms`), options.startTimeoutMs ?? 60_000);
    const fail = (why: string) => {
      clearTimeout(timer);
      signalGroup(child, 'SIGKILL');
      reject(new NavkernelError('INTERNAL', `navkernel serve ${why}: ${stderr.trim().split('\n').slice(-10).join(' | ')}`));
    };
    child.stderr!.on('data', (d: string) => {
      stderr = (stderr + d).slice(-64 * 1024);
      const m = /listening on (https?:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('error', (e) => fail(`could not start: ${e.message}`));
    void exited.then((code) => fail(`exited (${code}) before listening`));
  });
  let closing: Promise<number | null> | undefined;
  return {
    url,
    pid: child.pid!,
    stderr: () => stderr,
    close(timeoutMs = 30_000) {
      // Anything serve started and left behind goes with the group.
      closing ??= stopGroup(child, exited, timeoutMs);
      return closing;
    },
  };
}
