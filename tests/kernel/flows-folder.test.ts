import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FlowValidationError } from '../../src/contracts/index.js';
import { loadFlows } from '../../src/kernel/index.js';
import { runCli } from '../support/cli.js';
import { CHARTERS } from '../support/kernel-fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A flows folder with the real build and rebase flows plus hostile entries. */
function hostileFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'nk-flows-'));
  dirs.push(dir);
  for (const f of ['build.yaml', 'rebase.yaml']) copyFileSync(path.join(CHARTERS, f), path.join(dir, f));
  execFileSync('mkfifo', [path.join(dir, 'fifo.yaml')]);
  symlinkSync('/dev/zero', path.join(dir, 'zero.yaml'));
  symlinkSync(path.join(dir, 'gone.yaml'), path.join(dir, 'dangling.yaml'));
  const outside = mkdtempSync(path.join(tmpdir(), 'nk-outside-'));
  dirs.push(outside);
  copyFileSync(path.join(CHARTERS, 'plan.yaml'), path.join(outside, 'plan.yaml'));
  symlinkSync(path.join(outside, 'plan.yaml'), path.join(dir, 'escape.yaml'));
  return dir;
}

describe('loadFlows on a folder holding things that are not files', () => {
  it('reads only regular files, never hangs, and names each entry skipped and why', async () => {
    const dir = hostileFolder();
    const set = await loadFlows(dir);
    expect([...set.flows.keys()].sort()).toEqual(['build', 'rebase']);
    expect(set.skipped?.map((s) => `${path.basename(s.file)}: ${s.reason}`)).toEqual([
      'dangling.yaml: a dangling symlink',
      expect.stringMatching(/^escape\.yaml: a symlink to .*plan\.yaml, outside the flows folder$/),
      'fifo.yaml: a FIFO, not a regular file',
      'zero.yaml: a symlink to /dev/zero, outside the flows folder',
    ]);
  });

  it('refuses a flow file over the size cap unread, and a FIFO or dangling symlink named directly, with typed errors', async () => {
    const dir = hostileFolder();
    writeFileSync(path.join(dir, 'huge.yaml'), `# ${'x'.repeat(8192)}\n`);
    const big = await loadFlows(dir, { maxFileBytes: 4096 }).catch((e: unknown) => e);
    expect(big).toBeInstanceOf(FlowValidationError);
    expect((big as FlowValidationError).issues).toEqual([expect.objectContaining({ code: 'too_large', file: path.join(dir, 'huge.yaml'), path: [], limit: 4096 })]);
    await expect(loadFlows(path.join(dir, 'fifo.yaml'))).rejects.toThrow(/a FIFO, not a flow file or folder/);
    await expect(loadFlows(path.join(dir, 'dangling.yaml'))).rejects.toThrow(/a dangling symlink/);
    await expect(loadFlows(path.join(dir, 'zero.yaml'))).rejects.toThrow(/a character device, not a flow file or folder/);
  });

  it('the CLI routes with such a folder and warns about each skipped entry on stderr', () => {
    const dir = hostileFolder();
    const r = runCli(['route', '--no-ledger', '--flows', dir], JSON.stringify({ run_id: 'f', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' }));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'CONTINUE' });
    expect(r.stderr).toMatch(/warning: skipped .*fifo\.yaml: a FIFO, not a regular file/);
    expect(r.stderr).toMatch(/warning: skipped .*dangling\.yaml: a dangling symlink/);
  });
});
