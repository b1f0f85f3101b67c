// The resident navigator's process (started by the CLI, see client.ts): `node main.js SOCKET CLI_MODULE`.
import { DEFAULT_IDLE_MS, serveResident } from './server.js';

const [socket, cliModule] = process.argv.slice(2);
if (!socket || !cliModule) {
  process.stderr.write('usage: node resident/main.js SOCKET CLI_MODULE\n');
  process.exit(2);
}
const idle = Number(process.env.NAVKERNEL_RESIDENT_IDLE_MS);
const { main } = (await import(cliModule)) as { main: (argv: string[]) => Promise<number> };
try {
  const resident = await serveResident({ socket, run: main, idleMs: Number.isFinite(idle) && idle > 0 ? idle : DEFAULT_IDLE_MS });
  const stop = () => void resident.close();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', () => {});
  // Idle, stopped or signalled: the socket is gone; nothing the calls left open keeps the process.
  await resident.closed;
  process.exit(0);
} catch {
  // Another resident serves this socket, or it cannot be bound: nothing to do.
  process.exit(0);
}
