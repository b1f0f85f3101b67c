import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { linesOf } from './read-report.js';
import { ReportError } from './report-error.js';
import { CAPS, type ForensicsCollector } from './summary.js';

/**
 * `git status --porcelain=v2 --branch`: branch, upstream, ahead/behind (`# branch.ab +A -B`) and unmerged paths
 * (`u XY …`), conflicted paths capped (the total still counted).
 */
export async function readGitStatus(lines: AsyncIterable<string[]>, sink: ForensicsCollector): Promise<void> {
  let branch: string | undefined;
  let upstream: string | undefined;
  let ahead: number | undefined;
  let behind: number | undefined;
  const conflicts: string[] = [];
  let conflictsTotal = 0;
  for await (const batch of lines) for (const line of batch) {
    if (line.startsWith('# branch.head ')) branch = line.slice(14);
    else if (line.startsWith('# branch.upstream ')) upstream = line.slice(18);
    else if (line.startsWith('# branch.ab ')) {
      const m = /^# branch\.ab \+(\d+) -(\d+)$/.exec(line);
      if (m) (ahead = Number(m[1])), (behind = Number(m[2]));
    } else if (line.startsWith('u ')) {
      // u <XY> <sub> <m1> <m2> <m3> <mW> <h1> <h2> <h3> <path>
      conflictsTotal++;
      const file = line.split(' ').slice(10).join(' ');
      if (conflicts.length < CAPS.conflicts && file) conflicts.push(sink.path(file) ?? file);
    }
  }
  sink.gitStatus(
    {
      ...(branch !== undefined ? { branch } : {}),
      ...(upstream !== undefined ? { upstream } : {}),
      ...(ahead !== undefined ? { ahead } : {}),
      ...(behind !== undefined ? { behind_upstream: behind } : {}),
      ...(ahead !== undefined && behind !== undefined ? { diverged: ahead > 0 && behind > 0 } : {}),
      ...(conflictsTotal ? { conflicts } : {}),
    },
    conflictsTotal,
  );
}

/**
 * The same read live from a work tree. The repository is untrusted: its configuration must not run anything
 * (core.fsmonitor off, no optional locks, no pager, no prompts), and git's own failure is a typed error.
 */
export async function readGitDir(dir: string, sink: ForensicsCollector, timeoutMs = 30_000): Promise<void> {
  const st = await stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new ReportError(dir, 'not_found', 'no such folder');
  const child = spawn('git', ['-c', 'core.fsmonitor=false', '-c', 'core.untrackedCache=false', '--no-optional-locks', 'status', '--porcelain=v2', '--branch'], {
    cwd: dir,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => void (stderr.length < 4096 && (stderr += d)));
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, error }));
    child.on('close', (code) => resolve({ code }));
  });
  child.stdout.setEncoding('utf8');
  await readGitStatus(linesOf(child.stdout as AsyncIterable<string>), sink);
  const { code, error } = await exited;
  if (error || code !== 0) throw new ReportError(dir, 'git_failed', `git status failed: ${(error?.message ?? stderr.trim().split('\n')[0]) || `exit code ${code}`}`);
}
