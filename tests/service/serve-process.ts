// `navkernel serve` as a child process (the compiled CLI): what an operator runs, worker threads included.
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from '../support/cli.js';

export interface ServeProcess {
  base: string;
  child: ChildProcess;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

export function startServe(args: string[]): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (t: string) => {
      err += t;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m)
        resolve({
          base: m[1]!,
          child,
          stderr: () => err,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}
