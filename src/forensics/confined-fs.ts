import { constants, promises as fsp } from 'node:fs';
import path from 'node:path';

/** Whether `real` (a real path) is `folder` or lies inside it. */
export function within(folder: string, real: string): boolean {
  const rel = path.relative(folder, real);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** An error that a reader takes for "no such file" (ENOENT), so libraries treat a refused path as absent. */
function refused(p: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(`refused: ${path.basename(p)} lies outside the folders this read may use`);
  e.code = 'ENOENT';
  return e;
}

function readOnly(): never {
  const e: NodeJS.ErrnoException = new Error('refused: this file system is read-only');
  e.code = 'EROFS';
  throw e;
}

/**
 * A read-only `fs.promises` over `folders` (real paths): a path lexically outside them, or one that a symbolic
 * link on the way takes outside, is refused as ENOENT (so a library treats it as absent and prints nothing); every
 * write fails. A library given it can neither write nor follow a link out. The shape is what isomorphic-git takes
 * as `fs` (`{ promises }`).
 */
export function confinedFs(folders: readonly string[]) {
  // Folders already seen to be real folders (not links): a path below them needs one lstat per new step only.
  const realDirs = new Set<string>(folders);
  const check = async (p: string): Promise<string> => {
    if (typeof p !== 'string') throw refused(String(p));
    const abs = path.resolve(p);
    const base = folders.find((f) => within(f, abs));
    if (base === undefined) throw refused(p);
    let at = base;
    for (const part of path.relative(base, abs).split(path.sep).filter(Boolean)) {
      at = path.join(at, part);
      if (realDirs.has(at)) continue;
      const st = await fsp.lstat(at);
      if (st.isSymbolicLink()) {
        const real = await fsp.realpath(abs);
        if (!folders.some((f) => within(f, real))) throw refused(p);
        return real;
      }
      if (st.isDirectory()) realDirs.add(at);
    }
    return abs;
  };
  // Opened without blocking (a FIFO planted where a file is expected would block a plain open until a writer
  // comes) and checked on the open handle: only a regular file is read, so nothing can swap one in between.
  const openRegular = async (p: string) => {
    const real = await check(p);
    const fh = await fsp.open(real, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = await fh.stat();
    if (!st.isFile()) {
      await fh.close();
      throw refused(p);
    }
    return { fh, size: st.size };
  };
  const promises = {
    /** A regular file's content, refused (EFBIG) past `maxBytes` (default 256 MiB) before anything is read. */
    readFile: async (p: string, options?: BufferEncoding, maxBytes = 256 * 1024 * 1024) => {
      const { fh, size } = await openRegular(p);
      try {
        if (size > maxBytes) {
          const e: NodeJS.ErrnoException = new Error(`refused: ${path.basename(p)} is larger than ${maxBytes} bytes`);
          e.code = 'EFBIG';
          throw e;
        }
        return options ? await fh.readFile({ encoding: options }) : await fh.readFile();
      } finally {
        await fh.close();
      }
    },
    readdir: async (p: string) => fsp.readdir(await check(p)),
    open: async (p: string) => (await openRegular(p)).fh,
    stat: async (p: string) => fsp.stat(await check(p)),
    // lstat looks at the link itself: its folder must be allowed, the link is not followed.
    lstat: async (p: string) => {
      await check(path.dirname(p));
      return fsp.lstat(p);
    },
    readlink: async (p: string) => {
      await check(path.dirname(p));
      return fsp.readlink(p);
    },
    writeFile: async () => readOnly(),
    mkdir: async () => readOnly(),
    rmdir: async () => readOnly(),
    rm: async () => readOnly(),
    unlink: async () => readOnly(),
    symlink: async () => readOnly(),
    chmod: async () => readOnly(),
  };
  return { promises };
}
