import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the resident navigator listens: a Unix socket in a folder only this user can enter, one socket per build of
 * the CLI (its module's path and mtime), so a rebuilt or another checkout never answers for this one. No network
 * port: the folder's permissions are what keep other users out.
 */

/** The folder of this user's sockets: NAVKERNEL_RESIDENT_DIR, else `navkernel-<uid>` in XDG_RUNTIME_DIR or the temp folder. */
export function residentDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NAVKERNEL_RESIDENT_DIR) return path.resolve(env.NAVKERNEL_RESIDENT_DIR);
  return path.join(env.XDG_RUNTIME_DIR || os.tmpdir(), `navkernel-${process.getuid?.() ?? 'user'}`);
}

/**
 * The folder made (mode 0700) when missing; undefined unless it is a real folder (not a symlink) of this user that
 * no one else may enter — then nothing is handed to a resident and none is started.
 */
export function privateDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st || st.isSymbolicLink() || !st.isDirectory()) return undefined;
  if (process.getuid && st.uid !== process.getuid()) return undefined;
  if ((st.mode & 0o077) !== 0) return undefined;
  return dir;
}

/** A Unix socket path longer than this does not bind on Linux (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;

/** The socket of the CLI module `cliModule` (a file URL) in `dir`, or undefined when the module is missing or the path too long. */
export function socketPath(dir: string, cliModule: string): string | undefined {
  const st = statSync(fileURLToPath(cliModule), { throwIfNoEntry: false });
  if (!st) return undefined;
  const id = createHash('sha256').update(`${cliModule}\0${st.mtimeMs}`).digest('hex').slice(0, 16);
  const file = path.join(dir, `navigate-${id}.sock`);
  return Buffer.byteLength(file) <= MAX_SOCKET_PATH ? file : undefined;
}
