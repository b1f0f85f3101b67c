// startCoProcess(): `navkernel route` as a process group of its own, from Node (issue 37: nothing outlives its
// parent). The group is checked in /proc after each way of ending it.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCoProcess } from '../../src/service/start-coprocess.js';
import { BIN } from '../support/cli.js';
import { CHARTERS, ROOT } from '../support/kernel-fixtures.js';
import { runningInGroup, until } from '../support/process-group.js';
import { tempDir } from '../support/temp.js';

const step1 = (run_id: string) => ({ run_id, flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' });

describe('startCoProcess', () => {
  it('routes in order, rejects a refused line with its code, and close() leaves no process of the group', async () => {
    const dir = tempDir('nk-coproc-');
    const co = startCoProcess({ flows: CHARTERS, ledger: path.join(dir, 'ledger.sqlite') });
    try {
      const [a, b] = await Promise.all([co.route(step1('c-1')), co.route(step1('c-2'))]);
      expect(a).toMatchObject({ decision: 'CONTINUE', next_step_id: 'build-step-2', tier: 1 });
      expect(b).toMatchObject({ decision: 'CONTINUE', next_step_id: 'build-step-2' });
      await expect(co.route({ run_id: 'c-3', flow: 'nosuch', step_completed: 'x', status: 'DONE' })).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/^\$\.flow: expected one of the loaded flows/) });
      expect(runningInGroup(co.pid)).toContain(co.pid);
    } finally {
      // One error line: exit 1, as the co-process documents.
      expect(await co.close()).toBe(1);
    }
    expect(runningInGroup(co.pid)).toEqual([]);
    expect(await co.close()).toBe(1);
    await expect(co.route(step1('c-4'))).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('stop() ends the whole group, a wrapper and the navkernel it runs as its child (as npx does)', async () => {
    const dir = tempDir('nk-coproc-wrap-');
    // bash runs navkernel as its child (not exec): stopping only the leader would orphan the co-process.
    const co = startCoProcess({ command: ['bash', '-c', '"$@"; exit $?', 'wrapper', process.execPath, BIN, 'route', '--flows', CHARTERS, '--ledger', path.join(dir, 'l.sqlite')] });
    expect(await co.route(step1('w-1'))).toMatchObject({ decision: 'CONTINUE' });
    expect(runningInGroup(co.pid).length).toBeGreaterThanOrEqual(2);
    await co.stop();
    await until(() => runningInGroup(co.pid).length === 0, `group ${co.pid} to end`);
    expect(runningInGroup(co.pid)).toEqual([]);
  });

  it('a script that exits without close() takes its co-process with it', async () => {
    const dir = tempDir('nk-coproc-exit-');
    const script = path.join(dir, 'script.mjs');
    const lib = path.join(ROOT, 'dist', 'src', 'service', 'start-coprocess.js');
    writeFileSync(
      script,
      `import { startCoProcess } from ${JSON.stringify(lib)};\nconst co = startCoProcess({ flows: ${JSON.stringify(CHARTERS)}, ledger: ${JSON.stringify(path.join(dir, 'l.sqlite'))} });\nawait co.route(${JSON.stringify(step1('x-1'))});\nconsole.log(co.pid);\nprocess.exit(0);\n`,
    );
    const r = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const pid = Number(r.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    await until(() => runningInGroup(pid).length === 0, `co-process ${pid} to stop`);
  });
});
