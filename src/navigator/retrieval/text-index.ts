import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { sqliteDriver } from '../../sqlite-driver.js';
import { flushCacheWrites, writeCache } from '../../repomap/cache-writes.js';
import { classifyPath, compiledMirrors, type FileClass } from '../../repomap/file-class.js';
import { type IndexedFile, type IndexSink, pruneCaches, type RepoIndex, siblingCaches } from '../../repomap/repo-index.js';
import type { FileRecord } from '../../repomap/file-record.js';
import type { FileLanguage } from '../../repomap/languages.js';
import type { Outline } from '../../repomap/outline.js';
import type { TokenCountStore } from '../../repomap/tokens.js';
import { lexFields } from './lex-fields.js';
import type { DerivedStore } from './reference-adjacency.js';
import { identifierTerms } from './terms.js';
import { bm25Best, bm25Idf, docsizeTotal, rowSizes, type RowSizes, type TermPostings } from './whole-file-bm25.js';

/**
 * The navigator's full-text index: one SQLite FTS5 row per file with four fields — path (folder and
 * file names), names (definition names), idents (every identifier in code) and text (comments, string
 * literals, prose) — ranked with FTS5's `bm25()` and per-field weights (a BM25F: weighted term
 * frequencies over the fields, one length normalisation). Terms are written pre-split and stemmed
 * (see terms.ts), so FTS5's tokenizer only cuts at spaces.
 *
 * `detail = full`: bm25() needs each term's frequency per column; with `detail = column` FTS5 re-tokenizes
 * every matching row's text to count them (the same scores, measured bit-identical, but ~15x slower a
 * query: 150 ms against 10 ms for a 5-word task on a 1,800-file package).
 *
 * Persistent when given a file: rows are keyed by path and carry the content hash, and a sync
 * re-lexes only files whose hash changed (the repo index tells which without reading unchanged files).
 * The table always holds exactly the repository's current files, so BM25's statistics — and with them
 * every score — are the same for a cold and a warm index.
 */

/** Field weights of the BM25F (path, names, idents, text): names and places count more than uses. */
export const FIELD_WEIGHTS = { path: 4, names: 3, idents: 1, text: 0.6 } as const;
/** Bump when the terms or fields change: a persistent index of another version is rebuilt. */
export const TEXT_INDEX_VERSION = 'fts4';

export interface TextHit {
  path: string;
  /** BM25F score (higher is better). */
  score: number;
}

export interface TextIndexStats {
  /** Files whose terms were (re)written: 0 on a warm run over an unchanged repository. */
  lexed: number;
  removed: number;
  files: number;
  /** The sibling index this one was copied from when it was new (see seedFrom). */
  seeded_from?: string;
}

export interface TextIndex {
  /** The database file, or `:memory:`. */
  origin: string;
  stats: TextIndexStats;
  classOf(path: string): FileClass;
  /**
   * Files with at least one of `terms`, best first (ties by path), at most `limit`. `times` counts a term
   * more than once in the query (an integer, default 1): its share of the BM25 sum is multiplied by it.
   */
  search(terms: string[], limit: number, times?: ReadonlyMap<string, number>): TextHit[];
  /**
   * Files with at least one of `terms`, best first by plain BM25 over the whole file (path, identifiers and text
   * weighted alike; definition names are counted once, as identifiers), at most `limit`. The first call is FTS5's
   * query; later ones are scored in memory from term counts kept by this index, with the same scores and order.
   */
  searchWhole(terms: string[], limit: number): TextHit[];
  /** Number of files containing `term`. */
  docFreq(term: string): number;
  /** Every file containing `term`, sorted by path. */
  filesWith(term: string): string[];
  /** Number of indexed files. */
  size: number;
  /** Token counts of loaded text, kept beside the index (keyed by content), so a warm run never re-counts. */
  tokenStore: TokenCountStore;
  /** Data derived from the indexed files (the ranking's reference graph), kept beside the index by content key. */
  derived?: DerivedStore;
  close(): void;
}

function pathTerms(rel: string): string[] {
  const out: string[] = [];
  const parts = rel.split('/');
  parts[parts.length - 1] = parts[parts.length - 1]!.replace(/\.[^.]+$/, '').replace(/\.d$/, '');
  for (const seg of parts) identifierTerms(seg, out);
  return out;
}

function nameTerms(outline: Outline): string[] {
  const out: string[] = [];
  for (const d of outline.defs) identifierTerms(d.name, out);
  return out;
}

/**
 * The four field texts of one file (path, names, idents, text: space-separated terms), as the index
 * stores them. Reads the file unless the repo index still holds its text.
 */
export function fileFields(index: RepoIndex, f: IndexedFile, mirrors: ReadonlySet<string>): [string, string, string, string] {
  return fieldsOf(f.path, f.language, f.outline, mirrors, index.extras?.get(f.path), () => {
    const text = index.texts?.get(f.path);
    if (text !== undefined) return text;
    try {
      return readFileSync(path.join(index.root, f.path), 'utf8');
    } catch {
      return '';
    }
  });
}

/** The fields of one file from its path, outline and lexed fields (`lexed`, else lexed from `text()` here). */
function fieldsOf(rel: string, language: FileLanguage, outline: Outline, mirrors: ReadonlySet<string>, lexed: unknown, text: () => string): [string, string, string, string] {
  // A compiled mirror of a source in the repository (`lib/x.js`, `lib/x.mjs` of `src/lib/x.ts`) carries no
  // words of its own: its source is indexed. Found by its path only, never read here.
  if (mirrors.has(rel)) return [pathTerms(rel).join(' '), '', '', ''];
  const names = nameTerms(outline).join(' ');
  if (isLexed(lexed)) return [pathTerms(rel).join(' '), names, lexed[0], lexed[1]];
  return [pathTerms(rel).join(' '), names, ...lexFields(rel, language, text())];
}

const isLexed = (x: unknown): x is [string, string] => Array.isArray(x) && x.length === 2 && typeof x[0] === 'string' && typeof x[1] === 'string';

/** Token counts kept at most (a few dozen are added per navigation). */
const TOKEN_STORE_MAX = 100_000;
/** Derived values kept at most (one reference graph per state of the repository ranked). */
const DERIVED_MAX = 8;
/** Term–file counts plain search keeps in memory at most, over all its terms (12 bytes each: ~12 MB an open index; a long issue on sympy holds ~35,000). */
const POSTINGS_MAX = 1_000_000;

/**
 * The text indexes this process has open, by database file (least recently opened first), with the test of whether
 * one holds a list of files as it stands. At most OPEN_MAX stay open: a long-lived process navigating many
 * repositories closes the oldest (a later call on it opens it again).
 */
const open = new Map<string, { ti: TextIndex; holds(files: readonly IndexedFile[]): boolean }>();
export const OPEN_MAX = 8;

/** Opens the database of a text index, its tables made (anew when missing or of another version). */
function openDb(origin: string): Database.Database {
  const db = new (sqliteDriver())(origin);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // A cold build writes ~30 MB of FTS5 pages for a sympy-sized tree: with SQLite's default 2 MB page cache they are
  // written out and read back as segments merge (64 MB: ~5% less CPU for a cold navigation, measured; pages are
  // only held as used, so a warm run holds what its queries read).
  db.pragma('cache_size = -65536');
  const version = db.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'").get()
    ? (db.prepare("SELECT value FROM meta WHERE key='version'").get() as { value: string } | undefined)?.value
    : undefined;
  if (version !== TEXT_INDEX_VERSION) {
    db.exec('DROP TABLE IF EXISTS fts; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS meta;');
    db.exec(`CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
      CREATE TABLE files(path TEXT PRIMARY KEY, hash TEXT NOT NULL, id INTEGER NOT NULL UNIQUE);
      CREATE VIRTUAL TABLE fts USING fts5(path, names, idents, text, tokenize = "ascii", detail = full);`);
    db.prepare("INSERT INTO meta VALUES ('version', ?)").run(TEXT_INDEX_VERSION);
  }
  db.exec('CREATE TABLE IF NOT EXISTS tokens(key TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID');
  db.exec('CREATE TABLE IF NOT EXISTS derived(key TEXT PRIMARY KEY, value BLOB NOT NULL)');
  db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, fts, row)');
  db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab_instance USING fts5vocab(main, fts, instance)');
  return db;
}

/** Writes one file's row (fields and content hash) under `id`. */
function rowWriter(db: Database.Database): (id: number, rel: string, hash: string, fields: [string, string, string, string]) => void {
  const insFts = db.prepare('INSERT INTO fts(rowid, path, names, idents, text) VALUES (?, ?, ?, ?, ?)');
  const upFile = db.prepare('INSERT OR REPLACE INTO files(path, hash, id) VALUES (?, ?, ?)');
  return (id, rel, hash, fields) => {
    insFts.run(id, ...fields);
    upFile.run(rel, hash, id);
  };
}

/**
 * A text index written while the repository is being parsed (an IndexSink of indexRepo): each file's row as
 * its fields arrive from the parsing threads, so the writing overlaps the parse instead of following it. Only a
 * new index is fed (in memory, or a file that neither exists nor has a sibling to be seeded from); rows get the
 * ids a build after the parse gives them (their place in the index), so the index is the same either way.
 * `openTextIndex(index, dbFile, feed)` writes what is left (files not parsed this run) and commits.
 *
 * A fed index is always built in memory: a new database file gets its image whole once the index is complete
 * (persistImage), not page by page through a write-ahead log that is then copied into it (measured on sympy: ~100 ms
 * less CPU for the build and one 40 MB write instead of two), and a navigation holding cache writes answers before
 * it is written (see cache-writes.ts). This process goes on using the database in memory.
 */
export interface TextIndexFeed extends IndexSink {
  /** The database being written, while the feed is live. */
  readonly live: { db: Database.Database; origin: string; files: readonly { path: string; language: FileLanguage; hash: string }[]; written: Uint8Array; mirrors: ReadonlySet<string> } | undefined;
  /** Drops what was written (a file database is deleted). */
  discard(): void;
}

export function textIndexFeed(dbFile: string | false): TextIndexFeed {
  let live: TextIndexFeed['live'];
  let write: ReturnType<typeof rowWriter> | undefined;
  let opened = false;
  // Which files are parsed this run: known at `begin`.
  let parsed: boolean[] | undefined;
  // FTS5 writes rows in ascending rowid cheaply and flushes its pending terms at every step back: rows are
  // written in index order, those that arrive ahead of an earlier one held until it comes.
  let next = 0;
  const held = new Map<number, Parameters<TextIndexFeed['records']>[0][number]>();
  // Rows written before `begin` (one thread: a chunk of files at a time as they are read, in index order), checked against its list.
  const early: { at: number; path: string; hash: string }[] = [];
  const start = (paths: readonly string[]) => {
    if (opened) return;
    opened = true;
    if (dbFile) {
      if (existsSync(dbFile) || siblingCaches(path.dirname(dbFile), 'text-', '.sqlite', dbFile).length > 0) return;
      mkdirSync(path.dirname(dbFile), { recursive: true });
    }
    try {
      const db = openDb(':memory:');
      live = { db, origin: dbFile || ':memory:', files: [], written: new Uint8Array(paths.length), mirrors: compiledMirrors(paths) };
      write = rowWriter(db);
      db.exec('BEGIN');
    } catch {
      feed.discard();
    }
  };
  const writeRow = (r: Parameters<TextIndexFeed['records']>[0][number]) => {
    write!(r.at + 1, r.path, r.hash, fieldsOf(r.path, r.language, r.record.outline, live!.mirrors, r.extras, () => ''));
    live!.written[r.at] = 1;
  };
  // After `begin`: the rows that can go next in index order.
  const advance = () => {
    const { files, written } = live!;
    for (; next < files.length; next++) {
      if (!parsed![next] || written[next]) continue;
      const r = held.get(next);
      if (!r) break;
      held.delete(next);
      writeRow(r);
    }
  };
  const feed: TextIndexFeed = {
    get live() {
      return live;
    },
    open: (paths) => start(paths),
    begin(files) {
      if (parsed) return;
      start(files.map((f) => f.path));
      if (!live) return;
      try {
        if (files.length !== live.written.length || early.some((e) => files[e.at]!.path !== e.path || files[e.at]!.hash !== e.hash || !files[e.at]!.parsed)) throw new Error('the rows written early are not the files begun with');
        live.files = files;
        parsed = files.map((f) => f.parsed);
        early.length = 0;
        advance();
      } catch {
        feed.discard();
      }
    },
    records(batch) {
      if (!live) return false;
      try {
        for (const r of batch) {
          if (parsed || r.at >= live.written.length) {
            held.set(r.at, r);
            continue;
          }
          // Before `begin`: written now when in index order, else held for it.
          const last = early.length ? early[early.length - 1]!.at : -1;
          if (r.at <= last) held.set(r.at, r);
          else {
            writeRow(r);
            early.push({ at: r.at, path: r.path, hash: r.hash });
          }
        }
        if (parsed) advance();
        // Written, or held here until the rows before them arrive: the index run need not keep their fields.
        return true;
      } catch {
        feed.discard();
        return false;
      }
    },
    discard() {
      held.clear();
      early.length = 0;
      parsed = undefined;
      if (!live) return;
      const { db } = live;
      live = undefined;
      write = undefined;
      // Nothing of it is on disk yet (see persistImage).
      if (db.open) db.close();
    },
  };
  return feed;
}

/**
 * Writes the image of an index built in memory to its database file: a temporary file renamed over it, with any
 * write-ahead log of an earlier database at that path removed first (it would be replayed into this one). No fsync:
 * a cache; a file left unreadable by a crash is rebuilt (see openTextIndex).
 */
function persistImage(db: Database.Database, dbFile: string): void {
  if (!db.open) return;
  const image = db.serialize();
  mkdirSync(path.dirname(dbFile), { recursive: true });
  const tmp = `${dbFile}.${process.pid}.image`;
  try {
    writeFileSync(tmp, image);
    for (const f of [`${dbFile}-wal`, `${dbFile}-shm`]) rmSync(f, { force: true });
    renameSync(tmp, dbFile);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  pruneCaches(path.dirname(dbFile), 'text-', '.sqlite');
}

/** Opens a database file, deleting it (and its side files) to start anew when it cannot be read as one. */
function openOrReset(dbFile: string): Database.Database {
  try {
    return openDb(dbFile);
  } catch {
    for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) rmSync(f, { force: true });
    return openDb(dbFile);
  }
}

/**
 * Opens (or builds) the text index of `index`'s files and brings it up to date. `dbFile` false keeps
 * it in memory for this process only. A `feed` that wrote the index during the parse is finished here.
 */
export function openTextIndex(index: RepoIndex, dbFile: string | false, feed?: TextIndexFeed): TextIndex {
  // Writes of this database and its siblings an earlier navigation held back land before this one reads them.
  if (dbFile) flushCacheWrites(path.dirname(dbFile));
  const origin = dbFile || ':memory:';
  const fed = feed?.live;
  // A feed holds rows by place in the index: the index must list the files it was begun with, in that order.
  if (fed && (fed.origin !== origin || fed.files.length !== index.files.length || index.files.some((f, i) => f.path !== fed.files[i]!.path || f.hash !== fed.files[i]!.hash))) feed!.discard();
  let seeded: string | undefined;
  if (dbFile) {
    const prev = open.get(dbFile);
    // The index this process has open already holds exactly these files (and no other connection wrote it since):
    // it is reused as it is, with what it learned of its terms, instead of being opened and read again.
    if (prev && !feed?.live && prev.holds(index.files)) {
      prev.ti.stats = { lexed: 0, removed: 0, files: index.files.length };
      open.delete(dbFile);
      open.set(dbFile, prev);
      return prev.ti;
    }
    if (prev) {
      prev.ti.close();
      open.delete(dbFile);
    }
    mkdirSync(path.dirname(dbFile), { recursive: true });
    if (!feed?.live && !existsSync(dbFile)) seeded = seedFrom(index, dbFile);
  }
  const stats: TextIndexStats = { lexed: 0, removed: 0, files: index.files.length, ...(seeded ? { seeded_from: seeded } : {}) };
  const mirrors = compiledMirrors(index.files.map((f) => f.path));
  const rows = new Map<string, { hash: string; id: number }>();
  let db: Database.Database;
  const live = feed?.live;
  if (live) {
    // Rows the feed wrote; the others (cache hits, files of a content parsed once for two paths) are written now.
    db = live.db;
    const write = rowWriter(db);
    index.files.forEach((f, i) => {
      if (!live.written[i]) write(i + 1, f.path, f.hash, fileFields(index, f, mirrors));
      rows.set(f.path, { hash: f.hash, id: i + 1 });
      stats.lexed++;
    });
    db.exec('COMMIT');
    if (dbFile) {
      const built = db;
      writeCache(dbFile, () => persistImage(built, dbFile));
    }
  } else {
    db = dbFile ? openOrReset(dbFile) : openDb(origin);
    for (const r of db.prepare('SELECT path, hash, id FROM files').all() as { path: string; hash: string; id: number }[]) rows.set(r.path, r);
    const current = new Map(index.files.map((f) => [f.path, f]));
    const delFts = db.prepare('DELETE FROM fts WHERE rowid = ?');
    const delFile = db.prepare('DELETE FROM files WHERE path = ?');
    const write = rowWriter(db);
    let nextId = 1 + Math.max(0, ...[...rows.values()].map((r) => r.id));
    db.transaction(() => {
      for (const [p, r] of rows) {
        if (current.get(p)?.hash === r.hash) continue;
        delFts.run(r.id);
        delFile.run(p);
        rows.delete(p);
        stats.removed++;
      }
      for (const f of index.files) {
        if (rows.has(f.path)) continue;
        const id = nextId++;
        write(id, f.path, f.hash, fileFields(index, f, mirrors));
        rows.set(f.path, { hash: f.hash, id });
        stats.lexed++;
      }
    })();
  }
  // The lexed fields of this run's files are in the table now: not held for the rest of the navigation.
  index.extras?.clear();
  const byId = new Map<number, string>();
  for (const [p, r] of rows) byId.set(r.id, p);
  // A row's place in path order, by id: a term's files are sorted as numbers, not as strings.
  const inPathOrder = [...rows.keys()].sort();
  let maxId = 0;
  for (const r of rows.values()) if (r.id > maxId) maxId = r.id;
  const placeOf = new Int32Array(maxId + 1).fill(-1);
  inPathOrder.forEach((p, i) => (placeOf[rows.get(p)!.id] = i));
  const classes = new Map<string, FileClass>();
  const w = FIELD_WEIGHTS;
  const searchStmt = db.prepare(`SELECT rowid AS id, bm25(fts, ${w.path}, ${w.names}, ${w.idents}, ${w.text}) AS s FROM fts WHERE fts MATCH ? ORDER BY s LIMIT ?`);
  // Definition names also stand among the identifiers: weight 0 counts them once.
  const wholeStmt = db.prepare('SELECT rowid AS id, bm25(fts, 1, 0, 1, 1) AS s FROM fts WHERE fts MATCH ? ORDER BY s LIMIT ?');
  // A term's files with its count outside the names column (weight 0 above), for plain search in memory.
  const postingsStmt = db.prepare("SELECT doc, sum(col <> 'names') FROM vocab_instance WHERE term = ? GROUP BY doc ORDER BY doc").raw();
  const dfStmt = db.prepare('SELECT doc FROM vocab WHERE term = ?');
  const withStmt = db.prepare('SELECT rowid FROM fts WHERE fts MATCH ?').pluck();
  const tokGet = db.prepare('SELECT n FROM tokens WHERE key = ?').pluck();
  const tokSet = db.prepare('INSERT OR IGNORE INTO tokens(key, n) VALUES (?, ?)');
  // Bounded: past TOKEN_STORE_MAX counts the table starts over (counts are recomputed exactly when missing).
  if ((db.prepare('SELECT count(*) FROM tokens').pluck().get() as number) > TOKEN_STORE_MAX) db.exec('DELETE FROM tokens');
  const tokenStore: TokenCountStore = {
    get: (key) => (db.open ? (tokGet.get(key) as number | undefined) : undefined),
    set: (key, n) => {
      if (db.open) tokSet.run(key, n);
    },
  };
  const derivedGet = db.prepare('SELECT value FROM derived WHERE key = ?').pluck();
  const derivedSet = db.prepare('INSERT OR REPLACE INTO derived(key, value) VALUES (?, ?)');
  const derived: DerivedStore = {
    get: (key) => (db.open ? (derivedGet.get(key) as Uint8Array | undefined) : undefined),
    set: (key, value) => {
      if (!db.open) return;
      try {
        // Bounded: past DERIVED_MAX the table starts over (a value missing is computed again).
        if ((db.prepare('SELECT count(*) FROM derived').pluck().get() as number) >= DERIVED_MAX) db.exec('DELETE FROM derived');
        derivedSet.run(key, value);
      } catch {
        // Busy (another process writing) or full: not kept, computed again next time.
      }
    },
  };
  // The table does not change once synced: a term's answers are asked once (magic words, registry and ranking ask again).
  const dfMemo = new Map<string, number>();
  const withMemo = new Map<string, string[]>();
  // Plain search in memory (whole-file-bm25.ts): the first query of this index is FTS5's (a process that asks once,
  // such as a CLI call, reads no counts); later ones score from each term's counts, read once and kept.
  let wholeQueries = 0;
  let sizes: RowSizes | undefined;
  const postings = new Map<string, TermPostings>();
  let postingsHeld = 0;
  const lnStmt = (() => {
    try {
      return db.prepare('SELECT ln(?)').pluck();
    } catch {
      return undefined;
    }
  })();
  // SQLite's logarithm (the C library's, as FTS5's), so the idf is the same double.
  const ln = (x: number) => (lnStmt ? (lnStmt.get(x) as number) : Math.log(x));
  const rowSizesOf = (): RowSizes => {
    if (sizes) return sizes;
    const byRow = new Float64Array(maxId + 1);
    let n = 0;
    let total = 0;
    for (const [id, sz] of db.prepare('SELECT id, sz FROM fts_docsize').raw().iterate() as Iterable<[number, Uint8Array]>) {
      const d = docsizeTotal(sz);
      if (id <= maxId) byRow[id] = d;
      total += d;
      n++;
    }
    return (sizes = rowSizes(byRow, n, total));
  };
  const postingsOf = (term: string): TermPostings => {
    let p = postings.get(term);
    if (!p) {
      const rowsOf = postingsStmt.all(term) as [number, number][];
      p = { rows: Int32Array.from(rowsOf, (r) => r[0]), counts: Float64Array.from(rowsOf, (r) => r[1]) };
      // Bounded: past POSTINGS_MAX files held the memo starts over (counts are read again when asked).
      if (postingsHeld + p.rows.length > POSTINGS_MAX) {
        postings.clear();
        postingsHeld = 0;
      }
      postings.set(term, p);
      postingsHeld += p.rows.length;
    }
    return p;
  };
  const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;
  // A query's terms as the index writes them (lowercase letters and digits), each once.
  const indexTerms = (terms: string[]) => [...new Set(terms.filter((t) => /^[a-z0-9]+$/.test(t)))];
  const round = (x: number) => Math.round(x * 1e9) / 1e9;
  const hitsOf = (rows: { id: number; s: number }[]): TextHit[] =>
    rows
      .map((r) => ({ path: byId.get(r.id)!, score: round(-r.s) }))
      .filter((h) => h.path !== undefined)
      .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const ti: TextIndex = {
    origin,
    stats,
    size: rows.size,
    tokenStore,
    derived,
    classOf(p) {
      let c = classes.get(p);
      if (!c) classes.set(p, (c = mirrors.has(p) ? 'generated' : classifyPath(p)));
      return c;
    },
    search(terms, limit, times) {
      const uniq = indexTerms(terms);
      if (!uniq.length) return [];
      // FTS5's bm25() sums over the query's phrases: a term written k times counts k times.
      const query = uniq.flatMap((t) => Array.from({ length: Math.max(1, Math.min(4, Math.round(times?.get(t) ?? 1))) }, () => quote(t))).join(' OR ');
      return hitsOf(searchStmt.all(query, limit) as { id: number; s: number }[]);
    },
    searchWhole(terms, limit) {
      const uniq = indexTerms(terms);
      if (!uniq.length) return [];
      if (wholeQueries++ === 0) return hitsOf(wholeStmt.all(uniq.map(quote).join(' OR '), limit) as { id: number; s: number }[]);
      const size = rowSizesOf();
      // A term's rows holding it are its postings (FTS5 counts the rows matching the phrase).
      const held = uniq.map(postingsOf).filter((p) => p.rows.length > 0);
      return hitsOf(bm25Best(held.map((p) => ({ idf: bm25Idf(size.rows, p.rows.length, ln), postings: p })), size, limit));
    },
    docFreq(term) {
      if (!/^[a-z0-9]+$/.test(term)) return 0;
      let n = dfMemo.get(term);
      if (n === undefined) dfMemo.set(term, (n = (dfStmt.get(term) as { doc: number } | undefined)?.doc ?? 0));
      return n;
    },
    filesWith(term) {
      if (!/^[a-z0-9]+$/.test(term)) return [];
      let list = withMemo.get(term);
      if (!list) {
        // A row no file holds (none should be) is left out, as is an id past the table's.
        const places = Int32Array.from(withStmt.all(quote(term)) as number[], (id) => (id <= maxId ? placeOf[id]! : -1)).sort();
        list = [];
        for (const i of places) if (i >= 0) list.push(inPathOrder[i]!);
        withMemo.set(term, list);
      }
      // A copy: the caller may change it.
      return list.slice();
    },
    close() {
      if (db.open) db.close();
      if (dbFile && open.get(dbFile)?.ti === ti) open.delete(dbFile);
    },
  };
  if (dbFile) {
    // data_version changes when another connection commits to the database (our own writes leave it).
    const version = () => db.pragma('data_version', { simple: true }) as number;
    const synced = version();
    for (const [file, o] of open) {
      if (open.size < OPEN_MAX) break;
      o.ti.close();
      open.delete(file);
    }
    open.set(dbFile, {
      ti,
      holds: (files) => {
        if (!db.open || files.length !== rows.size || version() !== synced) return false;
        for (const f of files) if (rows.get(f.path)?.hash !== f.hash) return false;
        return true;
      },
    });
    if (stats.lexed || stats.removed) pruneCaches(path.dirname(dbFile), 'text-', '.sqlite');
  }
  return ti;
}

/** A sibling index is copied when at least this share of the repository's files (path and content) is in it. */
const SEED_MIN_SHARE = 0.5;

/**
 * Seeds a new repository's index with a copy of the sibling index (same cache folder: the same project
 * extracted at another commit or path) that already holds most of its files, so the sync re-lexes only what
 * differs. The newest three siblings are considered; the copy is SQLite's `VACUUM INTO` (a consistent
 * snapshot even while another process writes the sibling). Returns the sibling's file name, or undefined.
 */
function seedFrom(index: RepoIndex, dbFile: string): string | undefined {
  const want = new Map(index.files.map((f) => [f.path, f.hash]));
  let best: { file: string; share: number } | undefined;
  for (const file of siblingCaches(path.dirname(dbFile), 'text-', '.sqlite', dbFile).slice(0, 3)) {
    try {
      const db = new (sqliteDriver())(file, { readonly: true, fileMustExist: true });
      try {
        const v = db.prepare("SELECT value FROM meta WHERE key='version'").pluck().get();
        if (v !== TEXT_INDEX_VERSION) continue;
        let same = 0;
        for (const r of db.prepare('SELECT path, hash FROM files').iterate() as Iterable<{ path: string; hash: string }>) if (want.get(r.path) === r.hash) same++;
        const share = same / Math.max(1, want.size);
        if (share >= SEED_MIN_SHARE && (!best || share > best.share)) best = { file, share };
      } finally {
        db.close();
      }
    } catch {
      // unreadable or being replaced: not a seed
    }
  }
  if (!best) return undefined;
  const tmp = `${dbFile}.${process.pid}.seed`;
  try {
    const db = new (sqliteDriver())(best.file, { readonly: true, fileMustExist: true });
    try {
      db.prepare('VACUUM INTO ?').run(tmp);
    } finally {
      db.close();
    }
    renameSync(tmp, dbFile);
    return path.basename(best.file);
  } catch {
    rmSync(tmp, { force: true });
    return undefined;
  }
}
