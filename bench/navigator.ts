// Bench section: the navigator and the repo map on real source trees, cold and warm, beside `repomix --compress`.
// Every measurement runs in a child process (this file, run with arguments), so "cold" means a fresh process
// with an empty cache, and the peak RSS is that run's own.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exchange } from '../src/cli/resident/client.js';
import { RESIDENT_PROTOCOL } from '../src/cli/resident/protocol.js';
import { packageRoot } from '../src/package-root.js';
import { navigate } from '../src/navigator/index.js';
import { countTokens, indexRepo, renderFlightPlan, scanRepo } from '../src/repomap/index.js';
import { table, type BenchSection } from './stats.js';

/** A repository to navigate, with a task that names things in it. */
export interface BenchRepo {
  name: string;
  /** Folder, relative to the package root. */
  dir: string;
  task: string;
}

export const BENCH_REPOS: Record<'small' | 'medium' | 'large', BenchRepo> = {
  small: { name: 'shop fixture', dir: 'tests/fixtures/repos/shop', task: 'where is the stripe charge refund' },
  medium: { name: 'zod 4 src', dir: 'node_modules/zod/src', task: 'how does safeParse report issues for a string min length check' },
  large: { name: '@anthropic-ai/sdk package', dir: 'node_modules/@anthropic-ai/sdk', task: 'how are streaming message events accumulated into a final message' },
};

interface ChildResult {
  ms: number;
  rss_mb: number;
  [k: string]: number | string;
}

/** Copies a tree out of node_modules (so .gitignore of the package does not hide it from either tool). */
function stage(repo: BenchRepo, base: string): string {
  const dest = path.join(base, repo.name.replace(/[^a-z0-9]+/gi, '-'));
  if (!existsSync(dest)) cpSync(path.join(packageRoot(), repo.dir), dest, { recursive: true });
  return dest;
}

function child(mode: string, args: string[]): ChildResult {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, [self, mode, ...args], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`bench child ${mode} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as ChildResult;
}

const rssMb = () => Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10;

async function childMain(mode: string, args: string[]): Promise<void> {
  const [dir, cacheDir, task] = args as [string, string, string];
  const t0 = performance.now();
  let out: Record<string, number | string> = {};
  if (mode === 'index') {
    const index = await indexRepo(dir, { cacheDir });
    out = { files: index.files.length, parsed: index.stats.parsed, bytes: index.stats.bytes_parsed, corpus_tokens: index.files.reduce((s, f) => s + f.tokens, 0) };
  } else if (mode === 'tokens') {
    const scan = scanRepo(dir);
    const texts = scan.files.map((f) => readFileSync(path.join(scan.root, f.path), 'utf8'));
    const t = performance.now();
    let tokens = 0;
    for (const x of texts) tokens += countTokens(x);
    out = { tokens, chars: texts.reduce((s, x) => s + x.length, 0), count_ms: performance.now() - t };
  } else if (mode === 'navigate') {
    const o = await navigate({ task, repo_root: dir }, { cacheDir });
    const r = o.artifacts.compression_report;
    out = { exit: o.exit, parsed: o.index_stats?.parsed ?? 0, files: o.index_stats?.files ?? 0, loaded_files: o.loaded.length, loaded_tokens: r.context_loaded_tokens, ratio: r.compression_ratio };
  } else if (mode === 'map') {
    const r = await renderFlightPlan(dir, { budget: 100_000_000, verbosity: [{ pattern: '**', level: 3 }] }, { cacheDir });
    out = { tokens: r.metadata.total_tokens, files: r.metadata.file_count };
  }
  process.stdout.write(`${JSON.stringify({ ...out, ms: performance.now() - t0, rss_mb: rssMb() })}\n`);
}

function repomix(dir: string, outFile: string, compress: boolean): { ms: number; tokens: number } {
  const bin = path.join(packageRoot(), 'node_modules', '.bin', 'repomix');
  const t0 = performance.now();
  execFileSync(bin, [...(compress ? ['--compress'] : []), '--quiet', '-o', outFile, '.'], { cwd: dir, stdio: 'ignore' });
  const ms = performance.now() - t0;
  return { ms, tokens: countTokens(readFileSync(outFile, 'utf8')) };
}

/** Wall time (process start included) and peak RSS of one `navkernel` CLI run, through `/usr/bin/time` when present. */
function cliRun(args: string[], env: NodeJS.ProcessEnv = process.env): { wall_ms: number; rss_mb: number | string } {
  const bin = path.join(packageRoot(), 'bin', 'navkernel.js');
  const timed = existsSync('/usr/bin/time');
  const t0 = performance.now();
  const r = timed
    ? spawnSync('/usr/bin/time', ['-f', 'NKTIME %M', process.execPath, bin, ...args], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20, env })
    : spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20, env });
  const wall_ms = performance.now() - t0;
  const m = /NKTIME (\d+)/.exec(r.stderr ?? '');
  return { wall_ms, rss_mb: m ? Math.round(Number(m[1]) / 102.4) / 10 : 'n/a' };
}

/** `navkernel navigate` as a user runs it: cold (empty cache), then warm (same cache), and `navkernel --version`. */
export function timeCli(repo: BenchRepo, base: string): { cold: ReturnType<typeof cliRun>; warm: ReturnType<typeof cliRun>; version: ReturnType<typeof cliRun> } {
  const dir = stage(repo, base);
  const cacheDir = mkdtempSync(path.join(base, 'cli-cache-'));
  const args = ['navigate', '--repo', dir, '--task', repo.task, '--out', mkdtempSync(path.join(base, 'cli-out-')), '--cache-dir', cacheDir, '-q', '--json'];
  const cold = cliRun(args);
  const warm = cliRun(args);
  return { cold, warm, version: cliRun(['--version']) };
}

/**
 * The same two calls as a user runs them, with the resident navigator (a private socket folder; the bench's other
 * rows run without it): the cold call starts a resident and is its first call, the warm one its second. Wall ms of
 * the warm call; the resident is stopped before returning.
 */
export async function timeCliResident(repo: BenchRepo, base: string): Promise<number> {
  const dir = stage(repo, base);
  const socketDir = mkdtempSync(path.join(base, 'rd-'));
  const env = { ...process.env, NAVKERNEL_RESIDENT: '1', NAVKERNEL_RESIDENT_DIR: socketDir };
  const args = ['navigate', '--repo', dir, '--task', repo.task, '--out', mkdtempSync(path.join(base, 'cli-out-')), '--cache-dir', mkdtempSync(path.join(base, 'cli-cache-')), '-q', '--json'];
  try {
    cliRun(args, env);
    return cliRun(args, env).wall_ms;
  } finally {
    for (const name of readdirSync(socketDir).filter((n) => n.endsWith('.sock'))) await exchange(path.join(socketDir, name), { v: RESIDENT_PROTOCOL, op: 'stop' });
  }
}

/** Cold (fresh process, empty cache) and warm (fresh process, same cache) navigation of one repo. */
export function timeNavigation(repo: BenchRepo, base: string): { repo: string; files: number; cold: ChildResult; warm: ChildResult } {
  const dir = stage(repo, base);
  const cacheDir = mkdtempSync(path.join(base, 'cache-'));
  const cold = child('navigate', [dir, cacheDir, repo.task]);
  const warm = child('navigate', [dir, cacheDir, repo.task]);
  return { repo: repo.name, files: Number(cold.files), cold, warm };
}

/**
 * Navigation time on three repositories of different sizes (for charts): files indexed, cold and warm
 * wall time (ms) of a whole `navigate` in a fresh process, and its peak RSS.
 */
export async function navigatorSizeSeries(opts: { quick: boolean }): Promise<{ repo: string; files: number; bytes: number; cold_ms: number; warm_ms: number; rss_mb: number }[]> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'nk-bench-nav-'));
  try {
    // Quick runs (the smoke test in `npm test`) use the small fixture only: they check the bench runs, not speed.
    const repos = opts.quick ? [BENCH_REPOS.small] : [BENCH_REPOS.small, BENCH_REPOS.medium, BENCH_REPOS.large];
    return repos.map((r) => {
      const t = timeNavigation(r, base);
      const bytes = scanRepo(stage(r, base)).files.reduce((s, f) => s + f.size, 0);
      return { repo: r.name, files: t.files, bytes, cold_ms: t.cold.ms, warm_ms: t.warm.ms, rss_mb: Math.max(t.cold.rss_mb, t.warm.rss_mb) };
    });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** The bench section: navigator cold/warm, parse and token rates, peak memory, and repomix on the same tree. */
export async function benchNavigator(opts: { quick: boolean }): Promise<BenchSection> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'nk-bench-nav-'));
  try {
    const target = opts.quick ? BENCH_REPOS.small : BENCH_REPOS.large;
    const dir = stage(target, base);
    const idx = child('index', [dir, mkdtempSync(path.join(base, 'cache-'))]);
    const tok = child('tokens', [dir]);
    const nav = timeNavigation(target, base);
    const cli = timeCli(target, base);
    const cliResidentWarm = await timeCliResident(target, base);
    const mapCache = mkdtempSync(path.join(base, 'cache-'));
    child('index', [dir, mapCache]);
    const map = child('map', [dir, mapCache]);
    const rmxPlain = repomix(dir, path.join(base, 'repomix-plain.xml'), false);
    const rmx = repomix(dir, path.join(base, 'repomix-compress.xml'), true);
    const series = await navigatorSizeSeries(opts);
    const mb = Number(idx.bytes) / 2 ** 20;
    const figures = {
      files: Number(idx.files),
      parse_files_per_s: Number(idx.parsed) / (idx.ms / 1000),
      parse_mb_per_s: mb / (idx.ms / 1000),
      tokens_per_s: Number(tok.tokens) / (Number(tok.count_ms) / 1000),
      nav_cold_ms: nav.cold.ms,
      nav_warm_ms: nav.warm.ms,
      nav_warm_parsed: Number(nav.warm.parsed),
      nav_peak_rss_mb: Math.max(nav.cold.rss_mb, nav.warm.rss_mb),
      nav_loaded_tokens: Number(nav.cold.loaded_tokens),
      nav_ratio: Number(nav.cold.ratio),
      cli_cold_wall_ms: cli.cold.wall_ms,
      cli_warm_wall_ms: cli.warm.wall_ms,
      cli_resident_warm_wall_ms: cliResidentWarm,
      cli_peak_rss_mb: typeof cli.cold.rss_mb === 'number' ? cli.cold.rss_mb : Number.NaN,
      cli_version_wall_ms: cli.version.wall_ms,
      corpus_tokens: Number(idx.corpus_tokens),
      map_l3_tokens: Number(map.tokens),
      repomix_plain_tokens: rmxPlain.tokens,
      repomix_compress_ms: rmx.ms,
      repomix_compress_tokens: rmx.tokens,
    };
    const body = [
      `Target: \`${target.dir}\` (${figures.files} text files, ${mb.toFixed(1)} MB), copied to a temporary folder so both tools see the same files. Task: “${target.task}”. Each row is a fresh Node process; tokens are o200k_base (repomix's default encoding), counted with gpt-tokenizer.`,
      '',
      table(
        ['measure', 'value'],
        [
          ['index, cold (scan + hash + tree-sitter outline), ms', idx.ms],
          ['files parsed per second (cold index)', figures.parse_files_per_s],
          ['MB parsed per second (cold index)', figures.parse_mb_per_s],
          ['tokens counted per second (o200k_base, long runs cut)', figures.tokens_per_s],
          ['navigate, cold (empty cache), ms', nav.cold.ms],
          ['navigate, warm (cache), ms', nav.warm.ms],
          ['files parsed on the warm run', figures.nav_warm_parsed],
          ['`navkernel navigate`, cold, wall incl. process start, ms (goal ≤ 3,000)', cli.cold.wall_ms],
          ['`navkernel navigate`, warm, wall incl. process start, ms (goal ≤ 300)', cli.warm.wall_ms],
          ['`navkernel navigate`, warm, handed to the resident the cold call started (as a user runs it), wall, ms', cliResidentWarm],
          ['peak RSS of `navkernel navigate` (cold), MB (goal ≤ 250)', cli.cold.rss_mb],
          ['`navkernel --version`, wall, ms (goal ≤ 150)', cli.version.wall_ms],
          ['peak RSS of a navigate process, MB', figures.nav_peak_rss_mb],
          [`navigator exit`, String(nav.cold.exit)],
          ['navigator context tokens (budget 8,000)', figures.nav_loaded_tokens],
          ['compression ratio (corpus tokens / context tokens)', figures.nav_ratio],
        ],
      ),
      '',
      'Beside it, the same folder packed whole:',
      '',
      table(
        ['tool', 'time, ms', 'output tokens'],
        [
          ['corpus (every text file, plain)', '—', figures.corpus_tokens],
          ['`repomix` (plain)', rmxPlain.ms, rmxPlain.tokens],
          ['`repomix --compress`', rmx.ms, rmx.tokens],
          ['repomap, whole repo at L3 (signatures + docs), index cached', map.ms, figures.map_l3_tokens],
          ['navigator, task context (CLI, cold / warm wall)', `${Math.round(cli.cold.wall_ms)} / ${Math.round(cli.warm.wall_ms)}`, figures.nav_loaded_tokens],
        ],
      ),
      '',
      'Navigation time by repository size (fresh process each; warm = second run on the same cache):',
      '',
      table(
        ['repository', 'files', 'MB', 'cold, ms', 'warm, ms', 'peak RSS, MB'],
        series.map((s) => [s.repo, s.files, (s.bytes / 2 ** 20).toFixed(2), s.cold_ms, s.warm_ms, s.rss_mb]),
      ),
    ].join('\n');
    return { title: 'Navigator and repo map', body, figures };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2]) {
  childMain(process.argv[2], process.argv.slice(3)).catch((e) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 1;
  });
}
