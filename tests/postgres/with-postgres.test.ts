// scripts/with-postgres.sh: the project's own throwaway server. It must hand the command a working DATABASE_URL,
// return the command's exit status, forward TERM, and leave no server or folder behind, whatever the exit.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { packageRoot } from '../../src/package-root.js';
import { onLines } from '../support/lines.js';
import { describePostgres } from '../support/postgres.js';

const script = path.join(packageRoot(), 'scripts', 'with-postgres.sh');
// What the command reports: its DATABASE_URL, the server's fsync setting, and its own temp folder (from the socket).
const probe = `psql -XAt "$DATABASE_URL" -c "show fsync" -c "show unix_socket_directories"`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

it('passes an existing DATABASE_URL through without starting a server', () => {
  const r = spawnSync('bash', [script, '--', 'bash', '-c', 'echo "$DATABASE_URL"; exit 7'], { env: { ...process.env, DATABASE_URL: 'postgres://elsewhere/db' }, encoding: 'utf8' });
  expect(r.status).toBe(7);
  expect(r.stdout.trim()).toBe('postgres://elsewhere/db');
});

describePostgres('scripts/with-postgres.sh', () => {
  it('runs the command against a fresh server, returns its status and removes everything', () => {
    const r = spawnSync('bash', [script, '--', 'bash', '-c', `${probe} && exit 3`], { env: { ...process.env, DATABASE_URL: '' }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(3);
    const [fsync, socketDir] = r.stdout.trim().split('\n');
    expect(fsync).toBe('off'); // test settings
    expect(socketDir).toMatch(/navkernel-pg\./);
    expect(existsSync(socketDir!)).toBe(false);
  });

  it('forwards TERM to the command, then stops the server and removes its folder', async () => {
    const child = spawn('bash', [script, '--', 'bash', '-c', `${probe} && echo "PID $$" && sleep 60`], { env: { ...process.env, DATABASE_URL: '' }, stdio: ['ignore', 'pipe', 'inherit'] });
    const lines: string[] = [];
    const started = new Promise<void>((resolve) => onLines(child.stdout!, (l) => (lines.push(l), l.startsWith('PID ') && resolve())));
    await started;
    const socketDir = lines[1]!;
    const commandPid = Number(lines[2]!.slice(4));
    expect(existsSync(socketDir)).toBe(true);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(alive(commandPid)).toBe(false);
    expect(existsSync(socketDir)).toBe(false);
  });

  it('stops the server and removes its folder even when the script itself is killed with SIGKILL', async () => {
    const child = spawn('bash', [script, '--', 'bash', '-c', `${probe} && echo "READY $$" && exec sleep 60 >/dev/null`], { env: { ...process.env, DATABASE_URL: '' }, stdio: ['ignore', 'pipe', 'inherit'] });
    const lines: string[] = [];
    await new Promise<void>((resolve) => onLines(child.stdout!, (l) => (lines.push(l), l.startsWith('READY') && resolve())));
    const commandPid = Number(lines[2]!.slice(6));
    const socketDir = lines[1]!;
    const pid = Number(readFileSync(path.join(socketDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(alive(pid)).toBe(true);
    child.kill('SIGKILL');
    // The watchdog notices within a second or two; wait for it (bounded), never assert on the time taken.
    for (let i = 0; i < 300 && (existsSync(socketDir) || alive(pid)); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
    expect(existsSync(socketDir)).toBe(false);
    process.kill(commandPid, 'SIGTERM'); // the orphaned command: SIGKILL gave the script no chance to stop it
  });
});
