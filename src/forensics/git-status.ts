import { linesOf } from './read-report.js';
import { readRepository, RepositoryError, type ReadRepositoryOptions } from './git-repository.js';
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
 * The same state read live from a work tree, from its files: no git process runs, so nothing in the repository
 * (its config, attributes, hooks) can name a program that runs. With a ceiling (the reports root), the repository
 * is searched no higher than it and its git folders must lie inside it. Failures are typed and name only `dir`.
 */
export async function readGitDir(dir: string, sink: ForensicsCollector, options: ReadRepositoryOptions = {}): Promise<void> {
  let state;
  try {
    state = await readRepository(dir, options);
  } catch (e) {
    if (e instanceof RepositoryError) throw new ReportError(dir, e.outside ? 'outside_root' : 'git_failed', e.message);
    throw new ReportError(dir, 'git_failed', `cannot read the repository: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  const { branch, upstream, ahead, behind, conflicts } = state;
  sink.gitStatus(
    {
      branch,
      ...(upstream !== undefined ? { upstream } : {}),
      ...(ahead !== undefined ? { ahead } : {}),
      ...(behind !== undefined ? { behind_upstream: behind } : {}),
      ...(ahead !== undefined && behind !== undefined ? { diverged: ahead > 0 && behind > 0 } : {}),
      ...(conflicts.length ? { conflicts: conflicts.slice(0, CAPS.conflicts).map((f) => sink.path(f) ?? f) } : {}),
    },
    conflicts.length,
  );
}
