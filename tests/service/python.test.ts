// The Python client and the example runner, against a real `navkernel serve` process and a real `navkernel route`
// co-process; then the server's graceful SIGTERM.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../support/cli.js';
import { CHARTERS, ROOT } from '../support/kernel-fixtures.js';

const RUNNER = path.join(ROOT, 'examples', 'python-runner.py');
const CLIENT_DIR = path.join(ROOT, 'clients', 'python');

function python(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync('python3', args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PYTHONPATH: CLIENT_DIR, ...env }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('Python client (stdlib only) and example runner', () => {
  let dir: string;
  let server: ChildProcess;
  let base: string;
  let stderr = '';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'navkernel-py-'));
    server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--flows', CHARTERS, '--ledger', path.join(dir, 'http.sqlite'), '--token', 'py-token'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    base = await new Promise<string>((resolve, reject) => {
      server.stderr!.on('data', (b: Buffer) => {
        stderr += b.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (m) resolve(m[1]!);
      });
      server.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
  });

  afterAll(() => {
    if (server.exitCode === null) server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('the client compiles and has no dependency outside the standard library', () => {
    const r = python(['-c', 'import ast,sys; t=ast.parse(open(sys.argv[1]).read()); print(sorted({a.name.split(".")[0] for n in ast.walk(t) if isinstance(n,(ast.Import,ast.ImportFrom)) for a in (n.names if isinstance(n,ast.Import) else [type("x",(),{"name":n.module or ""})])}))', path.join(CLIENT_DIR, 'navkernel_client.py')]);
    expect(r.code, r.stderr).toBe(0);
    const mods = JSON.parse(r.stdout.replace(/'/g, '"')) as string[];
    for (const m of mods) expect(['__future__', 'atexit', 'http', 'json', 'os', 're', 'shlex', 'shutil', 'signal', 'subprocess', 'threading', 'time', 'urllib', 'typing']).toContain(m);
  });

  it('drives the build flow through serve: loops, then TERMINATE; the run is in the ledger', async () => {
    const r = python([RUNNER, '--serve', base, '--token', 'py-token', '--run-id', 'py-http']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/build-step-3\s+UNVERIFIED\s+-> LOOP\s+build-step-3\s+tier 2 microloop/);
    expect(r.stdout).toMatch(/-> TERMINATE/);
    expect(r.stdout).toMatch(/run py-http: terminated, 7 routes, 2 off-road, loops at build-step-3: 2/);
    const run = (await (await fetch(`${base}/v1/runs/py-http`, { headers: { authorization: 'Bearer py-token' } })).json()) as { decisions: { decision: { decision: string } }[] };
    expect(run.decisions.map((d) => d.decision.decision)).toEqual(['CONTINUE', 'CONTINUE', 'LOOP', 'LOOP', 'CONTINUE', 'CONTINUE', 'TERMINATE']);
    // Idempotent: running it again with the same request ids records nothing new.
    expect(python([RUNNER, '--serve', base, '--token', 'py-token', '--run-id', 'py-http']).code).toBe(0);
    const again = (await (await fetch(`${base}/v1/runs/py-http`, { headers: { authorization: 'Bearer py-token' } })).json()) as { run: { steps: number } };
    expect(again.run.steps).toBe(7);
  });

  it('drives the same flow through the navkernel route co-process, with the same decisions', () => {
    const co = `${process.execPath} ${BIN} route --flows ${CHARTERS} --ledger ${path.join(dir, 'co.sqlite')}`;
    const r = python([RUNNER, '--coprocess', co, '--run-id', 'py-co']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const http = python([RUNNER, '--serve', base, '--token', 'py-token', '--run-id', 'py-http-2']);
    const moves = (out: string) => out.split('\n').filter((l) => l.startsWith('#')).map((l) => l.replace(/^#\d+\s+/, ''));
    expect(moves(r.stdout)).toEqual(moves(http.stdout));
  });

  it('raises NavkernelError with the stable code: HTTP problems and co-process error lines', () => {
    const script = `
import sys
from navkernel_client import Client, CoProcess, NavkernelError
c = Client(sys.argv[1], token='py-token')
for call in (lambda: c.route({'run_id': 'x', 'flow': 'nope', 'step_completed': 's', 'status': 'VERIFIED'}),
             lambda: c.run('no-such-run'),
             lambda: c.resolve('esc-nope', 'CONTINUE', by='ana', reason='r'),
             lambda: Client(sys.argv[1], token='wrong').runs().__next__()):
    try:
        call(); print('no error')
    except NavkernelError as e:
        print(e.code, e.status)
print([r['run_id'] for r in c.runs(limit=1)] == ['py-http', 'py-http-2'])
with CoProcess([sys.argv[2], sys.argv[3], 'route', '--no-ledger', '--flows', sys.argv[4]]) as co:
    try:
        co.route({'run_id': 'x', 'flow': 'nope', 'step_completed': 's', 'status': 'VERIFIED'})
    except NavkernelError as e:
        print(e.code, e.status)
    print(co.route({'run_id': 'x', 'flow': 'build', 'step_completed': 'build-step-1', 'status': 'VERIFIED'})['next_step_id'])
`;
    const r = python(['-c', script, base, process.execPath, BIN, CHARTERS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['INVALID_REQUEST 400', 'UNKNOWN_RUN 404', 'UNKNOWN_ESCALATION 404', 'UNAUTHORIZED 401', 'True', 'INVALID_REQUEST 0', 'build-step-2']);
  });

  it('stops on SIGTERM: stops accepting, closes the ledger, exits 0; the ledger verifies', async () => {
    const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/SIGTERM: finishing in-flight requests\n.*stopped/s);
    expect(stderr).not.toContain('py-token');
    await expect(fetch(`${base}/v1/healthz`)).rejects.toThrow();
    const v = runCli(['verify', '--ledger', path.join(dir, 'http.sqlite')]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });
});
