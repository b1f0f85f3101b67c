import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compiledMirrors, classifyPath } from './file-class.js';
import { type FileLanguage, isCodeLanguage, languageOf } from './languages.js';
import { extractOutline, type Outline } from './outline.js';
import { OUTLINE_VERSION } from './queries.js';
import { scanRepo, type ScanOptions, type SkippedFile } from './scan.js';


/** The parse note of a generated or vendored file (indexed as text, shown as plain text). */
export const NOT_PARSED = 'not parsed: generated or vendored file';

/** What the index knows of one file. */
export interface IndexedFile {
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
}

export interface IndexOptions extends ScanOptions {
  /**
   * Directory of the persistent cache (default `runs/.cache` under the working directory; never inside
   * the repository unless pointed there). `false` disables it.
   */
  cacheDir?: string | false;
  /** Called as files are processed (for progress bars). */
  onProgress?: (done: number, total: number) => void;
}

interface CacheEntry {
  lines: number;
  tokens: number;
  outline: Outline;
}
interface CacheFile {
  v: string;
  stat: Record<string, [number, number, string]>;
  entries: Record<string, CacheEntry>;
  /** The scan's binary-sniff verdicts (see ScanOptions.verdicts). */
  sniff?: Record<string, [number, number, 0 | 1]>;
}

const CACHE_VERSION = `outline${OUTLINE_VERSION}-est4`;

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

function loadCache(file: string): CacheFile {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    if (c.v === CACHE_VERSION && c.stat && c.entries) return c;
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

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/**
 * Indexes a repository: scans it, then for each file reuses the cached outline and token count of
 * its content hash, or parses it with tree-sitter. A file that fails to parse gets an outline with
 * `parse_error` (rendered as plain text). Deterministic: files sorted by path.
 */
export async function indexRepo(rootDir: string, options: IndexOptions = {}): Promise<RepoIndex> {
  const cacheDir = options.cacheDir === undefined ? defaultCacheDir() : options.cacheDir;
  const preRoot = cacheDir ? safeRealpath(rootDir) : undefined;
  const cfile = cacheDir && preRoot ? cachePath(cacheDir, preRoot) : undefined;
  const cache: CacheFile = cfile ? loadCache(cfile) : { v: CACHE_VERSION, stat: {}, entries: {} };
  const scan = scanRepo(rootDir, { ...options, ...(cache.sniff ? { verdicts: cache.sniff } : {}) });
  const next: CacheFile = { v: CACHE_VERSION, stat: {}, entries: {}, sniff: scan.verdicts };
  const stats: IndexStats = { files: scan.files.length, hashed: 0, parsed: 0, cache_hits: 0, bytes_parsed: 0 };
  const files: IndexedFile[] = [];
  const stateHash = createHash('sha256');
  // Generated and vendored files (declarations, compiled mirrors of sources, bundles) are indexed as text, not parsed.
  const mirrors = compiledMirrors(scan.files.map((f) => f.path));
  const unparsed = (p: string) => mirrors.has(p) || ['generated', 'vendored'].includes(classifyPath(p));
  let done = 0;
  for (const f of scan.files) {
    const language = languageOf(f.path);
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
    let entry = cache.entries[key] ?? next.entries[key];
    if (entry) stats.cache_hits++;
    else {
      text ??= readFileSync(path.join(scan.root, f.path), 'utf8');
      let outline: Outline;
      try {
        outline = skip ? { defs: [], refs: [], parse_error: NOT_PARSED } : await extractOutline(language, text);
      } catch (err) {
        outline = { defs: [], refs: [], parse_error: `parse failed: ${(err as Error).message}` };
      }
      entry = { lines: countLines(text), tokens: estimateTokens(f.size), outline };
      stats.parsed++;
      stats.bytes_parsed += f.size;
    }
    next.stat[f.path] = [f.size, f.mtimeMs, hash];
    next.entries[key] = entry;
    files.push({ path: f.path, language, hash, bytes: f.size, lines: entry.lines, tokens: entry.tokens, outline: entry.outline });
    stateHash.update(`${f.path}\0${hash}\n`);
    done++;
    options.onProgress?.(done, scan.files.length);
  }
  const sniffChanged = !cache.sniff || !sameVerdicts(cache.sniff, scan.verdicts);
  if (cfile && (sniffChanged || stats.parsed > 0 || stats.hashed > 0 || Object.keys(cache.stat).length !== files.length)) {
    mkdirSync(path.dirname(cfile), { recursive: true });
    const tmp = `${cfile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(next));
    renameSync(tmp, cfile);
  }
  return { root: scan.root, files, skipped: scan.skipped, stats, state_hash: stateHash.digest('hex') };
}
