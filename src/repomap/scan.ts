import { closeSync, constants, existsSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { NavkernelError } from '../contracts/errors.js';
import { BUILD_DIRS_BESIDE_MANIFEST, BUILD_MANIFESTS, BUILD_OUTPUT_DIRS, isGeneratedFileName } from './file-class.js';
import { isInside } from './safe-path.js';

/** A file the repo map may read. */
export interface ScannedFile {
  /** Repo-relative POSIX path. */
  path: string;
  size: number;
  mtimeMs: number;
}

/** A file left out, with why (reported, never read). */
export interface SkippedFile {
  path: string;
  reason: 'gitignored' | 'excluded' | 'binary' | 'oversized' | 'symlink_outside_root' | 'symlink_dir' | 'unreadable' | 'not_a_regular_file' | 'generated';
}

export interface ScanOptions {
  /** Files larger than this are skipped (default 1 MiB). */
  maxFileBytes?: number;
  /** Extra globs to leave out (repo-relative). */
  exclude?: string[];
  /** Honour .gitignore files (default true). */
  gitignore?: boolean;
  /**
   * Binary-sniff verdicts of an earlier scan, by path: `[size, mtimeMs, 1 if binary]`. A file whose size
   * and mtime match is not opened again (a warm scan reads no file content at all).
   */
  verdicts?: Record<string, [number, number, 0 | 1]>;
}

export interface ScanResult {
  root: string;
  files: ScannedFile[];
  skipped: SkippedFile[];
  /** The sniff verdicts of this scan (to persist and pass back as `verdicts`). */
  verdicts: Record<string, [number, number, 0 | 1]>;
}

/** Stands for the stat of a directory the listing already typed (only its kind is read). */
const DIR = { isDirectory: () => true, isFile: () => false, isSymbolicLink: () => false, size: 0, mtimeMs: 0 };

const ALWAYS_SKIPPED_DIRS = new Set(['.git', '.hg', '.svn', 'node_modules']);
const BINARY_EXT = new Set(
  '.png .jpg .jpeg .gif .bmp .ico .webp .avif .tiff .pdf .zip .gz .tgz .bz2 .xz .7z .rar .jar .war .class .so .dll .dylib .exe .bin .o .a .wasm .woff .woff2 .ttf .otf .eot .mp3 .mp4 .mov .avi .webm .wav .flac .ogg .sqlite .db .pyc .pyo .node .psd .sketch'.split(' '),
);

/**
 * Matchers of the .gitignore texts this process has read, by text: a long-lived process scanning a repository again
 * reuses each matcher and with it the verdicts it keeps by path (the same answers; most of a warm scan's time
 * otherwise). Bounded: past IGNORE_MEMO_MAX texts the oldest is dropped.
 */
const ignoreByText = new Map<string, Ignore>();
const IGNORE_MEMO_MAX = 64;

function ignoreOf(text: string): Ignore {
  let ig = ignoreByText.get(text);
  if (!ig) {
    ig = ignore().add(text);
    ignoreByText.set(text, ig);
    if (ignoreByText.size > IGNORE_MEMO_MAX) ignoreByText.delete(ignoreByText.keys().next().value!);
  }
  return ig;
}

function looksBinary(abs: string, size: number): boolean {
  if (BINARY_EXT.has(path.extname(abs).toLowerCase())) return true;
  if (size === 0) return false;
  const fd = openSync(abs, 'r');
  try {
    const buf = Buffer.alloc(Math.min(8192, size));
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).includes(0);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads `rel` under `root` only if it is a regular file inside the root no larger than `maxBytes`
 * (a symlink is followed only when its target stays inside). Returns the text, undefined when there is
 * no such path, or why it was not read — a FIFO would block the read, `/dev/zero` never ends, and a
 * symlink could read outside the repository.
 */
export function readRegularFile(root: string, rel: string, maxBytes: number): string | undefined | { reason: SkippedFile['reason'] } {
  const abs = path.join(root, rel);
  let st;
  try {
    st = lstatSync(abs);
  } catch {
    return undefined;
  }
  if (st.isSymbolicLink()) {
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      return { reason: 'unreadable' };
    }
    if (!isInside(root, real)) return { reason: 'symlink_outside_root' };
    st = statSync(real);
  }
  if (!st.isFile()) return { reason: 'not_a_regular_file' };
  if (st.size > maxBytes) return { reason: 'oversized' };
  try {
    const fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      // Read no more than the cap even if the file grew since the stat.
      const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
      const n = readSync(fd, buf, 0, buf.length, 0);
      if (n > maxBytes) return { reason: 'oversized' };
      return buf.subarray(0, n).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return { reason: 'unreadable' };
  }
}

/**
 * Lists the text files of a repository: sorted, inside the root only (symlinks leaving it are skipped,
 * symlinked directories are not followed), `.gitignore`d, binary and oversized files left out.
 */
export function scanRepo(rootDir: string, options: ScanOptions = {}): ScanResult {
  if (!existsSync(rootDir) || !statSync(rootDir).isDirectory()) {
    throw new NavkernelError('REPO_NOT_FOUND', `repository not found: ${rootDir}`);
  }
  const root = realpathSync(rootDir);
  const maxBytes = options.maxFileBytes ?? 1024 * 1024;
  const excluded = options.exclude?.length ? picomatch(options.exclude, { dot: true }) : undefined;
  const useGitignore = options.gitignore !== false;
  const files: ScannedFile[] = [];
  const skipped: SkippedFile[] = [];
  const known = options.verdicts ?? {};
  const verdicts: Record<string, [number, number, 0 | 1]> = {};
  // Each .gitignore applies to paths relative to its own directory.
  const walk = (dirRel: string, rules: { base: string; ig: Ignore }[]): void => {
    const dirAbs = path.join(root, dirRel);
    const entries = readdirSync(dirAbs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // What the directory holds, by name: no stat of a .gitignore or a manifest that is not there.
    const named = new Map(entries.map((e) => [e.name, e]));
    let active = rules;
    if (useGitignore && named.has('.gitignore')) {
      const giRel = dirRel ? `${dirRel}/.gitignore` : '.gitignore';
      const gi = readRegularFile(root, giRel, maxBytes);
      if (typeof gi === 'string') active = [...rules, { base: dirRel, ig: ignoreOf(gi) }];
      else if (gi) skipped.push({ path: giRel, reason: gi.reason });
    }
    // A listed symlink counts only when its target exists (as existsSync tells).
    const manifestHere = BUILD_MANIFESTS.some((m) => {
      const e = named.get(m);
      return e !== undefined && (!e.isSymbolicLink() || existsSync(path.join(dirAbs, m)));
    });
    const isIgnored = (rel: string, isDir: boolean): boolean =>
      active.some(({ base, ig }) => {
        const sub = base ? rel.slice(base.length + 1) : rel;
        return sub !== '' && ig.ignores(isDir ? `${sub}/` : sub);
      });
    // dirAbs is normalised and a listed name has no separator: concatenation is path.join, without its cost per file.
    const prefix = dirAbs.endsWith(path.sep) ? dirAbs : dirAbs + path.sep;
    for (const e of entries) {
      const rel = dirRel ? `${dirRel}/${e.name}` : e.name;
      const abs = prefix + e.name;
      // A directory (not a symlink to one) needs no stat: its listing says what it is.
      let st: { isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean; size: number; mtimeMs: number } = e.isDirectory() ? DIR : lstatSync(abs);
      if (st.isSymbolicLink()) {
        let real: string;
        try {
          real = realpathSync(abs);
        } catch {
          skipped.push({ path: rel, reason: 'unreadable' });
          continue;
        }
        if (!isInside(root, real)) {
          skipped.push({ path: rel, reason: 'symlink_outside_root' });
          continue;
        }
        st = statSync(real);
        if (st.isDirectory()) {
          skipped.push({ path: rel, reason: 'symlink_dir' });
          continue;
        }
      }
      if (st.isDirectory()) {
        if (ALWAYS_SKIPPED_DIRS.has(e.name)) continue;
        if (BUILD_OUTPUT_DIRS.has(e.name) || (manifestHere && BUILD_DIRS_BESIDE_MANIFEST.has(e.name))) {
          skipped.push({ path: `${rel}/`, reason: 'generated' });
          continue;
        }
        if (isIgnored(rel, true)) {
          skipped.push({ path: `${rel}/`, reason: 'gitignored' });
          continue;
        }
        if (excluded?.(rel)) {
          skipped.push({ path: `${rel}/`, reason: 'excluded' });
          continue;
        }
        walk(rel, active);
        continue;
      }
      if (!st.isFile()) {
        skipped.push({ path: rel, reason: 'not_a_regular_file' });
        continue;
      }
      if (isIgnored(rel, false)) skipped.push({ path: rel, reason: 'gitignored' });
      else if (isGeneratedFileName(e.name)) skipped.push({ path: rel, reason: 'generated' });
      else if (excluded?.(rel)) skipped.push({ path: rel, reason: 'excluded' });
      else if (st.size > maxBytes) skipped.push({ path: rel, reason: 'oversized' });
      else {
        let binary: boolean;
        const v = known[rel];
        if (v && v[0] === st.size && v[1] === st.mtimeMs) binary = v[2] === 1;
        else {
          try {
            binary = looksBinary(abs, st.size);
          } catch {
            skipped.push({ path: rel, reason: 'unreadable' });
            continue;
          }
        }
        verdicts[rel] = [st.size, st.mtimeMs, binary ? 1 : 0];
        if (binary) skipped.push({ path: rel, reason: 'binary' });
        else files.push({ path: rel, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  walk('', []);
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  files.sort(byPath);
  skipped.sort(byPath);
  return { root, files, skipped, verdicts };
}
