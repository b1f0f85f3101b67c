// `navkernel route` (the co-process, docs/coprocess.md) as a child process group, for Node scripts and runners: one
// JSON line in, one line out, in order. Like startServe() it runs this package's own bin/navkernel.js under the
// running Node (never npx), as the leader of a process group of its own; close() ends its input and waits, stop()
// signals the whole group, so nothing it started outlives the caller (the Python client's CoProcess does the same).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Decision } from '../contracts/decision.js';
import { NavkernelError } from '../contracts/errors.js';
import { isErrorCode } from '../contracts/error-codes.js';
import { signalGroup, stopGroup, stopGroupOnExit } from './process-group.js';
import { navkernelBin } from './start-serve.js';

/** Options of startCoProcess: the ledger, flows and arguments of `navkernel route`, its binary and environment. */
export interface StartCoProcessOptions {
  /** The flows folder or file (`--flows`); default: route's own default (./charters, else the sample flows). */
  flows?: string;
  /** The ledger (`--ledger`); default: route's own default. */
  ledger?: string;
  /** More `route` flags, e.g. `['--no-ledger']`, `['--llm', spec]`. */
  args?: string[];
  /**
   * The whole command line instead (program and arguments), e.g. a wrapper that runs navkernel as its child; its
   * first word is the group's leader.
   */
  command?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** A running `navkernel route` co-process: route() one request at a time, close() to finish, stop() to signal its group. */
export interface CoProcess {
  /** The leader's process id, which is also its process group's id. */
  readonly pid: number;
  /**
   * Routes one request (any JSON value: the co-process checks it). Resolves with the decision; rejects with a
   * NavkernelError carrying the error line's code when the kernel refuses it, or INTERNAL when the co-process ended.
   */
  route(request: unknown): Promise<Decision>;
  /** What the co-process printed on stderr so far (its start-up line names its ledger and flows). */
  readonly stderr: () => string;
  /**
   * Ends its input and waits for it to answer what it read and exit; after `timeoutMs` (default 30 s) the group is
   * stopped. Resolves with the exit code (0: every line decided, 1: some error lines). Safe to call twice.
   */
  close(timeoutMs?: number): Promise<number | null>;
  /** Stops the whole group now: SIGTERM, SIGKILL after `timeoutMs` (default 30 s). Safe to call twice. */
  stop(timeoutMs?: number): Promise<number | null>;
}

/** Starts `navkernel route` as a process group of its own. */
export function startCoProcess(options: StartCoProcessOptions = {}): CoProcess {
  const args = [navkernelBin(), 'route'];
  if (options.flows !== undefined) args.push('--flows', options.flows);
  if (options.ledger !== undefined) args.push('--ledger', options.ledger);
  args.push(...(options.args ?? []));
  const [program, ...rest] = options.command ?? [process.execPath, ...args];
  const child = spawn(program!, rest, { cwd: options.cwd, env: options.env ?? process.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  stopGroupOnExit(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  // Read stderr for the child's whole life, so it never blocks on a full pipe.
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-64 * 1024)));
  const waiting: { resolve: (d: Decision) => void; reject: (e: unknown) => void }[] = [];
  const ended = () => new NavkernelError('INTERNAL', `the co-process exited: ${stderr.trim().split('\n').slice(-5).join(' | ')}`);
  createInterface({ input: child.stdout }).on('line', (line) => {
    const next = waiting.shift();
    if (!next) return;
    let answer: { error?: { code?: string; message?: string } } & Record<string, unknown>;
    try {
      answer = JSON.parse(line) as typeof answer;
    } catch {
      next.reject(new NavkernelError('INTERNAL', `the co-process answered a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    if (answer.error) {
      // The co-process numbers its input lines ("line 12: …"); to a caller of route() that number means nothing.
      next.reject(new NavkernelError(isErrorCode(answer.error.code) ? answer.error.code : 'INTERNAL', (answer.error.message ?? '').replace(/^line \d+: /, '')));
    } else next.resolve(answer as unknown as Decision);
  });
  void exited.then(() => {
    for (const w of waiting.splice(0)) w.reject(ended());
  });
  child.once('error', () => {
    for (const w of waiting.splice(0)) w.reject(ended());
  });
  // A write after the child is gone must not crash the caller: route() rejects instead.
  child.stdin.on('error', () => {});
  let closing: Promise<number | null> | undefined;
  let stopping: Promise<number | null> | undefined;
  const coProcess: CoProcess = {
    pid: child.pid!,
    stderr: () => stderr,
    route(request) {
      return new Promise<Decision>((resolve, reject) => {
        if (child.exitCode !== null || child.signalCode !== null || child.stdin.writableEnded) return reject(ended());
        waiting.push({ resolve, reject });
        child.stdin.write(`${JSON.stringify(request)}\n`);
      });
    },
    close(timeoutMs = 30_000) {
      closing ??= (async () => {
        child.stdin.end();
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
        const first = await Promise.race([exited, late]);
        clearTimeout(timer);
        if (first === 'late') return coProcess.stop(timeoutMs);
        // The leader is gone: anything it started goes with the group.
        signalGroup(child, 'SIGKILL');
        return first;
      })();
      return closing;
    },
    stop(timeoutMs = 30_000) {
      stopping ??= stopGroup(child, exited, timeoutMs);
      return stopping;
    },
  };
  return coProcess;
}
