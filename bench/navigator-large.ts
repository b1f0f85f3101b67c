// Bench section: `navkernel navigate` on a large generated Python tree (the size of sympy: 1,500 files, ~400k
// lines; `--quick`: 120 files), cold, warm and at "another commit" (a copy of the tree in another folder
// with 1% of its files changed, the same cache), each a fresh CLI process; cold once more on one thread.
// The tree is generated from a seed (no network): packages of modules with classes, methods, calls across
// modules, docstrings and comments, and a tests/ folder per package.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom as rng } from '../src/demo/prng.js';
import { exchange } from '../src/cli/resident/client.js';
import { RESIDENT_PROTOCOL } from '../src/cli/resident/protocol.js';
import { navigate } from '../src/navigator/index.js';
import { packageRoot } from '../src/package-root.js';
import { table, type BenchSection } from './stats.js';

const WORDS = (
  'matrix vector poly ring field domain series limit integral solver printer parser lexer token symbol expr ' +
  'number rational real complex order basis group ideal module tensor graph node edge path cache store index ' +
  'quantity unit dimension scale factor root degree term monomial coefficient element function operator ' +
  'simplify expand factor collect cancel apart together evaluate substitute differentiate integrate'
).split(' ');

const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);

/** One module: `defs` classes of a few methods each, calling names defined in other modules. */
function moduleText(r: () => number, name: string, names: string[], defs: number, edit = 0): string {
  const pick = () => WORDS[Math.floor(r() * WORDS.length)]!;
  const other = () => names[Math.floor(r() * names.length)]!;
  const out: string[] = [`"""The ${name} module: ${pick()} and ${pick()} of ${pick()} ${pick()}s."""`, '', `from .base import ${other()}, ${other()}`, ''];
  for (let c = 0; c < defs; c++) {
    const cls = `${cap(pick())}${cap(pick())}${c}`;
    out.push(`class ${cls}:`, `    """A ${pick()} over a ${pick()} ${pick()} (${name}, revision ${edit})."""`, '');
    for (let m = 0; m < 4; m++) {
      const meth = `${pick()}_${pick()}`;
      out.push(`    def ${meth}(self, ${pick()}, ${pick()}=None):`, `        # ${pick()} the ${pick()} before the ${pick()}`);
      for (let k = 0; k < 4; k++) out.push(`        ${pick()} = ${other()}(${pick()}, self.${pick()}_${pick()}(${Math.floor(r() * 100)}))`);
      out.push(`        if ${pick()} is None:`, `            raise ValueError("${pick()} ${pick()} expected, got %s" % ${pick()})`, `        return ${pick()}`, '');
    }
  }
  out.push(`def ${names[Math.floor(r() * names.length)]!}_${name}(*args):`, `    return ${other()}(*args)`, '');
  return out.join('\n');
}

/** Writes the tree: `files` modules over packages of 20, a tests module for every fourth. Returns the paths, sorted. */
export function generateTree(dir: string, files: number, seed: number): string[] {
  const names = Array.from({ length: 400 }, (_, i) => `${WORDS[i % WORDS.length]}_${WORDS[Math.floor(i / WORDS.length) % WORDS.length]}`);
  const written: string[] = [];
  for (let i = 0; i < files; i++) {
    const pkg = `pkg/${WORDS[Math.floor(i / 20) % WORDS.length]}${Math.floor(i / 20)}`;
    const test = i % 4 === 3;
    const rel = `${pkg}/${test ? 'tests/test_' : ''}${WORDS[i % WORDS.length]}_${i}.py`;
    mkdirSync(path.join(dir, path.dirname(rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), moduleText(rng(seed * 7919 + i), `${WORDS[i % WORDS.length]}_${i}`, names, 6));
    written.push(rel);
  }
  writeFileSync(path.join(dir, 'README.md'), `# generated\n\nA tree of ${files} modules (seed ${seed}) for the navigator bench.\n`);
  return written.sort();
}

/** "Another commit": rewrites `share` of the files (chosen by seed) with new content. */
export function changeTree(dir: string, paths: string[], share: number, seed: number): number {
  const r = rng(seed);
  const names = ['changed_name', 'other_name'];
  let n = 0;
  for (const rel of paths) {
    if (r() >= share) continue;
    const abs = path.join(dir, rel);
    writeFileSync(abs, readFileSync(abs, 'utf8') + '\n' + moduleText(rng(seed + n), `edit_${n}`, names, 1, n + 1));
    n++;
  }
  return n;
}

interface Run {
  /** The 1-minute load average when the run started. */
  load: number;
  wall_ms: number;
  /** User + system CPU of the process, all its threads (worker threads and V8's compiler and GC threads included). */
  cpu_ms: number | string;
  rss_mb: number | string;
}

/** One `navkernel navigate` CLI process: wall time (process start included), CPU and peak RSS via /usr/bin/time. */
function navigateCli(repo: string, task: string, extra: string[], env: NodeJS.ProcessEnv = process.env): Run {
  const bin = path.join(packageRoot(), 'bin', 'navkernel.js');
  const out = mkdtempSync(path.join(os.tmpdir(), 'nk-bench-large-out-'));
  try {
    const args = ['navigate', '--repo', repo, '--task', task, '--out', out, '-q', '--json', ...extra];
    const timed = existsSync('/usr/bin/time');
    const load = os.loadavg()[0]!;
    const t0 = performance.now();
    const r = timed
      ? spawnSync('/usr/bin/time', ['-f', 'NKTIME %M %U %S', process.execPath, bin, ...args], { encoding: 'utf8', env, maxBuffer: 64 * 2 ** 20 })
      : spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, maxBuffer: 64 * 2 ** 20 });
    const wall_ms = performance.now() - t0;
    if (r.status !== 0 && r.status !== 3) throw new Error(`navigate failed (${r.status}): ${r.stderr}${r.stdout}`);
    const m = /NKTIME (\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
    return { load, wall_ms, cpu_ms: m ? Math.round((Number(m[2]) + Number(m[3])) * 1000) : 'n/a', rss_mb: m ? Math.round(Number(m[1]) / 102.4) / 10 : 'n/a' };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Wall ms of `navigate()` called again in this process (what `navkernel mcp` does per call): the median of `times` after a first call. */
async function navigateInProcess(repo: string, task: string, cacheDir: string, times: number): Promise<number> {
  const call = async () => {
    const t0 = performance.now();
    const o = await navigate({ task, repo_root: repo }, { cacheDir });
    if (o.exit !== 'EXIT_PASS') throw new Error(`navigate in process: ${o.exit} (${o.stop_reason})`);
    return performance.now() - t0;
  };
  await call();
  const ms: number[] = [];
  for (let i = 0; i < times; i++) ms.push(await call());
  return ms.sort((x, y) => x - y)[Math.floor(times / 2)]!;
}

/** A long-lived process's first navigation of `repo` with an empty cache (bench/first-call-child.ts): to the answer, and until its caches are written. */
function firstCall(repo: string, task: string, cacheDir: string, env: NodeJS.ProcessEnv = process.env): { load: number; answer: { cpu_ms: number; wall_ms: number }; written: { cpu_ms: number; wall_ms: number } } {
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'first-call-child.js');
  const load = os.loadavg()[0]!;
  const r = spawnSync(process.execPath, [child, repo, task, cacheDir], { encoding: 'utf8', env, maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`first-call child failed (${r.status}): ${r.stderr}`);
  return { load, ...(JSON.parse(r.stdout) as { answer: { cpu_ms: number; wall_ms: number }; written: { cpu_ms: number; wall_ms: number } }) };
}

const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

/**
 * Wall ms of `navkernel navigate` CLI processes answered by the resident navigator: the first call starts it (and
 * is its first answer), the second its second; the median of `times` after those.
 * The resident is stopped before returning.
 */
async function navigateThroughResident(repo: string, task: string, cacheDir: string, socketDir: string, times: number): Promise<number> {
  const env = { ...process.env, NAVKERNEL_RESIDENT: '1', NAVKERNEL_RESIDENT_DIR: socketDir };
  navigateCli(repo, task, ['--cache-dir', cacheDir], env);
  const socketOf = async (): Promise<string> => {
    for (let i = 0; i < 3000; i++) {
      const name = existsSync(socketDir) ? readdirSync(socketDir).find((n) => n.endsWith('.sock')) : undefined;
      if (name && !('failed' in (await exchange(path.join(socketDir, name), { v: RESIDENT_PROTOCOL, op: 'status' })))) return path.join(socketDir, name);
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the resident navigator did not start');
  };
  const socket = await socketOf();
  try {
    navigateCli(repo, task, ['--cache-dir', cacheDir], env);
    return median(Array.from({ length: times }, () => navigateCli(repo, task, ['--cache-dir', cacheDir], env).wall_ms));
  } finally {
    await exchange(socket, { v: RESIDENT_PROTOCOL, op: 'stop' });
  }
}

/** The goals of issue 40. */
const COLD_GOAL_MS = 2000;
const WARM_GOAL_MS = 100;
const CLI_GOAL_MS = 300;

export async function benchNavigatorLarge(opts: { quick: boolean }): Promise<BenchSection> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'nk-bench-large-'));
  try {
    const files = opts.quick ? 120 : 1500;
    const a = path.join(base, 'commit-a');
    const paths = generateTree(a, files, 2026);
    const b = path.join(base, 'commit-b');
    cpSync(a, b, { recursive: true });
    const changed = changeTree(b, paths, 0.01, 7);
    const lines = paths.reduce((s, p) => s + readFileSync(path.join(a, p), 'utf8').split('\n').length, 0);
    const bytes = paths.reduce((s, p) => s + readFileSync(path.join(a, p), 'utf8').length, 0);
    const task = 'simplify_expand raises ValueError "integral series expected" when the MatrixPoly ring is evaluated';
    const cache = path.join(base, 'cache');
    const one = { ...process.env, NAVKERNEL_INDEX_THREADS: '1' };
    const coldLoad = os.loadavg()[0]!;
    const rows: [string, Run][] = [
      ['cold, `--no-cache`, one thread', navigateCli(a, task, ['--no-cache'], one)],
      ['cold, `--no-cache`', navigateCli(a, task, ['--no-cache'])],
      ['cold, empty cache', navigateCli(a, task, ['--cache-dir', cache])],
      ['warm (same tree, same cache)', navigateCli(a, task, ['--cache-dir', cache])],
      [`another commit (a copy in another folder, ${changed} files changed)`, navigateCli(b, task, ['--cache-dir', cache])],
      ['another commit, warm', navigateCli(b, task, ['--cache-dir', cache])],
    ];
    // Warm CLI processes, each navigating in its own process: the median of 5.
    const warmCli = median(Array.from({ length: 5 }, () => navigateCli(a, task, ['--cache-dir', cache]).wall_ms));
    // The same calls handed to the resident navigator (a socket folder of the bench's own; stopped below).
    const viaResident = await navigateThroughResident(a, task, cache, path.join(base, 'resident'), 5);
    // The MCP server's path: one long-lived process navigating again (the index and text index read once, the code compiled).
    const inProcess = await navigateInProcess(a, task, cache, 5);
    // A real repository as well when one is given (NAVKERNEL_BENCH_REPO, e.g. a checkout of sympy: the goal's tree).
    const realRepo = process.env.NAVKERNEL_BENCH_REPO;
    const realTask = process.env.NAVKERNEL_BENCH_TASK ?? 'simplify of sqrt with Abs raises TypeError in powsimp';
    const real: [string, Run][] = realRepo && existsSync(realRepo)
      ? [
          [`cold, \`--no-cache\`, one thread: ${path.basename(realRepo)}`, navigateCli(realRepo, realTask, ['--no-cache'], one)],
          [`cold, \`--no-cache\`: ${path.basename(realRepo)}`, navigateCli(realRepo, realTask, ['--no-cache'])],
        ]
      : [];
    // The first call of a long-lived process on a new repository: its answer comes before its caches are written.
    const firsts: [string, ReturnType<typeof firstCall>][] = [[`first call in a long-lived process, empty cache`, firstCall(a, task, path.join(base, 'first-call-cache'))]];
    if (realRepo && existsSync(realRepo)) firsts.push([`first call in a long-lived process, empty cache: ${path.basename(realRepo)}`, firstCall(realRepo, realTask, path.join(base, 'first-call-real-cache'))]);
    const cold = [...rows.slice(0, 2), ...real];
    const goals: (string | number)[][] = [
      ...cold.map(([name, r]) => [name, r.wall_ms, typeof r.cpu_ms === 'number' ? r.cpu_ms : '—', COLD_GOAL_MS, `${(r.wall_ms / COLD_GOAL_MS).toFixed(2)}×`]),
      ['warm, in a long-lived process', inProcess, '—', WARM_GOAL_MS, `${(inProcess / WARM_GOAL_MS).toFixed(2)}×`],
      ['warm CLI, handed to the resident navigator', viaResident, '—', CLI_GOAL_MS, `${(viaResident / CLI_GOAL_MS).toFixed(2)}×`],
    ];
    const body = [
      `A generated Python tree (seed 2026): ${files.toLocaleString('en-US')} files, ${lines.toLocaleString('en-US')} lines, ${(bytes / 2 ** 20).toFixed(1)} MiB; the task names a few of its words. Each row is one \`navkernel navigate\` process (start-up included); the machine has ${os.availableParallelism()} cores.`,
      '',
      table(['run', 'wall ms', 'CPU ms', 'peak RSS MB', 'load (1 min)'], [
        ...[...rows, ...real].map(([name, r]) => [name, r.wall_ms, r.cpu_ms, r.rss_mb, r.load.toFixed(1)]),
        ['warm CLI, in its own process: median of 5', warmCli, '—', '—'],
        ['warm CLI, handed to the resident navigator: median of 5 after one', viaResident, '—', '—'],
        ['warm, in a long-lived process (`navkernel mcp`, a library call): median of 5 after one', inProcess, '—', '—'],
      ]),
      '',
      'A long-lived process (`navkernel mcp`, the resident navigator, a library caller) navigating a repository for the first time, with an empty cache, in a fresh process: CPU and wall time to the answer, then to its caches written (they wait for the answer):',
      '',
      table(['run', 'answer: wall ms', 'answer: CPU ms', 'caches written: wall ms', 'caches written: CPU ms', 'load (1 min)'], firsts.map(([name, f]) => [name, f.answer.wall_ms, f.answer.cpu_ms, f.written.wall_ms, f.written.cpu_ms, f.load.toFixed(1)])),
      '',
      'Against the goals of issue 40 (cold ≤ 2 s on a sympy-sized tree, warm ≤ 100 ms in a long-lived process, ≤ 300 ms from the CLI); the ratio is wall time over the goal (below 1 meets it):',
      '',
      table(['run', 'wall ms', 'CPU ms', 'goal ms', 'wall / goal'], goals),
      '',
      realRepo ? `The real tree: ${realRepo}, task ${JSON.stringify(realTask)}.` : 'No real tree given (set NAVKERNEL_BENCH_REPO to a checkout, e.g. of sympy, to add its cold rows).',
      '',
      `CPU is user + system time of the process, all its threads. A cold index parses on the cores the 1-minute load average leaves idle (one thread on a busy machine); the load average was ${coldLoad.toFixed(1)} before the cold rows and ${os.loadavg()[0]!.toFixed(1)} at the end.`,
    ].join('\n');
    const figures: Record<string, number> = { files, lines, changed };
    const keys = ['cold_nocache_1thread_ms', 'cold_nocache_ms', 'cold_cache_ms', 'warm_ms', 'other_commit_ms', 'other_commit_warm_ms'];
    rows.forEach(([, r], i) => {
      figures[keys[i]!] = r.wall_ms;
      if (typeof r.cpu_ms === 'number') figures[keys[i]!.replace(/_ms$/, '_cpu_ms')] = r.cpu_ms;
    });
    figures.warm_cli_median_ms = warmCli;
    figures.warm_cli_resident_ms = viaResident;
    figures.warm_in_process_ms = inProcess;
    real.forEach(([, r], i) => {
      const key = i === 0 ? 'real_cold_nocache_1thread' : 'real_cold_nocache';
      figures[`${key}_ms`] = r.wall_ms;
      if (typeof r.cpu_ms === 'number') figures[`${key}_cpu_ms`] = r.cpu_ms;
    });
    firsts.forEach(([, f], i) => {
      const key = i === 0 ? 'first_call' : 'real_first_call';
      figures[`${key}_answer_ms`] = f.answer.wall_ms;
      figures[`${key}_answer_cpu_ms`] = f.answer.cpu_ms;
      figures[`${key}_written_ms`] = f.written.wall_ms;
    });
    figures.cold_nocache_over_goal = rows[1]![1].wall_ms / COLD_GOAL_MS;
    return { title: `Navigator on a large tree (${files.toLocaleString('en-US')} files): cold, warm, another commit`, body, figures };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
