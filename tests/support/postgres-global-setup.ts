// vitest global setup: a throwaway PostgreSQL server for the whole test run, from scripts/with-postgres.sh.
// When DATABASE_URL is set, that server is used and nothing is started. NAVKERNEL_TEST_POSTGRES=off starts
// nothing either: the PostgreSQL tests then skip, saying why (never in CI, where the variable is not set).
// The server lives as long as the script's standard input is open: when vitest exits, even by SIGKILL, the pipe
// closes and the script stops the server and deletes its folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// tests/support -> repository root (also from dist/tests/support when compiled)
const root = path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../../..' : '../..');

let server: ChildProcess | undefined;

export default async function setup(): Promise<() => Promise<void>> {
  if (process.env.DATABASE_URL || process.env.NAVKERNEL_TEST_POSTGRES === 'off') return async () => {};
  const script = path.join(root, 'scripts', 'with-postgres.sh');
  const child = spawn('bash', [script, '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  server = child;
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`scripts/with-postgres.sh --serve exited with ${code} before printing DATABASE_URL`)));
    lines.on('line', (line) => {
      if (line.startsWith('DATABASE_URL=')) resolve(line.slice('DATABASE_URL='.length));
    });
  });
  child.removeAllListeners('exit');
  // The forked test workers inherit this process's environment.
  process.env.DATABASE_URL = url;
  process.env.NAVKERNEL_TEST_POSTGRES_STARTED = '1';
  return async () => {
    if (!server || server.exitCode !== null) return;
    const exited = once(server, 'exit');
    server.stdin!.end();
    await exited;
    delete process.env.DATABASE_URL;
  };
}
