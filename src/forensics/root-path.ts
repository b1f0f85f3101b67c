import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { within } from './confined-fs.js';
import { ReportError } from './report-error.js';

/** Symbolic links followed in one path before it is refused (as the kernel's ELOOP limit). */
const MAX_LINKS = 40;

/**
 * A path a request gave, resolved under the reports root (`realRoot`, a real path) to its real location, or
 * refused. The answer never depends on what exists outside the root: a path that leaves it (lexically, through
 * `..`, or through a symbolic link, dangling or not) is `outside_root` whether or not its target exists, and is
 * never opened; `not_found` is only said of a path whose every step so far lies inside the root. The walk goes
 * one component at a time, expanding links itself, so it never asks the file system about a place outside.
 */
export async function resolveUnderRoot(realRoot: string, given: string, folder: boolean): Promise<string> {
  const outside = () => new ReportError(given, 'outside_root', 'refused: the path lies outside the reports root');
  const missing = () => new ReportError(given, 'not_found', folder ? 'no such folder under the reports root' : 'no such file under the reports root');
  const start = path.resolve(realRoot, given);
  if (!within(realRoot, start)) throw outside();
  const pending = path.relative(realRoot, start).split(path.sep).filter(Boolean);
  let at = realRoot;
  let links = 0;
  while (pending.length) {
    const part = pending.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      at = path.dirname(at);
      if (!within(realRoot, at)) throw outside();
      continue;
    }
    const next = path.join(at, part);
    const st = await fsp.lstat(next).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined;
      throw new ReportError(given, 'unreadable', `cannot read: ${e.code ?? 'error'}`);
    });
    if (!st) throw missing();
    if (!st.isSymbolicLink()) {
      at = next;
      continue;
    }
    if (++links > MAX_LINKS) throw new ReportError(given, 'unreadable', 'too many symbolic links');
    const target = path.resolve(at, await fsp.readlink(next));
    if (within(realRoot, target)) {
      // Continue from the root with the link's target (lexically inside) and what was left of the path.
      pending.unshift(...path.relative(realRoot, target).split(path.sep).filter(Boolean));
      at = realRoot;
      continue;
    }
    // A link whose target is written outside the root: it may still land inside through another name for the
    // root's folders; anything else (existing or not) is the same refusal.
    const real = await fsp.realpath(target).catch(() => undefined);
    if (real === undefined || !within(realRoot, real)) throw outside();
    pending.unshift(...path.relative(realRoot, real).split(path.sep).filter(Boolean));
    at = realRoot;
  }
  return at;
}
