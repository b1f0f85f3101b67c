// Attack class: a report repository names programs. A work tree read for `reports.git` (serve, the co-process)
// or `navkernel forensics --git` is untrusted: its .git/config, attributes, hooks and included config can name
// programs (filter drivers, fsmonitor, hooks, external diff, textconv, ssh command, pager, editor, …). Each kind
// is set up with real git, each program would create a marker file, and reading the repository must create none.
// The repository's enclosing folders outside the reports root stay out of reach.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectForensics } from '../../src/forensics/index.js';
import { resolveReportRequest } from '../../src/forensics/report-request.js';
import { coProcess, runCli } from '../support/cli.js';
import { CHARTERS } from '../support/kernel-fixtures.js';

let dir: string;
let root: string;
let markers: string;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** A shell command that leaves a marker named `kind` (and passes its input through, as a filter must). */
const touch = (kind: string) => `sh -c 'touch ${path.join(markers, kind)}; cat' --`;

/** A repository with one committed file (`a.txt`), then touched (same size, new time) so that `git status` must hash its content. */
function repo(at: string): string {
  mkdirSync(at, { recursive: true });
  git(at, 'init', '-q');
  writeFileSync(path.join(at, 'a.txt'), 'one\n');
  git(at, 'add', '.');
  git(at, 'commit', '-q', '-m', 'one');
  const later = new Date(Date.now() + 60_000);
  utimesSync(path.join(at, 'a.txt'), later, later);
  return at;
}

/** Each kind of configuration that names a program, set on a fresh repository with real git. */
const KINDS: Record<string, (at: string) => void> = {
  'filter-clean': (at) => {
    git(at, 'config', 'filter.evil.clean', touch('filter-clean'));
    writeFileSync(path.join(at, '.gitattributes'), '*.txt filter=evil\n');
  },
  'filter-process': (at) => {
    git(at, 'config', 'filter.evil.process', touch('filter-process'));
    writeFileSync(path.join(at, '.gitattributes'), '*.txt filter=evil\n');
  },
  'filter-smudge': (at) => {
    git(at, 'config', 'filter.evil.smudge', touch('filter-smudge'));
    git(at, 'config', 'filter.evil.required', 'true');
    writeFileSync(path.join(at, '.gitattributes'), '*.txt filter=evil\n');
  },
  'core-fsmonitor': (at) => git(at, 'config', 'core.fsmonitor', touch('core-fsmonitor')),
  hooks: (at) => {
    for (const hook of ['post-checkout', 'post-index-change', 'pre-commit', 'reference-transaction', 'fsmonitor-watchman']) {
      const file = path.join(at, '.git', 'hooks', hook);
      writeFileSync(file, `#!/bin/sh\ntouch ${path.join(markers, 'hooks')}\n`);
      chmodSync(file, 0o755);
    }
  },
  'core-hooksPath': (at) => {
    const hooks = path.join(at, 'my-hooks');
    mkdirSync(hooks);
    for (const hook of ['post-index-change', 'reference-transaction']) {
      writeFileSync(path.join(hooks, hook), `#!/bin/sh\ntouch ${path.join(markers, 'core-hooksPath')}\n`);
      chmodSync(path.join(hooks, hook), 0o755);
    }
    git(at, 'config', 'core.hooksPath', hooks);
  },
  'diff-external': (at) => git(at, 'config', 'diff.external', touch('diff-external')),
  textconv: (at) => {
    git(at, 'config', 'diff.evil.textconv', touch('textconv'));
    writeFileSync(path.join(at, '.gitattributes'), '*.txt diff=evil\n');
  },
  'core-sshCommand': (at) => git(at, 'config', 'core.sshCommand', touch('core-sshCommand')),
  'core-pager': (at) => git(at, 'config', 'core.pager', touch('core-pager')),
  'core-editor': (at) => git(at, 'config', 'core.editor', touch('core-editor')),
  'credential-helper': (at) => git(at, 'config', 'credential.helper', `!${touch('credential-helper')}`),
  'include-path': (at) => {
    // The program is named in another file, pulled in by include.path (and by includeIf).
    const included = path.join(at, '..', `${path.basename(at)}.included`);
    writeFileSync(included, `[filter "inc"]\n\tclean = ${touch('include-path')}\n\tprocess = ${touch('include-path')}\n[core]\n\tfsmonitor = ${touch('include-path')}\n`);
    git(at, 'config', 'include.path', included);
    git(at, 'config', `includeIf.gitdir:${at}/.path`, included);
    writeFileSync(path.join(at, '.gitattributes'), '*.txt filter=inc\n');
  },
};

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'navkernel-attack-git-'));
  markers = path.join(dir, 'markers');
  mkdirSync(markers);
  root = path.join(dir, 'root');
  mkdirSync(root);
  for (const [kind, arm] of Object.entries(KINDS)) arm(repo(path.join(root, kind)));
  // Every kind at once, for the CLI and the co-process.
  const all = repo(path.join(root, 'all'));
  for (const arm of Object.values(KINDS)) arm(all);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const noMarkers = () => expect(readdirSync(markers)).toEqual([]);

describe('a repository that names programs runs none of them', () => {
  it('sanity: real git does run them (this machine would be attacked by `git status`)', () => {
    const probe = repo(path.join(dir, 'probe'));
    KINDS['filter-clean']!(probe);
    git(probe, 'status', '--porcelain=v2');
    expect(existsSync(path.join(markers, 'filter-clean'))).toBe(true);
    rmSync(path.join(markers, 'filter-clean'));
  });

  for (const kind of Object.keys(KINDS)) {
    it(`${kind}: read through reports.git under the root and with collectForensics, no marker`, async () => {
      const request = await resolveReportRequest({ run_id: 'r', flow: 'build', step_completed: 's', status: 'UNVERIFIED', reports: { git: kind } }, { root });
      expect(request).toMatchObject({ forensics: { git_status: { branch: 'main' }, read_from: [{ format: 'git-status' }] } });
      const f = await collectForensics({ git: path.join(root, kind) });
      expect(f.git_status).toEqual({ branch: 'main' });
      expect(existsSync(path.join(markers, kind))).toBe(false);
    });
  }

  it('navkernel forensics --git and the co-process (--reports-root) on a repository with every kind: no marker', async () => {
    const out = runCli(['forensics', '--git', path.join(root, 'all')]);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ git_status: { branch: 'main' } });
    const co = coProcess(['route', '--flows', CHARTERS, '--no-ledger', '--reports-root', root]);
    try {
      const answer = JSON.parse(await co.ask(JSON.stringify({ run_id: 'g', flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', reports: { git: 'all' } })));
      expect(answer.decision).toBeDefined();
    } finally {
      await co.close();
    }
    noMarkers();
  });
});

describe("the repository's enclosing folders stay out of reach", () => {
  let outer: string;
  let inner: string;
  beforeAll(() => {
    // A repository that encloses the reports root: its plain sub-folders must not report it.
    outer = repo(path.join(dir, 'outer'));
    inner = path.join(outer, 'reports-root');
    mkdirSync(path.join(inner, 'plain'), { recursive: true });
    // A work tree under the root whose .git names (or is a link to) a repository outside the root.
    const elsewhere = repo(path.join(dir, 'elsewhere'));
    mkdirSync(path.join(inner, 'pointer'));
    writeFileSync(path.join(inner, 'pointer', '.git'), `gitdir: ${path.join(elsewhere, '.git')}\n`);
    mkdirSync(path.join(inner, 'linked'));
    symlinkSync(path.join(elsewhere, '.git'), path.join(inner, 'linked', '.git'));
    // A repository under the root whose HEAD is a link to a file outside it.
    const headLink = repo(path.join(inner, 'head-link'));
    writeFileSync(path.join(dir, 'foreign-head'), 'ref: refs/heads/secret-branch-name\n');
    rmSync(path.join(headLink, '.git', 'HEAD'));
    symlinkSync(path.join(dir, 'foreign-head'), path.join(headLink, '.git', 'HEAD'));
  });

  const read = (git: string) => resolveReportRequest({ run_id: 'r', flow: 'build', step_completed: 's', status: 'UNVERIFIED', reports: { git } }, { root: inner });

  it('a plain folder under the root inside an enclosing repository is not a work tree (no upward discovery past the root)', async () => {
    for (const given of ['plain', '.']) {
      const e = await read(given).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e, given).toMatchObject({ code: 'INVALID_REPORT', problem: 'git_failed' });
      expect((e as Error).message).toMatch(/not a git work tree/);
      expect((e as Error).message).not.toContain(dir);
    }
  });

  it('a .git file or link naming a repository outside the root is refused, its path not quoted', async () => {
    for (const given of ['pointer', 'linked']) {
      const e = await read(given).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e, given).toMatchObject({ code: 'INVALID_REPORT', problem: 'outside_root' });
      expect((e as Error).message).not.toContain(dir);
    }
  });

  it("a file inside .git that links out of the root is not read (the foreign file's content never shows)", async () => {
    const e = await read('head-link').then(
      (x) => x,
      (x: unknown) => x,
    );
    expect(JSON.stringify(e)).not.toContain('secret-branch-name');
    expect(e).toMatchObject({ code: 'INVALID_REPORT', problem: 'git_failed' });
  });

  it('FIFOs planted where git files belong (index, packed-refs, a ref, a loose object) are not waited on: the read answers', async () => {
    const at = repo(path.join(inner, 'fifos'));
    git(at, 'remote', 'add', 'origin', outer);
    git(at, 'fetch', '-q', 'origin');
    git(at, 'branch', '-q', '--set-upstream-to', 'origin/main');
    git(at, 'pack-refs', '--all');
    const objects = path.join(at, '.git', 'objects');
    const loose = readdirSync(objects).find((d) => /^[0-9a-f]{2}$/.test(d))!;
    const victims = [path.join(at, '.git', 'index'), path.join(at, '.git', 'packed-refs'), path.join(objects, loose, readdirSync(path.join(objects, loose))[0]!)];
    mkdirSync(path.join(at, '.git', 'refs', 'remotes', 'origin'), { recursive: true });
    victims.push(path.join(at, '.git', 'refs', 'remotes', 'origin', 'main'));
    for (const v of victims) {
      rmSync(v, { force: true });
      execFileSync('mkfifo', [v]);
    }
    const answer = await read('fifos').then(
      (x) => x,
      (x: unknown) => x,
    );
    expect(answer).toBeDefined();
    expect(JSON.stringify(answer)).not.toContain(dir);
  }, 30_000);

  it('without a reports root (the CLI on a folder the user names), discovery goes upward as git does', async () => {
    const f = await collectForensics({ git: path.join(inner, 'plain') });
    expect(f.git_status).toMatchObject({ branch: 'main' });
  });
});
