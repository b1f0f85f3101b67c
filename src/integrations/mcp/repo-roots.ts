import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { NavkernelError } from '../../contracts/index.js';
import { isInside } from '../../repomap/index.js';

/**
 * The repository folder a client named, checked against the roots the server was started for: a relative `repo`
 * resolves against the first root; the real path (symlinks followed) must be a root or a folder inside one.
 * Anything else is PATH_OUTSIDE_ROOT; a missing folder PATH_NOT_FOUND.
 */
export function repoInsideRoots(roots: readonly string[], repo: string): string {
  const realRoots = roots.map((r) => realpathSync(r));
  const asked = path.resolve(realRoots[0]!, repo);
  let real: string;
  try {
    real = realpathSync(asked);
  } catch {
    throw new NavkernelError('PATH_NOT_FOUND', `repo ${JSON.stringify(repo)}: no such folder (resolved to ${asked})`);
  }
  if (!realRoots.some((root) => isInside(root, real))) {
    throw new NavkernelError('PATH_OUTSIDE_ROOT', `repo ${JSON.stringify(repo)} is outside the repositories this server was started for (${realRoots.join(', ')}); start it with --repo DIR to allow another`);
  }
  if (!statSync(real).isDirectory()) throw new NavkernelError('PATH_NOT_FOUND', `repo ${JSON.stringify(repo)} is not a folder`);
  return real;
}
