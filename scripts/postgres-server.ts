// Starts a throwaway PostgreSQL server through scripts/with-postgres.sh --serve, for the vitest global setup, the
// tests that crash and restart a server of their own, and the bench. The server lives while the script's stdin
// is open: stop() closes it; if this process dies, even by SIGKILL, the pipe closes and the script cleans up.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from '../src/package-root.js';

export interface ThrowawayPostgres {
  url: string;
  /** The cluster's data folder. */
  pgdata: string;
  /** Crash the server (immediate shutdown: no checkpoint, as a kill would) and start it again on the same port. */
  crashAndRestart(): void;
  /** Stop the server and delete its folder. */
  stop(): Promise<void>;
}

/** `durable`: fsync, synchronous_commit and full_page_writes on (the bench); off by default (tests). */
export async function startThrowawayPostgres(options: { durable?: boolean } = {}): Promise<ThrowawayPostgres> {
  const script = path.join(packageRoot(), 'scripts', 'with-postgres.sh');
  const args = [script, ...(options.durable ? ['--durable'] : []), '--serve'];
  // DATABASE_URL emptied: the script would otherwise hand back that server instead of starting one.
  const child = spawn('bash', args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, DATABASE_URL: '' } });
  const values = new Map<string, string>();
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`scripts/with-postgres.sh --serve exited with ${code} before it was ready`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const eq = line.indexOf('=');
      if (eq > 0) values.set(line.slice(0, eq), line.slice(eq + 1));
      if (line.startsWith('PG_AS=')) resolve();
    });
  });
  child.removeAllListeners('exit');
  const pgdata = values.get('PGDATA')!;
  const bin = values.get('PG_BIN')!;
  const as = (values.get('PG_AS') ?? '').split(' ').filter(Boolean);
  return {
    url: values.get('DATABASE_URL')!,
    pgdata,
    crashAndRestart() {
      const cmd = [...as, path.join(bin, 'pg_ctl'), '-D', pgdata, '-m', 'immediate', '-w', 'restart'];
      execFileSync(cmd[0]!, cmd.slice(1), { stdio: 'ignore' });
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin!.end();
      await exited;
    },
  };
}
