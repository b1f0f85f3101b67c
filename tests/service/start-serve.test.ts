// serve started and stopped from a script leaves nothing running (issue 37.3): startServe() in the library, and the
// Python first-flow runner piped into a reader that must see the end of its output.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe } from '../../src/service/start-serve.js';
import { BIN } from '../support/cli.js';
import { runningInGroup } from '../support/process-group.js';
import { CHARTERS, ROOT } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

/** Running processes whose command line contains `text`. */
function runningWith(text: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid)) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8').split(')').at(-1)!.trim().split(' ');
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (stat[0] !== 'Z' && args.includes(text)) out.push(`${entry} ${args}`);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; !check(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('startServe', () => {
  it('starts serve as a process group of its own, answers, and close() leaves no process of the group', async () => {
    const dir = tempDir('nk-start-serve-');
    const serve = await startServe({ flows: CHARTERS, ledger: path.join(dir, 'ledger.sqlite') });
    try {
      expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = (await (await fetch(`${serve.url}/v1/healthz`)).json()) as { status: string };
      expect(health.status).toBe('ok');
      expect(serve.stderr()).toContain(`navkernel serve: ledger ${path.join(dir, 'ledger.sqlite')} (run folders in ${path.join(dir, 'runs')}); flows from ${CHARTERS}`);
      expect(runningInGroup(serve.pid)).toContain(serve.pid);
    } finally {
      expect(await serve.close()).toBe(0);
    }
    expect(runningInGroup(serve.pid)).toEqual([]);
    // A second close is harmless.
    expect(await serve.close()).toBe(0);
  });

  it('a script that exits without close() takes its serve with it', async () => {
    const dir = tempDir('nk-start-serve-exit-');
    const script = path.join(dir, 'script.mjs');
    const lib = path.join(ROOT, 'dist', 'src', 'service', 'start-serve.js');
    writeFileSync(script, `import { startServe } from ${JSON.stringify(lib)};\nconst s = await startServe({ flows: ${JSON.stringify(CHARTERS)}, ledger: ${JSON.stringify(path.join(dir, 'l.sqlite'))} });\nconsole.log(s.pid);\nprocess.exit(0);\n`);
    const r = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const pid = Number(r.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    await until(() => runningInGroup(pid).length === 0, `serve ${pid} to stop`);
  });

  it('says why when serve cannot start', async () => {
    await expect(startServe({ flows: path.join(tmpdir(), 'no-such-flows-here') })).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('no-such-flows-here') });
  });
});

describe('examples/first-flow/runner.py', () => {
  it('piped into a reader, ends its output when it exits: serve (behind a wrapper, as npx runs it) does not outlive it', async () => {
    // bash runs navkernel as its child (not exec), as npx does: stopping only the wrapper would orphan serve.
    const NAVKERNEL = `bash -c '"$@"; exit $?' wrapper ${process.execPath} ${BIN}`;
    const child = spawn('python3', [path.join(ROOT, 'examples', 'first-flow', 'runner.py')], { cwd: ROOT, env: { ...process.env, NAVKERNEL }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    // 'close': every holder of the pipe's write end is gone (an orphaned serve would hold it for ever).
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, out).toBe(0);
    expect(out.trim().split('\n').at(-1)).toBe('first-flow: every check held');
    expect(runningWith(`${tmpdir()}/nk-first-flow-`)).toEqual([]);
  }, 240_000);
});
