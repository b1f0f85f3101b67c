// The repository reader (no git process) says what `git status --porcelain=v2 --branch` says: branch, upstream,
// ahead/behind and unmerged paths, on repositories made by real git in each shape a runner meets. And a
// conflicted `git pull` (behind its upstream and with unmerged paths) is a merge_conflict first.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectForensics } from '../../src/forensics/index.js';
import { readGitStatus } from '../../src/forensics/git-status.js';
import { ForensicsCollector } from '../../src/forensics/summary.js';
import { GitConfig } from '../../src/forensics/git-config.js';

let dir: string;
// Every commit at the same second: the ahead/behind walk must not depend on commit times being apart (on a fast or a
// loaded machine they tie or not by chance; the reader once over-counted `behind` by one when they tied).
const ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_COMMITTER_DATE: '2020-01-01T00:00:00Z', GIT_AUTHOR_DATE: '2020-01-01T00:00:00Z' };
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: ENV,
  });
const commit = (at: string, file: string, text: string) => {
  writeFileSync(path.join(at, file), text);
  git(at, 'add', file);
  git(at, 'commit', '-q', '-m', `${file}: ${text.trim()}`);
};

/** What real git says, read by the porcelain reader. */
async function realStatus(at: string) {
  const out = spawnSync('git', ['status', '--porcelain=v2', '--branch'], { cwd: at, encoding: 'utf8', env: ENV }).stdout;
  const sink = new ForensicsCollector(at);
  await readGitStatus((async function* () { yield out.split('\n'); })(), sink);
  return sink.result().git_status;
}

const repos: Record<string, string> = {};

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'navkernel-git-read-'));
  const up = path.join(dir, 'upstream');
  git(dir, 'init', '-q', up);
  commit(up, 'f.txt', 'one\n');
  commit(up, 'g.txt', 'base\n');
  const clone = (name: string, ...args: string[]) => {
    const at = path.join(dir, name);
    git(dir, 'clone', '-q', ...args, up, at);
    return at;
  };
  repos.behind = clone('behind');
  repos.ahead = clone('ahead');
  repos.diverged = clone('diverged');
  repos.pulled = clone('pulled');
  repos.shallow = clone('shallow', '--depth', '1', '--no-local');
  repos.detached = clone('detached');
  repos.gone = clone('gone');
  repos.index4 = clone('index4');
  for (const n of ['two', 'three']) commit(up, 'f.txt', `${n}\n`);
  commit(up, 'g.txt', 'upstream side\n');
  for (const at of [repos.behind, repos.diverged, repos.pulled, repos.shallow, repos.index4]) git(at!, 'fetch', '-q');
  commit(repos.ahead!, 'h.txt', 'mine\n');
  commit(repos.diverged!, 'h.txt', 'mine\n');
  commit(repos.diverged!, 'i.txt', 'mine too\n');
  // A pull that conflicts: behind and ahead of its upstream, g.txt unmerged.
  commit(repos.pulled!, 'g.txt', 'my side\n');
  spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'pull', '--no-rebase', '-q'], { cwd: repos.pulled, env: ENV });
  git(repos.detached!, 'checkout', '-q', '--detach', 'HEAD~1');
  git(repos.gone!, 'update-ref', '-d', 'refs/remotes/origin/main');
  git(repos.index4!, 'update-index', '--index-version', '4');
  // A local branch tracking another local branch (remote ".").
  repos.local = path.join(dir, 'local');
  git(dir, 'init', '-q', repos.local);
  commit(repos.local, 'a.txt', 'a\n');
  git(repos.local, 'checkout', '-q', '-b', 'topic', '--track', 'main');
  commit(repos.local, 'b.txt', 'b\n');
  // A linked worktree of the diverged clone, and a repository with no commit yet.
  repos.worktree = path.join(dir, 'worktree');
  git(repos.diverged!, 'worktree', 'add', '-q', '-b', 'side', repos.worktree, 'origin/main');
  repos.unborn = path.join(dir, 'unborn');
  git(dir, 'init', '-q', repos.unborn);
  // Commits with long, alike messages, repacked hard: git stores them as deltas (by offset, and by id).
  const long = path.join(dir, 'long');
  git(dir, 'init', '-q', long);
  const message = (n: number) => `c${n}\n\n${'the same long explanation '.repeat(800)}`;
  const longCommit = (n: number) => {
    writeFileSync(path.join(long, 'f.txt'), `${n}\n`);
    git(long, 'add', 'f.txt');
    git(long, 'commit', '-q', '-m', message(n));
  };
  for (let n = 1; n <= 4; n++) longCommit(n);
  repos.deltaOffset = path.join(dir, 'delta-offset');
  repos.deltaRef = path.join(dir, 'delta-ref');
  git(dir, 'clone', '-q', '--no-local', long, repos.deltaOffset);
  git(dir, 'clone', '-q', '--no-local', long, repos.deltaRef);
  for (let n = 5; n <= 7; n++) longCommit(n);
  git(repos.deltaOffset, 'fetch', '-q');
  git(repos.deltaOffset, 'repack', '-q', '-adf', '--depth=50', '--window=250');
  git(repos.deltaRef, 'fetch', '-q');
  git(repos.deltaRef, '-c', 'repack.useDeltaBaseOffset=false', 'repack', '-q', '-adf', '--depth=50', '--window=250');
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reading a repository without running git agrees with git status', () => {
  for (const name of ['behind', 'ahead', 'diverged', 'pulled', 'shallow', 'detached', 'gone', 'index4', 'local', 'worktree', 'unborn', 'deltaOffset', 'deltaRef']) {
    it(name, async () => {
      const at = repos[name]!;
      const expected = await realStatus(at);
      const f = await collectForensics({ git: at });
      expect(f.git_status).toEqual(expected);
    });
  }

  it('the shapes are the ones meant (so the comparison above is not vacuous)', async () => {
    expect((await collectForensics({ git: repos.behind! })).git_status).toEqual({ branch: 'main', upstream: 'origin/main', ahead: 0, behind_upstream: 3, diverged: false });
    expect((await collectForensics({ git: repos.diverged! })).git_status).toMatchObject({ ahead: 2, behind_upstream: 3, diverged: true });
    expect((await collectForensics({ git: repos.detached! })).git_status).toEqual({ branch: '(detached)' });
    expect((await collectForensics({ git: repos.gone! })).git_status).toEqual({ branch: 'main', upstream: 'origin/main' });
    expect((await collectForensics({ git: repos.local! })).git_status).toMatchObject({ branch: 'topic', upstream: 'main', ahead: 1, behind_upstream: 0 });
    // (repack.useDeltaBaseOffset=false makes git write deltas that name their base by id instead of by offset.)
    for (const name of ['deltaOffset', 'deltaRef']) {
      expect((await collectForensics({ git: repos[name]! })).git_status, name).toMatchObject({ ahead: 0, behind_upstream: 3 });
      // The commits really are stored as deltas.
      const pack = execFileSync('sh', ['-c', 'git verify-pack -v .git/objects/pack/*.idx'], { cwd: repos[name], encoding: 'utf8' });
      expect(pack.split('\n').filter((l) => / commit .* [0-9a-f]{40}$/.test(l)).length, name).toBeGreaterThan(1);
    }
  });

  it('a conflicted git pull (behind its upstream, g.txt unmerged) gives failure_signature merge_conflict', async () => {
    const f = await collectForensics({ git: repos.pulled! });
    expect(f.git_status).toMatchObject({ branch: 'main', ahead: 1, behind_upstream: 3, diverged: true, conflicts: ['g.txt'] });
    expect(f.signatures).toEqual(['merge_conflict', 'upstream_diverged']);
    expect(f.failure_signature).toBe('merge_conflict');
    // The same from real git's own output, saved to a file.
    const saved = path.join(dir, 'pulled-status.txt');
    writeFileSync(saved, spawnSync('git', ['status', '--porcelain=v2', '--branch'], { cwd: repos.pulled, encoding: 'utf8', env: ENV }).stdout);
    expect((await collectForensics({ files: [saved] })).failure_signature).toBe('merge_conflict');
  });
});

describe('the config reader agrees with git config --file', () => {
  it('quotes, escapes, comments, continuations, case, the old [section.sub] spelling and repeated keys', () => {
    const file = path.join(dir, 'odd.config');
    writeFileSync(
      file,
      [
        '[core]',
        '\tbare = false ; a comment',
        '[Branch "Feature/X"]',
        '\tREMOTE = up # trailing comment',
        '\tmerge = "refs/heads/has # hash"',
        '[remote "up"]',
        '\tfetch = +refs/heads/*:refs/remotes/up/*',
        '\tfetch = +refs/tags/*:refs/tags/*',
        '\turl = "a\\"b" \\',
        '  continued',
        '[remote.Old]',
        '\turl = old-style',
        '[empty]',
        '\tflag',
        '',
      ].join('\n'),
    );
    const config = new GitConfig(readFileSync(file, 'utf8'));
    const real = (key: string, all = false, bool = false) =>
      spawnSync('git', ['config', '--file', file, ...(bool ? ['--type=bool'] : []), all ? '--get-all' : '--get', key], { encoding: 'utf8', env: ENV }).stdout.replace(/\n$/, '');
    for (const key of ['core.bare', 'branch.Feature/X.remote', 'branch.Feature/X.merge', 'remote.up.url', 'remote.old.url']) {
      expect(config.get(key) ?? '', key).toBe(real(key));
    }
    // A key without `=` is a boolean true.
    expect(config.get('empty.flag')).toBe(real('empty.flag', false, true));
    expect(config.getAll('remote.up.fetch')).toEqual(real('remote.up.fetch', true).split('\n'));
    expect(config.get('branch.feature/x.remote')).toBeUndefined(); // subsections are case-sensitive
  });
});
