// Bench (one-off, not part of `npm run bench`): the navigator's text retrieval on SQLite FTS5 (what it
// ships, src/navigator/retrieval/text-index.ts) against an in-memory inverted index computing the same BM25F
// (FTS5's bm25(): k1 1.2, b 0.75, idf log((N-n+0.5)/(n+0.5)) floored at 1e-6, weighted term frequency
// over the four fields, one length normalisation over the whole row), on the same terms of the same files.
// Every measurement runs in a fresh Node process (this file, run with arguments): cold build, warm load,
// the retrieval a navigation makes (termsOfWord, filesWith, search(terms, 400)), and peak RSS.
// Run: `npx tsc -p tsconfig.json && node dist/bench/text-engines.js [--runs 5]`.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../src/package-root.js';
import { indexRepo, type RepoIndex } from '../src/repomap/index.js';
import { classifyPath, compiledMirrors, type FileClass } from '../src/repomap/file-class.js';
import { extractMagicWords } from '../src/navigator/pipeline/magic-words.js';
import { rankForTask, termsOfWord } from '../src/navigator/retrieval/ranking.js';
import { textRegistry } from '../src/navigator/pipeline/registry.js';
import { FIELD_WEIGHTS, fileFields, openTextIndex, type TextHit, type TextIndex } from '../src/navigator/retrieval/text-index.js';
import type { MagicWord } from '../src/navigator/pipeline/types.js';
import { table } from './stats.js';

/** The trees of the navigator bench, each with tasks that name things in it (the first is the bench's own). */
const REPOS: { name: string; dir: string; tasks: string[] }[] = [
  {
    name: 'shop fixture',
    dir: 'tests/fixtures/repos/shop',
    tasks: ['where is the stripe charge refund', 'how is the cart discount applied', 'where is the session token checked', 'how is the sales report computed'],
  },
  {
    name: 'zod 4 src',
    dir: 'node_modules/zod/src',
    tasks: [
      'how does safeParse report issues for a string min length check',
      'where are discriminated unions checked',
      'how is an email string format validated',
      'how does an object schema strip unknown keys',
      'how are error messages localized',
    ],
  },
  {
    name: '@anthropic-ai/sdk package',
    dir: 'node_modules/@anthropic-ai/sdk',
    tasks: [
      'how are streaming message events accumulated into a final message',
      'where is the retry backoff for rate limited requests',
      'how are tool use blocks parsed from a streamed response',
      'how does the client build request headers with the api key',
      'how are batch results paginated',
    ],
  },
];

const K1 = 1.2;
const B = 0.75;
const W = [FIELD_WEIGHTS.path, FIELD_WEIGHTS.names, FIELD_WEIGHTS.idents, FIELD_WEIGHTS.text];
const MAGIC = 0x4e4b4d31; // 'NKM1'

/**
 * The in-memory engine, flat: terms sorted (a blob of their bytes and an offset table, searched by
 * binary search without decoding), each term's postings a run of (doc, tf per field) in doc order.
 * Serialised as one buffer, so a warm load is one read and a few typed-array views.
 */
interface MemData {
  paths: string[];
  hashes: string[];
  /** Tokens per row, all fields (FTS5's xColumnSize(-1)). */
  rowLen: Uint32Array;
  totalTokens: number;
  termBlob: Buffer;
  /** termOff[i]..termOff[i+1]: bytes of term i in termBlob. */
  termOff: Uint32Array;
  /** postOff[i]..postOff[i+1]: entries of term i. */
  postOff: Uint32Array;
  postDoc: Uint32Array;
  /** 4 per entry: tf of path, names, idents, text. */
  postTf: Uint16Array;
}

function buildMem(index: RepoIndex, timing?: { lex_ms: number }): MemData {
  const mirrors = compiledMirrors(index.files.map((f) => f.path));
  const acc = new Map<string, number[]>();
  const files = index.files;
  const rowLen = new Uint32Array(files.length);
  let totalTokens = 0;
  files.forEach((f, doc) => {
    const tl = performance.now();
    const fields = fileFields(index, f, mirrors);
    if (timing) timing.lex_ms += performance.now() - tl;
    const tf = new Map<string, number[]>();
    let len = 0;
    fields.forEach((text, c) => {
      if (!text) return;
      for (const t of text.split(' ')) {
        let v = tf.get(t);
        if (!v) tf.set(t, (v = [0, 0, 0, 0]));
        v[c]!++;
        len++;
      }
    });
    rowLen[doc] = len;
    totalTokens += len;
    for (const [t, v] of tf) {
      let l = acc.get(t);
      if (!l) acc.set(t, (l = []));
      l.push(doc, v[0]!, v[1]!, v[2]!, v[3]!);
    }
  });
  const terms = [...acc.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const termBlob = Buffer.from(terms.join(''), 'latin1');
  const termOff = new Uint32Array(terms.length + 1);
  const postOff = new Uint32Array(terms.length + 1);
  let entries = 0;
  terms.forEach((t, i) => {
    termOff[i + 1] = termOff[i]! + t.length;
    entries += acc.get(t)!.length / 5;
    postOff[i + 1] = entries;
  });
  const postDoc = new Uint32Array(entries);
  const postTf = new Uint16Array(entries * 4);
  let e = 0;
  for (const t of terms) {
    const l = acc.get(t)!;
    for (let k = 0; k < l.length; k += 5, e++) {
      postDoc[e] = l[k]!;
      for (let c = 0; c < 4; c++) postTf[e * 4 + c] = Math.min(65535, l[k + 1 + c]!);
    }
  }
  return { paths: files.map((f) => f.path), hashes: files.map((f) => f.hash), rowLen, totalTokens, termBlob, termOff, postOff, postDoc, postTf };
}

function serialiseMem(m: MemData): Buffer {
  const head = Buffer.from(m.paths.map((p, i) => `${p}\t${m.hashes[i]}`).join('\n'), 'utf8');
  const u32 = (a: Uint32Array | Uint16Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4)]);
  const parts = [pad(head), u32(m.rowLen), pad(m.termBlob), u32(m.termOff), u32(m.postOff), u32(m.postDoc), pad(u32(m.postTf))];
  const header = new Uint32Array([MAGIC, m.paths.length, m.totalTokens, m.termOff.length - 1, m.postDoc.length, head.length, m.termBlob.length]);
  return Buffer.concat([u32(header), ...parts]);
}

function loadMem(buf: Buffer): MemData {
  // Copied once into an aligned buffer (readFileSync's may start at any offset of the pool).
  const ab = new ArrayBuffer(buf.length);
  new Uint8Array(ab).set(buf);
  const h = new Uint32Array(ab, 0, 7);
  if (h[0] !== MAGIC) throw new Error('not a text-engine file');
  const [, n, totalTokens, nTerms, nEntries, headLen, blobLen] = h as unknown as number[];
  let o = 28;
  const al = (x: number) => x + ((4 - (x % 4)) % 4);
  const head = Buffer.from(ab, o, headLen!).toString('utf8');
  o += al(headLen!);
  const rowLen = new Uint32Array(ab, o, n!);
  o += n! * 4;
  const termBlob = Buffer.from(ab, o, blobLen!);
  o += al(blobLen!);
  const termOff = new Uint32Array(ab, o, nTerms! + 1);
  o += (nTerms! + 1) * 4;
  const postOff = new Uint32Array(ab, o, nTerms! + 1);
  o += (nTerms! + 1) * 4;
  const postDoc = new Uint32Array(ab, o, nEntries!);
  o += nEntries! * 4;
  const postTf = new Uint16Array(ab, o, nEntries! * 4);
  const paths: string[] = [];
  const hashes: string[] = [];
  for (const line of head.split('\n')) {
    const tab = line.indexOf('\t');
    paths.push(line.slice(0, tab));
    hashes.push(line.slice(tab + 1));
  }
  return { paths, hashes, rowLen, totalTokens: totalTokens!, termBlob, termOff, postOff, postDoc, postTf };
}

/** The TextIndex interface over MemData (what the navigator would call). */
function memTextIndex(m: MemData): TextIndex {
  const N = m.paths.length;
  const avgdl = m.totalTokens / Math.max(1, N);
  const mirrors = compiledMirrors(m.paths);
  const classes = new Map<string, FileClass>();
  const find = (term: string): number => {
    const q = Buffer.from(term, 'latin1');
    let lo = 0;
    let hi = m.termOff.length - 2;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = Buffer.compare(m.termBlob.subarray(m.termOff[mid]!, m.termOff[mid + 1]!), q);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };
  const round = (x: number) => Math.round(x * 1e9) / 1e9;
  const rank = (terms: string[], limit: number, weights: readonly number[]): TextHit[] => {
      const uniq = [...new Set(terms.filter((t) => /^[a-z0-9]+$/.test(t)))];
      const score = new Map<number, number>();
      for (const t of uniq) {
        const i = find(t);
        if (i < 0) continue;
        const a = m.postOff[i]!;
        const z = m.postOff[i + 1]!;
        let idf = Math.log((N - (z - a) + 0.5) / (z - a + 0.5));
        if (idf <= 0) idf = 1e-6;
        for (let e = a; e < z; e++) {
          // Summed one occurrence at a time, field by field, as FTS5 walks a row's instances.
          let f = 0;
          for (let c = 0; c < 4; c++) for (let k = m.postTf[e * 4 + c]!; k > 0; k--) f += weights[c]!;
          const d = m.postDoc[e]!;
          const s = idf * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * m.rowLen[d]!) / avgdl)));
          score.set(d, (score.get(d) ?? 0) + s);
        }
      }
      const hits: TextHit[] = [...score].map(([d, s]) => ({ path: m.paths[d]!, score: round(s) }));
      hits.sort((x, y) => y.score - x.score || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
      return hits.slice(0, limit);
      };
  return {
    origin: ':memory-prototype:',
    stats: { lexed: 0, removed: 0, files: N },
    size: N,
    tokenStore: { get: () => undefined, set: () => undefined },
    classOf(p) {
      let c = classes.get(p);
      if (!c) classes.set(p, (c = mirrors.has(p) ? 'generated' : classifyPath(p)));
      return c;
    },
    search: (terms, limit) => rank(terms, limit, W),
    // As the SQLite index: definition names weigh 0 (they stand among the identifiers too).
    searchWhole: (terms, limit) => rank(terms, limit, [1, 0, 1, 1]),
    docFreq(term) {
      if (!/^[a-z0-9]+$/.test(term)) return 0;
      const i = find(term);
      return i < 0 ? 0 : m.postOff[i + 1]! - m.postOff[i]!;
    },
    filesWith(term) {
      if (!/^[a-z0-9]+$/.test(term)) return [];
      const i = find(term);
      if (i < 0) return [];
      const out: string[] = [];
      for (let e = m.postOff[i]!; e < m.postOff[i + 1]!; e++) out.push(m.paths[m.postDoc[e]!]!);
      return out.sort();
    },
    close() {},
  };
}

/** The calls a navigation makes on the engine for its words (rankForTask's, without the graph). */
function retrieve(text: TextIndex, words: MagicWord[]): TextHit[] {
  const all: string[] = [];
  for (const w of words) {
    const ts = termsOfWord(w.word, text);
    for (const t of ts) text.filesWith(t);
    all.push(...ts);
  }
  return text.search(all, 400);
}

interface QueryOut {
  task: string;
  words: string[];
  /** search(terms, 400): best 8 paths and all scores. */
  top8: string[];
  scores: [string, number][];
  /** rankForTask's best 8 files (the navigator's candidates). */
  rank8: string[];
  first_ms: number;
  median_ms: number;
}

interface ChildOut {
  engine: 'fts5' | 'mem';
  mode: string;
  /** Build (cold) or open/load (warm), ms. */
  ms: number;
  lex_ms?: number;
  write_ms?: number;
  bytes_on_disk: number;
  rss_base_mb: number;
  rss_peak_mb: number;
  queries: QueryOut[];
}

const mb = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;

async function child(engine: 'fts5' | 'mem', mode: 'cold' | 'warm', dir: string, cacheDir: string, tasks: string[]): Promise<void> {
  const index = await indexRepo(dir, { cacheDir });
  const rss_base_mb = mb(process.memoryUsage().rss);
  const dbFile = path.join(cacheDir, 'engine.sqlite');
  const memFile = path.join(cacheDir, 'engine.mem');
  let text: TextIndex;
  let ms: number;
  let lex_ms: number | undefined;
  let write_ms: number | undefined;
  const t0 = performance.now();
  if (engine === 'fts5') {
    text = openTextIndex(index, dbFile);
    ms = performance.now() - t0;
  } else if (mode === 'cold') {
    const timing = { lex_ms: 0 };
    const m = buildMem(index, timing);
    ms = performance.now() - t0;
    lex_ms = timing.lex_ms;
    const tw = performance.now();
    writeFileSync(memFile, serialiseMem(m));
    write_ms = performance.now() - tw;
    text = memTextIndex(m);
  } else {
    const m = loadMem(readFileSync(memFile));
    // The warm sync check FTS5 makes too: every file's hash against the stored one.
    const stored = new Map(m.paths.map((p, i) => [p, m.hashes[i]]));
    const stale = index.files.some((f) => stored.get(f.path) !== f.hash) || stored.size !== index.files.length;
    if (stale) throw new Error('in-memory index out of date (the prototype has no incremental update)');
    text = memTextIndex(m);
    ms = performance.now() - t0;
  }
  const queries: QueryOut[] = [];
  for (const task of tasks) {
    const registry = textRegistry(index, text);
    const { words } = extractMagicWords(task, undefined, registry);
    const tq = performance.now();
    const hits = retrieve(text, words);
    const first_ms = performance.now() - tq;
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t = performance.now();
      retrieve(text, words);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const rank = rankForTask(task, words, index, text, () => true);
    queries.push({
      task,
      words: words.map((w) => w.word),
      top8: hits.slice(0, 8).map((h) => h.path),
      scores: hits.map((h) => [h.path, h.score]),
      rank8: rank.files.slice(0, 8).map((f) => f.path),
      first_ms,
      median_ms: times[7]!,
    });
  }
  const file = engine === 'fts5' ? dbFile : memFile;
  let bytes_on_disk = existsSync(file) ? statSync(file).size : 0;
  for (const x of ['-wal', '-shm']) if (engine === 'fts5' && existsSync(file + x)) bytes_on_disk += statSync(file + x).size;
  text.close();
  const out: ChildOut = { engine, mode, ms, ...(lex_ms !== undefined ? { lex_ms } : {}), ...(write_ms !== undefined ? { write_ms } : {}), bytes_on_disk, rss_base_mb, rss_peak_mb: mb(process.resourceUsage().maxRSS * 1024), queries };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function run(engine: string, mode: string, dir: string, cacheDir: string, tasks: string[]): ChildOut {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'child', engine, mode, dir, cacheDir, JSON.stringify(tasks)], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`text-engines child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as ChildOut;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const f1 = (x: number) => (Math.round(x * 10) / 10).toFixed(1);
const f2 = (x: number) => (Math.round(x * 100) / 100).toFixed(2);

async function main(runs: number): Promise<void> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'nk-bench-engines-'));
  const rows: (string | number)[][] = [];
  const agree: (string | number)[][] = [];
  try {
    for (const repo of REPOS) {
      const dir = path.join(base, repo.name.replace(/[^a-z0-9]+/gi, '-'));
      cpSync(path.join(packageRoot(), repo.dir), dir, { recursive: true });
      const samples: Record<string, ChildOut[]> = { 'fts5 cold': [], 'fts5 warm': [], 'mem cold': [], 'mem warm': [] };
      for (let i = 0; i < runs; i++) {
        for (const engine of ['fts5', 'mem'] as const) {
          const cache = mkdtempSync(path.join(base, 'cache-'));
          await indexRepo(dir, { cacheDir: cache }); // the repo index is shared by both engines: filled first, not measured
          samples[`${engine} cold`]!.push(run(engine, 'cold', dir, cache, repo.tasks));
          samples[`${engine} warm`]!.push(run(engine, 'warm', dir, cache, repo.tasks));
          rmSync(cache, { recursive: true, force: true });
        }
      }
      const files = (await indexRepo(dir, { cacheDir: false })).files.length;
      for (const [k, s] of Object.entries(samples)) {
        const q = s.map((x) => median(x.queries.map((y) => y.median_ms)));
        const qf = s.map((x) => median(x.queries.map((y) => y.first_ms)));
        rows.push([
          repo.name,
          String(files),
          k,
          f1(median(s.map((x) => x.ms))),
          s[0]!.lex_ms !== undefined ? f1(median(s.map((x) => x.lex_ms!))) : '',
          s[0]!.write_ms !== undefined ? f1(median(s.map((x) => x.write_ms!))) : '',
          f2(median(qf)),
          f2(median(q)),
          f1(median(s.map((x) => x.rss_peak_mb - x.rss_base_mb))),
          f1(median(s.map((x) => x.rss_peak_mb))),
          f1(mb(s[0]!.bytes_on_disk)),
        ]);
      }
      // Agreement: the same task on both engines (warm runs of the first sample).
      const a = samples['fts5 warm']![0]!;
      const b = samples['mem warm']![0]!;
      a.queries.forEach((qa, i) => {
        const qb = b.queries[i]!;
        const overlap = (x: string[], y: string[]) => x.filter((p) => y.includes(p)).length;
        const sb = new Map(qb.scores);
        let maxDiff = 0;
        for (const [p, s] of qa.scores) maxDiff = Math.max(maxDiff, Math.abs(s - (sb.get(p) ?? Infinity)));
        agree.push([repo.name, qa.task, qa.words.join(' ') === qb.words.join(' ') ? 'same' : 'DIFFER', `${overlap(qa.top8, qb.top8)}/${Math.min(8, qa.top8.length)}`, JSON.stringify(qa.top8) === JSON.stringify(qb.top8) ? 'yes' : 'no', `${overlap(qa.rank8, qb.rank8)}/${Math.min(8, qa.rank8.length)}`, `${qa.scores.length}/${qb.scores.length}`, maxDiff.toExponential(1)]);
      });
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  process.stdout.write(`# FTS5 against an in-memory BM25F (median of ${runs} fresh processes each; Node ${process.version}; load average ${load})\n\n`);
  process.stdout.write(
    table(['repo', 'files', 'engine', 'build (cold) / open+load (warm) ms', 'of which lex ms', 'write ms', 'first retrieval ms', 'retrieval ms (median of 15)', 'RSS added MB', 'peak RSS MB', 'on disk MB'], rows) + '\n\n',
  );
  process.stdout.write(table(['repo', 'task', 'words', 'search overlap@8', 'same order', 'rankForTask overlap@8', 'hits fts5/mem', 'max score diff'], agree) + '\n');
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'child') {
  const [engine, m, dir, cacheDir, tasks] = rest as [string, string, string, string, string];
  await child(engine as 'fts5' | 'mem', m as 'cold' | 'warm', dir, cacheDir, JSON.parse(tasks) as string[]);
} else {
  const i = process.argv.indexOf('--runs');
  await main(i > 0 ? Number(process.argv[i + 1]) : 5);
}
