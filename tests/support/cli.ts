import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './kernel-fixtures.js';
import { onLines } from './lines.js';

export const BIN = path.join(ROOT, 'bin', 'navkernel.js');

/** Runs the built CLI (dist/, made by `npm test`'s tsc step) to completion. */
export function runCli(args: string[], input = '', env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, input, encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Starts the CLI as a long-lived co-process; `ask` writes one line and resolves with the next stdout line. */
export function coProcess(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting: ((line: string) => void)[] = [];
  onLines(child.stdout, (line) => waiting.shift()?.(line));
  return {
    ask(line: string): Promise<string> {
      return new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin.write(line + '\n');
      });
    },
    /** Sends SIGTERM and resolves with the exit code. */
    terminate(): Promise<number | null> {
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      child.kill('SIGTERM');
      return closed;
    },
    close(): Promise<number | null> {
      child.stdin.end();
      return new Promise((resolve) => child.on('close', resolve));
    },
  };
}

/**
 * Runs `navkernel ARGS` in this process (the CLI's `main` with captured IO): no build, no spawn. For commands
 * checked by their output and exit code; the co-process, signals and stdin stay with `runCli`. `env` is merged over
 * process.env (as `runCli`'s) and reaches the command through its context; `cwd` (default the repository root, as
 * `runCli`'s) is the folder the command's defaults and configuration are read from.
 */
export async function runCliHere(args: string[], env: Record<string, string> = {}, cwd: string = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  const { main } = await import('../../src/cli/main.js');
  const { captureIo } = await import('../../src/cli/context.js');
  const io = captureIo({ cwd, env: { ...process.env, ...env } });
  const code = await main(['node', 'navkernel', ...args], io);
  return { code, stdout: io.out(), stderr: io.err() };
}
