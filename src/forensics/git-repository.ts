import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { confinedFs, within } from './confined-fs.js';
import { GitConfig } from './git-config.js';
import { ObjectReader } from './git-objects.js';

/**
 * What `git status --porcelain=v2 --branch` says about a work tree's branch and merge state, read from the
 * repository's files (HEAD, config, refs, the index, commits). Nothing here runs git: a repository's configuration (filters, fsmonitor, hooks, diff or textconv drivers, pagers,
 * includes) names programs that are never started, because nothing that could start them is called.
 */
export interface RepositoryState {
  /** The checked-out branch, `(detached)` when HEAD names a commit. */
  branch: string;
  /** The upstream's short name (`origin/main`) when the branch has one configured. */
  upstream?: string;
  /** Commits on the branch and not on its upstream, and the reverse (absent when the upstream ref is missing). */
  ahead?: number;
  behind?: number;
  /** Unmerged paths (index entries at stage 1-3), repository-relative, sorted as the index keeps them. */
  conflicts: string[];
}

/** Why a folder could not be read as a work tree (the message names no host path). */
export class RepositoryError extends Error {
  constructor(
    message: string,
    readonly outside = false,
  ) {
    super(message);
    this.name = 'RepositoryError';
  }
}

export interface ReadRepositoryOptions {
  /**
   * The highest folder searched for the repository (a real path): a work tree above it is not found, and the
   * repository's own folders (its git dir and common dir) must lie inside it. Undefined: upward to `/`, as git.
   */
  ceiling?: string;
}

/** The most commits walked to count ahead/behind: past it the counts are left out, not guessed. */
export const MAX_COMMITS_WALKED = 200_000;

/** The state of the work tree at or above `dir` (searching no higher than the ceiling). */
export async function readRepository(dir: string, options: ReadRepositoryOptions = {}): Promise<RepositoryState> {
  const start = await fsp.realpath(dir).catch(() => {
    throw new RepositoryError('no such folder');
  });
  const ceiling = options.ceiling;
  if (ceiling !== undefined && !within(ceiling, start)) throw new RepositoryError('refused: the folder lies outside the reports root', true);
  const { gitdir, commondir } = await discover(start, ceiling);
  const fs = confinedFs(commondir === gitdir ? [gitdir] : [gitdir, commondir]).promises;
  const readText = async (file: string, maxBytes = 1024 * 1024): Promise<string> => {
    const st = await fs.stat(file);
    if (!st.isFile() || st.size > maxBytes) throw new RepositoryError(`not a git work tree: ${path.basename(file)} is not a small file`);
    return String(await fs.readFile(file, 'utf8'));
  };

  const head = (
    await readText(path.join(gitdir, 'HEAD')).catch((e: unknown) => {
      throw e instanceof RepositoryError ? e : new RepositoryError('not a git work tree: it has no readable HEAD');
    })
  ).trim();
  const symbolic = /^ref:\s*(refs\/heads\/\S+)$/.exec(head);
  if (!symbolic && !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head)) throw new RepositoryError('not a git work tree: HEAD is not a ref or an object id');
  const branch = symbolic ? symbolic[1]!.slice('refs/heads/'.length) : '(detached)';
  const state: RepositoryState = { branch, conflicts: await unmergedPaths(path.join(gitdir, 'index'), (f) => fs.readFile(f) as Promise<Buffer>) };
  if (!symbolic) return state;

  const config = new GitConfig(await readText(path.join(commondir, 'config')).catch(() => ''));
  const remote = config.get(`branch.${branch}.remote`);
  const merge = config.get(`branch.${branch}.merge`);
  if (remote === undefined || merge === undefined || !merge.startsWith('refs/')) return state;
  const tracking = remote === '.' ? merge : trackingRef(merge, remote, config.getAll(`remote.${remote}.fetch`));
  if (!tracking) return state;
  state.upstream = shortName(tracking);

  const refs = new Refs(commondir, readText);
  const [ours, theirs] = await Promise.all([refs.resolve(symbolic[1]!), refs.resolve(tracking)]);
  if (!ours || !theirs) return state;
  const shallow = new Set((await readText(path.join(commondir, 'shallow')).catch(() => '')).split('\n').filter(Boolean));
  const format = config.get('extensions.objectformat') === 'sha256' ? 'sha256' : 'sha1';
  const objects = new ObjectReader(fs, path.join(commondir, 'objects'), format);
  try {
    const counted = await aheadBehind(ours, theirs, async (oid) => {
      const c = await objects.commit(oid);
      return shallow.has(oid) ? { ...c, parents: [] } : c;
    });
    if (counted) (state.ahead = counted.ahead), (state.behind = counted.behind);
  } finally {
    await objects.close();
  }
  return state;
}

/** Refs read from their files: a loose ref, else `packed-refs`; symbolic refs followed a few steps. */
class Refs {
  private packed: Promise<Map<string, string>> | undefined;
  constructor(
    private readonly commondir: string,
    private readonly readText: (file: string, maxBytes?: number) => Promise<string>,
  ) {}

  async resolve(ref: string, depth = 0): Promise<string | undefined> {
    if (depth > 5 || !/^refs\/[^\0]+$/.test(ref) || ref.split('/').some((p) => p === '..' || p === '.' || p === '')) return undefined;
    const loose = await this.readText(path.join(this.commondir, ref)).catch(() => undefined);
    const value = loose?.trim() ?? (await this.packedRefs()).get(ref);
    if (value === undefined) return undefined;
    const sym = /^ref:\s*(\S+)$/.exec(value);
    if (sym) return this.resolve(sym[1]!, depth + 1);
    return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(value) ? value : undefined;
  }

  private packedRefs(): Promise<Map<string, string>> {
    this.packed ??= this.readText(path.join(this.commondir, 'packed-refs'), 64 * 1024 * 1024).then(
      (text) => new Map(text.split('\n').flatMap((l) => (/^[0-9a-f]{40}/.test(l) ? [[l.slice(l.indexOf(' ') + 1).trim(), l.slice(0, l.indexOf(' '))] as [string, string]] : []))),
      () => new Map(),
    );
    return this.packed;
  }
}

/** The repository's git dir and common dir, found at or above `start` and no higher than the ceiling. */
async function discover(start: string, ceiling: string | undefined): Promise<{ gitdir: string; commondir: string }> {
  for (let at = start; ; ) {
    const dotgit = path.join(at, '.git');
    const st = await fsp.stat(dotgit).catch(() => undefined);
    if (st?.isDirectory() || st?.isFile()) {
      let gitdir = await fsp.realpath(dotgit);
      if (ceiling !== undefined && !within(ceiling, gitdir)) throw new RepositoryError("refused: the repository's git folder lies outside the reports root", true);
      if (st.isFile()) {
        // A worktree or submodule: `.git` is a file naming the git dir.
        const m = /^gitdir:\s*(.+?)\s*$/m.exec(await smallFile(gitdir));
        if (!m) throw new RepositoryError('not a git work tree: .git is a file without a gitdir line');
        gitdir = await fsp.realpath(path.resolve(at, m[1]!)).catch(() => {
          throw new RepositoryError('not a git work tree: the git dir that .git names does not exist');
        });
      }
      if (ceiling !== undefined && !within(ceiling, gitdir)) throw new RepositoryError("refused: the repository's git folder lies outside the reports root", true);
      const common = await smallFile(path.join(gitdir, 'commondir')).catch(() => undefined);
      const commondir = common ? await fsp.realpath(path.resolve(gitdir, common.trim())).catch(() => gitdir) : gitdir;
      if (ceiling !== undefined && !(within(ceiling, gitdir) && within(ceiling, commondir))) {
        throw new RepositoryError("refused: the repository's git folder lies outside the reports root", true);
      }
      return { gitdir, commondir };
    }
    const up = path.dirname(at);
    if ((ceiling !== undefined && at === ceiling) || up === at) break;
    at = up;
  }
  throw new RepositoryError(ceiling !== undefined ? 'not a git work tree (no .git in it or above it up to the reports root)' : 'not a git work tree (no .git in it or above it)');
}

/** A small text file read during discovery (`.git` as a file, `commondir`), its real path already checked. */
async function smallFile(file: string): Promise<string> {
  const st = await fsp.lstat(file);
  if (!st.isFile() || st.size > 64 * 1024) throw new RepositoryError(`not a git work tree: ${path.basename(file)} is not a small file`);
  return fsp.readFile(file, 'utf8');
}

/** `refs/heads/main` fetched from `remote` by its refspecs (`+refs/heads/*:refs/remotes/origin/*`): the tracking ref. */
export function trackingRef(merge: string, remote: string, refspecs: readonly string[]): string | undefined {
  for (const spec of refspecs) {
    const m = /^\+?([^:]+):(.+)$/.exec(spec.trim());
    if (!m) continue;
    const [src, dst] = [m[1]!, m[2]!];
    if (src.endsWith('*') && dst.endsWith('*')) {
      const prefix = src.slice(0, -1);
      if (merge.startsWith(prefix)) return dst.slice(0, -1) + merge.slice(prefix.length);
    } else if (src === merge) return dst;
  }
  // No refspec (a remote configured by hand): git has no tracking ref then either; the default layout is the guess.
  return refspecs.length ? undefined : `refs/remotes/${remote}/${merge.replace(/^refs\/heads\//, '')}`;
}

/** How git shortens a ref for `# branch.upstream`. */
function shortName(ref: string): string {
  for (const prefix of ['refs/heads/', 'refs/remotes/', 'refs/tags/', 'refs/']) if (ref.startsWith(prefix)) return ref.slice(prefix.length);
  return ref;
}

/**
 * Commits reachable from `ours` and not `theirs` (ahead) and the reverse (behind), as `git rev-list --left-right
 * --count ours...theirs`: both sides are painted down in committer-time order until every commit still queued is
 * reachable from both, so only the commits since the merge base are read. Undefined past
 * {@link MAX_COMMITS_WALKED} commits or when a commit cannot be read.
 */
export async function aheadBehind(
  ours: string,
  theirs: string,
  read: (oid: string) => Promise<{ parents: string[]; time: number }>,
): Promise<{ ahead: number; behind: number } | undefined> {
  if (ours === theirs) return { ahead: 0, behind: 0 };
  const LEFT = 1;
  const RIGHT = 2;
  const flags = new Map<string, number>();
  const info = new Map<string, { parents: string[]; time: number }>();
  const queue: { oid: string; time: number }[] = [];
  const load = async (oid: string) => {
    let c = info.get(oid);
    if (!c) info.set(oid, (c = await read(oid)));
    return c;
  };
  // The oldest commit time seen on one side only: a commit reached from one side can still turn out to be reachable
  // from both while a commit of both sides at least as new is queued (commits made in the same second tie).
  let oldestSingle = Infinity;
  const push = async (oid: string, flag: number) => {
    const had = flags.get(oid) ?? 0;
    if ((had | flag) === had) return;
    flags.set(oid, had | flag);
    const { time } = await load(oid);
    if ((had | flag) !== (LEFT | RIGHT)) oldestSingle = Math.min(oldestSingle, time);
    // Insert keeping the queue sorted by time, newest last (popped first).
    let lo = 0;
    let hi = queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (queue[mid]!.time <= time) lo = mid + 1;
      else hi = mid;
    }
    queue.splice(lo, 0, { oid, time });
  };
  try {
    await push(ours, LEFT);
    await push(theirs, RIGHT);
    while (queue.length > 0 && (queue.some((q) => flags.get(q.oid) !== (LEFT | RIGHT)) || queue[queue.length - 1]!.time >= oldestSingle)) {
      if (info.size > MAX_COMMITS_WALKED) return undefined;
      const { oid } = queue.pop()!;
      const f = flags.get(oid)!;
      for (const parent of (await load(oid)).parents) await push(parent, f);
    }
  } catch {
    return undefined;
  }
  let ahead = 0;
  let behind = 0;
  for (const f of flags.values()) {
    if (f === LEFT) ahead++;
    else if (f === RIGHT) behind++;
  }
  return { ahead, behind };
}

/**
 * The unmerged paths of a git index (format versions 2-4), read from the file: an entry's stage is bits 12-13 of
 * its flags. Each path once, in index order. An absent index has none.
 */
export async function unmergedPaths(indexFile: string, readFile: (file: string) => Promise<Buffer> = (f) => fsp.readFile(f)): Promise<string[]> {
  const buf = await readFile(indexFile).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw new RepositoryError('cannot read the index');
  });
  if (!buf) return [];
  const bad = () => new RepositoryError('not a git work tree: the index is malformed');
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') throw bad();
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) throw bad();
  const count = buf.readUInt32BE(8);
  // SHA-1 (20-byte ids) unless the entries only line up with SHA-256 (32-byte ids).
  const idBytes = guessIdBytes(buf, version, count);
  const out: string[] = [];
  let at = 12;
  let previous = '';
  for (let i = 0; i < count; i++) {
    const entryStart = at;
    const flagsAt = at + 40 + idBytes;
    if (flagsAt + 2 > buf.length) throw bad();
    const flags = buf.readUInt16BE(flagsAt);
    let p = flagsAt + 2;
    if (version >= 3 && flags & 0x4000) p += 2;
    let name: string;
    if (version === 4) {
      // A varint of how many bytes of the previous path to drop, then the rest, NUL-terminated.
      let drop = 0;
      let byte: number;
      let first = true;
      do {
        if (p >= buf.length) throw bad();
        byte = buf[p++]!;
        drop = first ? byte & 0x7f : ((drop + 1) << 7) | (byte & 0x7f);
        first = false;
      } while (byte & 0x80);
      const end = buf.indexOf(0, p);
      if (end < 0 || drop > previous.length) throw bad();
      name = previous.slice(0, previous.length - drop) + buf.toString('utf8', p, end);
      at = end + 1;
    } else {
      const end = buf.indexOf(0, p);
      if (end < 0) throw bad();
      name = buf.toString('utf8', p, end);
      // Entries are padded with 1-8 NULs to a multiple of 8 bytes.
      at = entryStart + Math.ceil((end - entryStart + 1) / 8) * 8;
    }
    previous = name;
    const stage = (flags >> 12) & 3;
    if (stage > 0 && out[out.length - 1] !== name) out.push(name);
  }
  return out;
}

/** 20 or 32: which object id length makes the first entry's path end where its padding says (v2/v3), else 20. */
function guessIdBytes(buf: Buffer, version: number, count: number): number {
  if (count === 0 || version === 4) return 20;
  for (const n of [20, 32]) {
    const flagsAt = 12 + 40 + n;
    if (flagsAt + 2 > buf.length) continue;
    const nameLength = buf.readUInt16BE(flagsAt) & 0x0fff;
    const extended = version >= 3 && buf.readUInt16BE(flagsAt) & 0x4000 ? 2 : 0;
    const nameAt = flagsAt + 2 + extended;
    if (nameLength < 0x0fff && buf[nameAt + nameLength] === 0 && buf.indexOf(0, nameAt) === nameAt + nameLength) return n;
  }
  return 20;
}
