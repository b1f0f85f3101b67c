import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { flushCacheWrites, writeCache } from './cache-writes.js';
import { type Extracted, type Extraction, extractThreads, startExtraction } from './extract-pool.js';
import { compiledMirrors, classifyPath } from './file-class.js';
import { countLines, type FileExtrasSpec, type FileRecord, type FileRecordInput, NOT_PARSED } from './file-record.js';
import { type FileLanguage, headerLanguage, isCodeLanguage, languageOf } from './languages.js';
import type { Outline } from './outline.js';
import { OUTLINE_VERSION } from './queries.js';
import { type ScannedFile, scanRepo, type ScanOptions, type SkippedFile } from './scan.js';

export { NOT_PARSED, countLines };

/**
 * What the index knows of one file: where it is, its content hash and size, and its record (every field of
 * FileRecord, so a field added to the record reaches here through the cache and the workers unchanged).
 */
export interface IndexedFile extends FileRecord {
  path: string;
  language: FileLanguage;
  /** sha256 of the content (hex). */
  hash: string;
  bytes: number;
  lines: number;
  /** Tokens of the full text, estimated from its size (bytes / 4): only loaded text is counted exactly. */
  tokens: number;
  outline: Outline;
}

/** Counters of one indexing run. `parsed` is 0 on a warm run over an unchanged repository. */
export interface IndexStats {
  files: number;
  /** Files read and hashed because their size/mtime changed or were unknown. */
  hashed: number;
  /** Files parsed (outline extracted and tokens counted): cache misses. */
  parsed: number;
  cache_hits: number;
  /** Of the cache hits, records found in another repository's cache (the same content seen at another commit or path). */
  borrowed: number;
  /** Threads the parsing ran on (1 when nothing or little was parsed). */
  threads: number;
  bytes_parsed: number;
}

export interface RepoIndex {
  /** Real path of the repository root. */
  root: string;
  files: IndexedFile[];
  skipped: SkippedFile[];
  stats: IndexStats;
  /** sha256 over the sorted (path, content hash) pairs: the repository state the index describes. */
  state_hash: string;
  /**
   * Texts of the files parsed this run (compiled mirrors left out) when no extras were asked for, by path:
   * the next stage (the navigator's full-text index) reuses them instead of reading the files again.
   */
  texts?: Map<string, string>;
  /** The caller's extras (IndexOptions.extras) of the files read this run, by path (the navigator's text index empties it once it has written them). */
  extras?: Map<string, unknown>;
}

export interface IndexOptions extends ScanOptions {
  /**
   * Directory of the persistent cache (default `runs/.cache` under the working directory; never inside
   * the repository unless pointed there). `false` disables it.
   */
  cacheDir?: string | false;
  /** Called as files are processed (for progress bars). */
  onProgress?: (done: number, total: number) => void;
  /** Called once, after the scan and before any file is read, with what the run expects to do (see IndexPlan). */
  onPlan?: (plan: IndexPlan) => void;
  /** A second extraction run beside the outline on every file read this run (see FileExtrasSpec). */
  extras?: FileExtrasSpec;
  /** Threads for parsing, this one included (default: the cores the load average leaves idle, at most 4; see extractThreads). */
  threads?: number;
  /** Follows the extraction as it happens (see IndexSink). */
  sink?: IndexSink;
}

/**
 * A consumer of the index run's results while the files are still being parsed (the navigator's full-text
 * index writes each file's row as it arrives instead of after the run). Everything is called on this thread.
 */
export interface IndexSink {
  /**
   * Once, when the first file to parse is met, before any is parsed: every file of the repository by path, in
   * index order, and the bytes of the files this run reads (what may need parsing). A sink that has it takes
   * `records` before `begin` when they come in index order (one thread, eager): a chunk of files at a time, as read.
   */
  open?(paths: readonly string[], bytesToRead: number): void;
  /**
   * Once, when every file is read and some are parsed (after `open`; with worker threads, before their results are
   * handed over): every file of the repository (path, language, content hash, and whether it is parsed this run,
   * so `records` will have it), in index order.
   */
  begin(files: readonly { path: string; language: FileLanguage; hash: string; parsed: boolean }[]): void;
  /**
   * As files are parsed, in any order (in index order when before `begin`): each one's position in the list, path,
   * language, content hash, record and extras. `true`: the sink has what it needs of these extras (they are left out of the
   * index's `extras`, not held to the end).
   */
  records(batch: readonly { at: number; path: string; language: FileLanguage; hash: string; record: FileRecord; extras: unknown }[]): boolean | void;
  /** Once, only when worker threads parse: this thread's own work to do while they run, before it takes its share of the files. */
  whileParsing?(): void;
}

/**
 * What an index run expects to do, known after the scan: the files whose size or mtime the cache does not know
 * must be read (and parsed, unless their content is known by hash here or in a sibling cache), and about how long
 * that takes on the threads it will use. An estimate for a progress message, never a measurement.
 */
export interface IndexPlan {
  files: number;
  /** Files to read: new or changed since the cache saw them (0 on a warm run over an unchanged repository). */
  to_read: number;
  bytes_to_read: number;
  threads: number;
  /** Estimated milliseconds to read, parse and index them on those threads (see estimateIndexMs). */
  estimate_ms: number;
}

/**
 * Characters read, parsed and lexed (outline and full-text fields) a millisecond of one thread's CPU, by reader:
 * Python by the lexical reader (python-outline.ts), everything else with tree-sitter or as text. Measured cold here
 * (--no-cache, one thread): sympy (Python) ~11 MB/s, jq (C) ~5, tokio (Rust) ~3.5; round figures a little below.
 */
export const PYTHON_BYTES_PER_MS = 10_000;
export const PARSE_BYTES_PER_MS = 3000;
/** What every cold index pays besides its bytes (compiling the hot code, loading grammars), and a worker's start. */
const FIXED_MS = 200;
const WORKER_START_MS = 150;

/**
 * The plan's estimate in milliseconds for `bytes` read on `threads` threads, of which `pythonBytes` are Python: the
 * CPU the readers need, shared over the threads, on a machine not otherwise busy (a busy one takes longer: the
 * share of a core a process gets there depends on the others' priorities, which the load average does not tell).
 */
export function estimateIndexMs(bytes: number, threads: number, pythonBytes = 0): number {
  if (bytes === 0) return 0;
  const py = Math.min(bytes, pythonBytes);
  const cpu = py / PYTHON_BYTES_PER_MS + (bytes - py) / PARSE_BYTES_PER_MS + FIXED_MS;
  return Math.round(cpu / threads + (threads > 1 ? WORKER_START_MS : 0));
}

interface CacheFile {
  v: string;
  stat: Record<string, [number, number, string]>;
  /** File records by content key (`hash:language[:unparsed]`). */
  entries: Record<string, FileRecord>;
  /** The scan's binary-sniff verdicts (see ScanOptions.verdicts). */
  sniff?: Record<string, [number, number, 0 | 1]>;
}

/** C and C++ files by extension (see headerLanguage). */
const C_FAMILY = /\.(c|h|cc|cpp|cxx|c\+\+|hpp|hh|hxx|h\+\+|ipp|tpp|inl)$/i;
const CACHE_VERSION = `outline${OUTLINE_VERSION}-rec1`;
/** Characters read for parsing between two looks at the worker threads' results. */
const YIELD_BYTES = 256 * 1024;
/** Per-repository cache files kept in a cache folder: older ones (by last use) are deleted. */
export const CACHE_KEEP = 16;

/** Tokens estimated from a size: about 4 bytes a token for code and English (o200k_base averages 3.5–4.5). */
export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / 4);
}

/** Default cache directory: `runs/.cache` of the working directory. */
export function defaultCacheDir(): string {
  return path.resolve('runs', '.cache');
}

function cachePath(cacheDir: string, root: string): string {
  const id = createHash('sha256').update(root).digest('hex').slice(0, 16);
  return path.join(cacheDir, 'repomap', `index-${id}.json`);
}

/**
 * The cache files of `dir` named `prefix…suffix` other than `own`, newest (last written) first. A new
 * repository (a tree extracted at another commit) borrows from them what did not change.
 */
export function siblingCaches(dir: string, prefix: string, suffix: string, own: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: { file: string; mtime: number }[] = [];
  for (const n of names) {
    if (!n.startsWith(prefix) || !n.endsWith(suffix)) continue;
    const file = path.join(dir, n);
    if (file === own) continue;
    try {
      found.push({ file, mtime: statSync(file).mtimeMs });
    } catch {
      // deleted meanwhile
    }
  }
  return found.sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : 1)).map((f) => f.file);
}

/** Deletes the cache files of `dir` past the newest `keep` (with their SQLite side files). */
export function pruneCaches(dir: string, prefix: string, suffix: string, keep = CACHE_KEEP): void {
  for (const file of siblingCaches(dir, prefix, suffix, '').slice(keep)) {
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      try {
        unlinkSync(f);
      } catch {
        // already gone
      }
    }
  }
}

/**
 * Cache files this process read or wrote, by path, with the identity of the file on disk (inode, size, mtime:
 * every write is a rename, so a new inode). A long-lived process (the co-process, `serve`, the explorer)
 * navigating the same repository again skips re-parsing the JSON. Never changed once stored.
 */
const memo = new Map<string, { id: string; cache: CacheFile }>();
const MEMO_MAX = 4;

function fileId(file: string): string | undefined {
  try {
    const st = statSync(file);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return undefined;
  }
}

function remember(file: string, cache: CacheFile, id = fileId(file)): void {
  memo.delete(file);
  if (id === undefined) return;
  memo.set(file, { id, cache });
  if (memo.size > MEMO_MAX) memo.delete(memo.keys().next().value!);
}

/**
 * The last index this process built of a repository with a cache file, by cache file: a long-lived process asked
 * again about an unchanged repository (every scanned path, size and mtime as then, and the cache file the one then
 * written or read) returns the same file records without rebuilding them — the same `files` array, so what callers
 * derive from it can be kept by it (a WeakMap) — and counts as the warm run it stands for.
 */
const lastIndex = new Map<string, { cacheId: string; scan: readonly ScannedFile[]; optionsKey: string; index: RepoIndex }>();

function sameScan(a: readonly ScannedFile[], b: readonly ScannedFile[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.path !== y.path || x.size !== y.size || x.mtimeMs !== y.mtimeMs) return false;
  }
  return true;
}

function loadCache(file: string): CacheFile {
  // The identity is taken before the read: a file replaced meanwhile is read again next time.
  const id = fileId(file);
  const known = memo.get(file);
  if (known && id !== undefined && known.id === id) return known.cache;
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    if (c.v === CACHE_VERSION && c.stat && c.entries) {
      remember(file, c, id);
      return c;
    }
  } catch {
    // missing or corrupt cache: start empty
  }
  return { v: CACHE_VERSION, stat: {}, entries: {} };
}

function safeRealpath(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined; // scanRepo reports the missing repository
  }
}

function sameVerdicts(a: Record<string, [number, number, 0 | 1]>, b: Record<string, [number, number, 0 | 1]>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    const x = a[k]!;
    const y = b[k];
    if (!y || x[0] !== y[0] || x[1] !== y[1] || x[2] !== y[2]) return false;
  }
  return true;
}

/**
 * Indexes a repository: scans it, then for each file reuses the cached record (outline and line count) of
 * its content hash — from this repository's cache, else from the newest other repository's cache in the same
 * folder (the same project at another commit) — or parses it with tree-sitter. Files to parse are spread over
 * worker threads (extractAll). A file that fails to parse gets an outline with `parse_error` (rendered as
 * plain text). Deterministic: files sorted by path, the same records whatever the threads or the cache.
 */
export async function indexRepo(rootDir: string, options: IndexOptions = {}): Promise<RepoIndex> {
  const cacheDir = options.cacheDir === undefined ? defaultCacheDir() : options.cacheDir;
  const preRoot = cacheDir ? safeRealpath(rootDir) : undefined;
  const cfile = cacheDir && preRoot ? cachePath(cacheDir, preRoot) : undefined;
  // Writes of this cache and its siblings an earlier navigation held back land before this run reads them.
  if (cfile) flushCacheWrites(path.dirname(cfile));
  const cache: CacheFile = cfile ? loadCache(cfile) : { v: CACHE_VERSION, stat: {}, entries: {} };
  const scan = scanRepo(rootDir, { ...options, ...(cache.sniff ? { verdicts: cache.sniff } : {}) });
  // What else decides the records: which files are parsed and how (the scan options decided the scan itself).
  const optionsKey = JSON.stringify([options.extras ?? null]);
  const last = cfile ? lastIndex.get(cfile) : undefined;
  if (last && last.optionsKey === optionsKey && last.cacheId === fileId(cfile!) && sameScan(last.scan, scan.files)) {
    const n = scan.files.length;
    options.onPlan?.({ files: n, to_read: 0, bytes_to_read: 0, threads: 1, estimate_ms: 0 });
    options.onProgress?.(n, n);
    const stats: IndexStats = { files: n, hashed: 0, parsed: 0, cache_hits: n, borrowed: 0, bytes_parsed: 0, threads: 1 };
    return { root: scan.root, files: last.index.files, skipped: scan.skipped, stats, state_hash: last.index.state_hash, texts: new Map(), extras: new Map() };
  }
  const next: CacheFile = { v: CACHE_VERSION, stat: {}, entries: {}, sniff: scan.verdicts };
  const stats: IndexStats = { files: scan.files.length, hashed: 0, parsed: 0, cache_hits: 0, borrowed: 0, bytes_parsed: 0, threads: 1 };
  const stateHash = createHash('sha256');
  const texts = new Map<string, string>();
  // Generated and vendored files (declarations, compiled mirrors of sources, bundles) are indexed as text, not parsed.
  const mirrors = compiledMirrors(scan.files.map((f) => f.path));
  const unparsed = (p: string) => mirrors.has(p) || ['generated', 'vendored'].includes(classifyPath(p));
  // `.h` is C or C++ by what the repository's own sources are: its source files, else (a header-only library) its
  // tests and examples too; never its vendored or generated files.
  const cFamily = scan.files.map((f) => f.path).filter((p) => C_FAMILY.test(p) && !unparsed(p));
  const cSources = cFamily.filter((p) => classifyPath(p) === 'source' && !p.toLowerCase().endsWith('.h'));
  const headers = headerLanguage(cSources.length ? cSources : cFamily);
  // Another repository's records, read only when this one's cache misses (a new tree of a project seen before).
  let borrowed: Record<string, FileRecord>[] | undefined;
  const borrow = (key: string): FileRecord | undefined => {
    if (!cfile) return undefined;
    borrowed ??= siblingCaches(path.dirname(cfile), 'index-', '.json', cfile)
      .slice(0, 1)
      .map((f) => loadCache(f).entries);
    for (const e of borrowed) {
      const r = e[key];
      if (r) return r;
    }
    return undefined;
  };
  const keys: string[] = [];
  const hashes: string[] = [];
  const languages: FileLanguage[] = [];
  // The paths of the files parsed (their texts are let go as they are parsed).
  const misses: string[] = [];
  const missAt: number[] = [];
  const wanted = new Set<string>();
  let hits = 0;
  let parsedDone = 0;
  const progress = () => options.onProgress?.(hits + parsedDone, scan.files.length);
  // The extraction starts with the first file to parse, its threads sized by what may need parsing (the files
  // read this run): they parse while this thread reads and hashes the rest.
  let toRead = 0;
  let pythonBytes = 0;
  const expected = scan.files.reduce((sum, f) => {
    const known = cache.stat[f.path];
    if (known && known[0] === f.size && known[1] === f.mtimeMs) return sum;
    toRead++;
    if (f.path.endsWith('.py')) pythonBytes += f.size;
    return sum + f.size;
  }, 0);
  // Decided once (it follows the machine's load): the plan says what the extraction then uses.
  const threads = extractThreads(expected, options.threads);
  if (options.onPlan) {
    const estimate_ms = estimateIndexMs(expected, threads, pythonBytes);
    options.onPlan({ files: scan.files.length, to_read: toRead, bytes_to_read: expected, threads, estimate_ms });
  }
  const sink = options.sink;
  // Results that arrive before the sink is begun (it needs every file's hash) wait for the end of the reading.
  let early: [readonly number[], readonly Extracted[]][] | undefined = sink ? [] : undefined;
  const deliver = (ks: readonly number[], rs: readonly Extracted[]) => {
    const batch = ks.map((k, j) => ({ at: missAt[k]!, path: misses[k]!, language: languages[missAt[k]!]!, hash: hashes[missAt[k]!]!, record: rs[j]!.record, extras: rs[j]!.extras }));
    if (sink!.records(batch) === true) for (const r of rs) delete (r as Extracted).extras;
  };
  let run: Extraction | undefined;
  const start = () => {
    const extraction = startExtraction(expected, {
      ...(options.extras ? { extras: options.extras } : {}),
      threads,
      // One thread and a sink that takes files in order: each file is parsed and handed over as it is read.
      eager: sink?.open !== undefined,
      onProgress: (n) => {
        parsedDone = n;
        progress();
      },
      ...(sink
        ? {
            onResults: (ks: readonly number[], rs: readonly Extracted[]) => {
              if (early && !run?.ordered) early.push([ks, rs]);
              else deliver(ks, rs);
            },
            ...(sink.whileParsing ? { whileParsing: () => sink.whileParsing!() } : {}),
          }
        : {}),
    });
    // After the workers are started: what the sink does when opened (the navigator loads its tokenizer) overlaps their start.
    sink?.open?.(scan.files.map((f) => f.path), expected);
    return extraction;
  };
  let sinceYield = 0;
  try {
    for (let i = 0; i < scan.files.length; i++) {
      const f = scan.files[i]!;
      const language = languageOf(f.path, headers);
      languages.push(language);
      const known = cache.stat[f.path];
      let hash: string;
      let text: string | undefined;
      if (known && known[0] === f.size && known[1] === f.mtimeMs) hash = known[2];
      else {
        text = readFileSync(path.join(scan.root, f.path), 'utf8');
        hash = createHash('sha256').update(text).digest('hex');
        stats.hashed++;
      }
      const skip = isCodeLanguage(language) && unparsed(f.path);
      const key = `${hash}:${language}${skip ? ':unparsed' : ''}`;
      keys.push(key);
      hashes.push(hash);
      let entry = cache.entries[key] ?? next.entries[key];
      if (!entry && !wanted.has(key) && (entry = borrow(key))) stats.borrowed++;
      if (entry || wanted.has(key)) {
        stats.cache_hits++;
        if (entry) next.entries[key] = entry;
        hits++;
        progress();
      } else {
        text ??= readFileSync(path.join(scan.root, f.path), 'utf8');
        wanted.add(key);
        const item: FileRecordInput = { path: f.path, language, text, unparsed: skip };
        misses.push(f.path);
        // For the next stage (the full-text index), unless it gets the extras made from the text instead.
        if (!options.extras && !mirrors.has(f.path)) texts.set(f.path, text);
        missAt.push(i);
        stats.parsed++;
        stats.bytes_parsed += f.size;
        (run ??= start()).add(item);
        // Now and then the workers' results are taken in and they are handed the next chunks; on one thread,
        // eager, a full chunk is parsed now.
        if (run.ordered) await run.pause();
        else if ((sinceYield += f.size) >= YIELD_BYTES) {
          sinceYield = 0;
          await run.pause();
        }
      }
      next.stat[f.path] = [f.size, f.mtimeMs, hash];
    }
  } catch (err) {
    await run?.cancel();
    throw err;
  }
  const extras = new Map<string, unknown>();
  if (run) {
    if (sink) {
      const parsed = new Set(missAt);
      sink.begin(scan.files.map((f, i) => ({ path: f.path, language: languages[i]!, hash: hashes[i]!, parsed: parsed.has(i) })));
      const held = early!;
      early = undefined;
      for (const [ks, rs] of held) deliver(ks, rs);
    }
    const { results, threads } = await run.finish();
    stats.threads = threads;
    results.forEach((r, k) => {
      next.entries[keys[missAt[k]!]!] = r.record;
      if (r.extras !== undefined) extras.set(misses[k]!, r.extras);
    });
  }
  const files: IndexedFile[] = scan.files.map((f, i) => {
    const entry = next.entries[keys[i]!]!;
    stateHash.update(`${f.path}\0${hashes[i]}\n`);
    return { path: f.path, language: languages[i]!, hash: hashes[i]!, bytes: f.size, tokens: estimateTokens(f.size), ...entry };
  });
  const sniffChanged = !cache.sniff || !sameVerdicts(cache.sniff, scan.verdicts);
  const result: RepoIndex = { root: scan.root, files, skipped: scan.skipped, stats, state_hash: stateHash.digest('hex'), texts, extras };
  if (!cfile) return result;
  const write = sniffChanged || stats.parsed > 0 || stats.hashed > 0 || Object.keys(cache.stat).length !== files.length;
  // The cache file is written (and this index remembered by its identity) now, or once a navigation holding the writes has answered.
  writeCache(cfile, () => {
    if (write) {
      mkdirSync(path.dirname(cfile), { recursive: true });
      const tmp = `${cfile}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(next));
      renameSync(tmp, cfile);
      remember(cfile, next);
      pruneCaches(path.dirname(cfile), 'index-', '.json');
    }
    const cacheId = fileId(cfile);
    if (cacheId !== undefined) {
      lastIndex.delete(cfile);
      lastIndex.set(cfile, { cacheId, scan: scan.files, optionsKey, index: { ...result, texts: new Map(), extras: new Map() } });
      if (lastIndex.size > MEMO_MAX) lastIndex.delete(lastIndex.keys().next().value!);
    }
  });
  return result;
}
