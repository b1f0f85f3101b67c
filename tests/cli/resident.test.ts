// The resident navigator: `navkernel navigate` hands its call to a resident process of the same build when one
// listens on this user's private socket, and otherwise runs in its own process and starts one. Checked: the same
// bytes either way (stdout and artifacts, relative paths resolved in the caller's folder), a stale socket replaced,
// no resident in a folder others may enter, a bad request answered with its code, the idle exit.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { exchange } from '../../src/cli/resident/client.js';
import { RESIDENT_PROTOCOL, type ResidentStatus } from '../../src/cli/resident/protocol.js';
import { BIN } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { SHOP, tmpDir } from '../repomap/fixture.js';

const RESIDENT_MAIN = path.join(ROOT, 'dist', 'src', 'cli', 'resident', 'main.js');
const CLI_MODULE = pathToFileURL(path.join(ROOT, 'dist', 'src', 'cli', 'main.js')).href;
const started: string[] = [];

function env(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, NAVKERNEL_RESIDENT: '1', NAVKERNEL_RESIDENT_DIR: dir, NAVKERNEL_RESIDENT_IDLE_MS: '600000', ...extra };
}

function navigateCli(dir: string, args: string[], cwd = ROOT, extra: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, 'navigate', '--repo', SHOP, '--task', 'apply a discount coupon to the cart', '--json', '-q', ...args], { cwd, encoding: 'utf8', env: env(dir, extra) });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const sockets = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.sock')) : []);

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  // A safety net only: every wait ends on the event it waits for.
  for (let i = 0; i < 1500; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function status(socket: string): Promise<ResidentStatus | undefined> {
  const r = await exchange(socket, { v: RESIDENT_PROTOCOL, op: 'status' });
  if ('failed' in r) return undefined;
  const last = r.reply[r.reply.length - 1]!;
  return 'status' in last ? last.status : undefined;
}

/** The resident the CLI started in `dir`, once it answers. */
async function residentIn(dir: string): Promise<{ socket: string; status: ResidentStatus }> {
  return until('a resident', async () => {
    const [name] = sockets(dir);
    if (!name) return undefined;
    const socket = path.join(dir, name);
    const s = await status(socket);
    if (!s) return undefined;
    started.push(socket);
    return { socket, status: s };
  });
}

async function stop(socket: string): Promise<void> {
  const s = await status(socket);
  await exchange(socket, { v: RESIDENT_PROTOCOL, op: 'stop' });
  await until('the socket removed', () => (existsSync(socket) ? undefined : true));
  if (s) await until('the resident gone', () => (alive(s.pid) ? undefined : true));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

afterAll(async () => {
  for (const socket of started) if (existsSync(socket)) await stop(socket);
});

describe('the resident navigator', () => {
  it('is started by a navigate call, answers it and the next with the same bytes as a call run here, relative paths in the caller\'s folder', async () => {
    const dir = path.join(tmpDir('nk-res-'), 'sockets');
    const work = tmpDir('nk-res-work-');
    const here = tmpDir('nk-res-here-');
    const inProcess = navigateCli(dir, ['--out', 'out', '--cache-dir', 'cache', '--no-resident'], here);
    expect(sockets(dir)).toEqual([]);
    // No resident listens and stderr is not a terminal: one is started and given this first call.
    const first = navigateCli(dir, ['--out', 'out', '--cache-dir', 'cache'], work);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(inProcess.stdout.replaceAll(here, work));
    const { socket, status: s0 } = await residentIn(dir);
    expect(s0.calls).toBe(1);
    expect((await import('node:fs')).statSync(dir).mode & 0o777).toBe(0o700);
    const artifacts = () => Object.fromEntries(readdirSync(path.join(work, 'out')).sort().map((f) => [f, readFileSync(path.join(work, 'out', f), 'utf8')]));
    const before = artifacts();

    const inProcessArtifacts = Object.fromEntries(readdirSync(path.join(here, 'out')).sort().map((f) => [f, readFileSync(path.join(here, 'out', f), 'utf8').replaceAll(here, work)]));
    expect(before).toEqual(inProcessArtifacts);

    const second = navigateCli(dir, ['--out', 'out', '--cache-dir', 'cache'], work);
    expect(second).toEqual(first);
    expect(artifacts()).toEqual(before);
    expect((await status(socket))!.calls).toBe(2);

    // --no-resident (and NAVKERNEL_RESIDENT=0) run here: the resident is not asked.
    expect(navigateCli(dir, ['--out', 'out', '--cache-dir', 'cache', '--no-resident'], work)).toEqual(first);
    expect(navigateCli(dir, ['--out', 'out', '--cache-dir', 'cache'], work, { NAVKERNEL_RESIDENT: '0' })).toEqual(first);
    expect((await status(socket))!.calls).toBe(2);

    // An input error is the CLI's own, answered by the resident in the same words.
    const bad = navigateCli(dir, ['--out', 'out', '--cache-dir', 'cache', '--max-files', 'x'], work);
    expect(bad.code).toBe(2);
    const badHere = navigateCli(dir, ['--out', 'out', '--cache-dir', 'cache', '--max-files', 'x', '--no-resident'], work);
    expect(bad).toEqual(badHere);
    expect((await status(socket))!.calls).toBe(3);
    await stop(socket);
  });

  it('leaves no resident behind when the call that started it failed on its input', async () => {
    const dir = path.join(tmpDir('nk-res-'), 'sockets');
    const work = tmpDir('nk-res-work-');
    const bad = navigateCli(dir, ['--out', 'out', '--cache-dir', 'cache', '--max-files', '0'], work);
    expect(bad.code).toBe(2);
    expect(bad).toEqual(navigateCli(dir, ['--out', 'out', '--cache-dir', 'cache', '--max-files', '0', '--no-resident'], work));
    await until('no socket', () => (sockets(dir).length === 0 ? true : undefined));
  });

  it('replaces a stale socket (its process died) and answers bad requests with their code, serving on', async () => {
    const dir = path.join(tmpDir('nk-res-'), 'sockets');
    mkdirSync(dir, { mode: 0o700 });
    // A socket file no one listens on: its process was killed before it could remove it.
    const first = navigateCli(dir, ['--out', path.join(tmpDir('nk-res-out-'), 'o'), '--no-cache']);
    expect(first.code).toBe(0);
    expect(sockets(dir)).toEqual([]); // --no-cache runs here and starts nothing
    const staleName = await (async () => {
      navigateCli(dir, ['--out', path.join(tmpDir('nk-res-out-'), 'o'), '--cache-dir', tmpDir('nk-res-cache-')]);
      const { socket } = await residentIn(dir);
      return socket;
    })();
    const { status: s } = { status: (await status(staleName))! };
    process.kill(s.pid, 'SIGKILL');
    await until('the killed resident gone', () => (alive(s.pid) ? undefined : true));
    expect(existsSync(staleName)).toBe(true);
    expect(await status(staleName)).toBeUndefined();

    const out = path.join(tmpDir('nk-res-out-'), 'o');
    const r = navigateCli(dir, ['--out', out, '--cache-dir', tmpDir('nk-res-cache-')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).exit).toBe('EXIT_PASS');
    const fresh = await until('a new resident on the stale socket', async () => {
      const st = await status(staleName);
      return st && st.pid !== s.pid ? st : undefined;
    });
    expect(fresh.calls).toBe(1); // the call that found the stale socket, answered by the resident it started

    // Bad requests: each answered with its code; the resident goes on serving.
    const raw = (line: string) =>
      new Promise<string>((resolve, reject) => {
        const c = net.createConnection(staleName);
        let got = '';
        c.setEncoding('utf8');
        c.on('connect', () => c.write(line));
        c.on('data', (d: string) => (got += d));
        c.on('end', () => resolve(got));
        c.on('error', reject);
      });
    expect(JSON.parse(await raw('{not json\n')).error.code).toBe('INVALID_JSON');
    expect(JSON.parse(await raw(`${JSON.stringify({ v: RESIDENT_PROTOCOL, op: 'navigate', argv: ['route', '--flow', 'x'], cwd: ROOT })}\n`)).error.code).toBe('INVALID_REQUEST');
    expect(JSON.parse(await raw(`${JSON.stringify({ v: RESIDENT_PROTOCOL, op: 'navigate', argv: ['navigate'], cwd: 'relative' })}\n`)).error.code).toBe('INVALID_REQUEST');
    expect(JSON.parse(await raw(`${JSON.stringify({ v: 99, op: 'status' })}\n`)).error.code).toBe('INVALID_REQUEST');
    expect((await status(staleName))!.pid).toBe(fresh.pid);
    await stop(staleName);
  });

  it('is neither asked nor started when the socket folder is not private to this user', async () => {
    const open = path.join(tmpDir('nk-res-'), 'open');
    mkdirSync(open);
    chmodSync(open, 0o755);
    const viaLink = path.join(tmpDir('nk-res-'), 'link');
    const target = path.join(tmpDir('nk-res-'), 'target');
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, viaLink);
    for (const [dir, look] of [[open, open], [viaLink, target]] as const) {
      const r = navigateCli(dir, ['--out', path.join(tmpDir('nk-res-out-'), 'o'), '--cache-dir', tmpDir('nk-res-cache-')]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).exit).toBe('EXIT_PASS');
      // The CLI exits after starting a resident, so one started would have bound its socket by the time a second call ran.
      navigateCli(dir, ['--out', path.join(tmpDir('nk-res-out-'), 'o'), '--cache-dir', tmpDir('nk-res-cache-')]);
      expect(sockets(look)).toEqual([]);
    }
  });

  it('exits when idle and removes its socket', async () => {
    const dir = path.join(tmpDir('nk-res-'), 'sockets');
    mkdirSync(dir, { mode: 0o700 });
    const socket = path.join(dir, 'idle.sock');
    const child = spawn(process.execPath, [RESIDENT_MAIN, socket, CLI_MODULE], { env: env(dir, { NAVKERNEL_RESIDENT_IDLE_MS: '300' }), stdio: 'ignore' });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(existsSync(socket)).toBe(false);
  });
});
