// Attack class: probing the host through report paths. A client that may name report files under --reports-root
// must learn nothing about what lies outside it: a path outside answers the same whether or not something exists
// there (directly, through `..`, an absolute path, or a symbolic link, dangling or not), and no error quotes a host
// path the client did not name (the root's own location included).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveReportRequest } from '../../src/forensics/report-request.js';

const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'navkernel-attack-paths-')));
const root = path.join(dir, 'root');
const outside = path.join(dir, 'outside');

beforeAll(() => {
  mkdirSync(path.join(root, 'reports'), { recursive: true });
  mkdirSync(path.join(outside, 'sub'), { recursive: true });
  writeFileSync(path.join(outside, 'secret.txt'), 'error TS2307: x\n');
  writeFileSync(path.join(root, 'reports', 'tsc.txt'), 'a.ts(1,1): error TS2307: Cannot find module.\n');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'reports', 'link-exists'));
  symlinkSync(path.join(outside, 'nope.txt'), path.join(root, 'reports', 'link-missing'));
  symlinkSync(outside, path.join(root, 'reports', 'dirlink'));
  symlinkSync('../../outside/secret.txt', path.join(root, 'reports', 'relative-exists'));
  symlinkSync('../../outside/nope.txt', path.join(root, 'reports', 'relative-missing'));
  mkdirSync(path.join(root, 'plain'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ask = (reports: unknown) =>
  resolveReportRequest({ run_id: 'r', flow: 'build', step_completed: 's', status: 'UNVERIFIED', reports }, { root }).then(
    () => undefined,
    (e: unknown) => e as { code: string; problem: string; message: string },
  );

/** The answer with the path the client gave taken out: what must not differ between two probes. */
const shape = (e: { code: string; problem: string; message: string } | undefined, given: string) => e && { code: e.code, problem: e.problem, message: e.message.replace(given, '<given>') };

describe('no existence oracle outside the reports root', () => {
  const pairs: [string, string][] = [
    ['../outside/secret.txt', '../outside/nope.txt'],
    ['../outside/sub', '../outside/none'],
    [path.join(dir, 'outside', 'secret.txt'), path.join(dir, 'outside', 'nope.txt')],
    ['reports/link-exists', 'reports/link-missing'],
    ['reports/relative-exists', 'reports/relative-missing'],
    ['reports/dirlink/secret.txt', 'reports/dirlink/nope.txt'],
    ['reports/../../outside/secret.txt', 'reports/../../outside/nope.txt'],
  ];
  for (const [exists, missing] of pairs) {
    it(`${exists} and ${missing} answer alike (outside_root), as files and as git work trees`, async () => {
      for (const field of ['files', 'git'] as const) {
        const a = await ask(field === 'files' ? { files: [exists] } : { git: exists });
        const b = await ask(field === 'files' ? { files: [missing] } : { git: missing });
        expect(shape(a, exists), `${field}: ${exists}`).toEqual(shape(b, missing));
        expect(a, `${field}: ${exists}`).toMatchObject({ code: 'INVALID_REPORT', problem: 'outside_root' });
      }
    });
  }

  it('a missing path inside the root is still not_found', async () => {
    expect(await ask({ files: ['reports/none.xml'] })).toMatchObject({ problem: 'not_found' });
    expect(await ask({ files: ['reports/tsc.txt'] })).toBeUndefined();
  });
});

describe('errors quote only what the client named', () => {
  it('report and git errors never hold the host path of the root or of anything outside it', async () => {
    const probes: unknown[] = [
      { files: ['reports/none.xml'] },
      { files: ['../outside/secret.txt'] },
      { files: ['reports/link-exists'] },
      { files: ['reports'] },
      { git: 'plain' },
      { git: 'reports/tsc.txt' },
      { git: '../outside' },
      { git: 'reports/dirlink' },
    ];
    for (const reports of probes) {
      const e = await ask(reports);
      expect(e, JSON.stringify(reports)).toBeDefined();
      expect(e!.message, JSON.stringify(reports)).not.toContain(dir);
    }
  });
});
