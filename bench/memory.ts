// Peak memory of the built CLI: `navkernel route` over many routes with the ledger, and `navkernel navigate`
// on the largest bench repository. Each runs as a child process whose own peak RSS is read.
import { spawn } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RouteRequest } from '../src/contracts/index.js';
import { DEMO_SCENARIO, simulate } from '../src/demo/index.js';
import { MemoryStore, createKernel, loadFlows } from '../src/kernel/index.js';
import { packageRoot } from '../src/package-root.js';
import { BENCH_REPOS, type BenchRepo } from './navigator.js';
import { table, type BenchSection } from './stats.js';

const TIME = '/usr/bin/time';

interface ChildRun {
  code: number | null;
  peakRssMb: number;
  ms: number;
  stdoutLines: number;
  /** How the peak RSS was read. */
  via: string;
}

/**
 * Runs `node args…` with stdin from `stdinFile`, counting stdout lines, and reads the child's peak RSS:
 * from GNU time (`%M`, KiB) when /usr/bin/time exists, otherwise from a wrapper that reports
 * `process.resourceUsage().maxRSS` at exit.
 */
function runMeasured(args: string[], stdinFile: string | null, tmp: string): Promise<ChildRun> {
  const marker = 'NAVKERNEL_BENCH_MAXRSS_KB=';
  let cmd: string;
  let argv: string[];
  let via: string;
  if (existsSync(TIME)) {
    cmd = TIME;
    argv = ['-f', `${marker}%M`, process.execPath, ...args];
    via = 'GNU time %M';
  } else {
    const wrapper = path.join(tmp, 'maxrss-wrapper.mjs');
    writeFileSync(
      wrapper,
      `process.on('exit', () => process.stderr.write('\\n${marker}' + process.resourceUsage().maxRSS + '\\n'));\n` +
        `const target = process.argv[2]; process.argv.splice(1, 2, target);\nawait import(${JSON.stringify('file://')} + target);\n`,
    );
    cmd = process.execPath;
    argv = [wrapper, ...args];
    via = 'process.resourceUsage().maxRSS';
  }
  const stdin = stdinFile ? openSync(stdinFile, 'r') : 'ignore';
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv, { cwd: tmp, stdio: [stdin, 'pipe', 'pipe'] });
    if (typeof stdin === 'number') closeSync(stdin);
    let lines = 0;
    let err = '';
    child.stdout!.on('data', (b: Buffer) => {
      for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) lines++;
    });
    child.stderr!.on('data', (b: Buffer) => (err += b.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = new RegExp(`${marker}(\\d+)`).exec(err);
      if (!m) return reject(new Error(`no peak RSS reported by the child (exit ${code}): ${err.slice(-500)}`));
      resolve({ code, peakRssMb: Number(m[1]) / 1024, ms: performance.now() - t0, stdoutLines: lines, via });
    });
  });
}

/** `n` realistic route requests: the demo runner's runs on the sample charters, as many as needed. */
async function demoRequests(n: number): Promise<RouteRequest[]> {
  const flows = await loadFlows(path.join(packageRoot(), 'charters'));
  const out: RouteRequest[] = [];
  for (let batch = 0; out.length < n; batch++) {
    const kernel = createKernel({ flows, store: new MemoryStore(), validate: false });
    await simulate(kernel, { ...DEMO_SCENARIO, runs: 200 }, { runPrefix: `mem-${batch}`, onStep: (s) => out.length < n && out.push(s.request) });
    await kernel.close();
  }
  return out;
}

/** The memory section. */
export async function benchMemory(opts: { quick: boolean }): Promise<BenchSection> {
  const routes = opts.quick ? 1_000 : 100_000;
  const repo: BenchRepo = opts.quick ? BENCH_REPOS.small : BENCH_REPOS.large;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'navkernel-bench-mem-'));
  const bin = path.join(packageRoot(), 'bin', 'navkernel.js');
  try {
    const input = path.join(tmp, 'requests.jsonl');
    writeFileSync(input, (await demoRequests(routes)).map((r) => JSON.stringify(r)).join('\n') + '\n');
    const route = await runMeasured([bin, 'route', '--flows', path.join(packageRoot(), 'charters'), '--ledger', path.join(tmp, 'ledger.sqlite')], input, tmp);
    if (route.code !== 0 || route.stdoutLines !== routes) throw new Error(`navkernel route exited ${route.code} after ${route.stdoutLines} of ${routes} decisions`);

    // The navigator's bench copies the repository out of node_modules so that no ignore file hides it.
    const dir = path.join(tmp, 'repo');
    cpSync(path.join(packageRoot(), repo.dir), dir, { recursive: true });
    const nav = await runMeasured([bin, 'navigate', '--repo', dir, '--task', repo.task, '--no-cache', '--out', path.join(tmp, 'nav-out'), '--quiet'], null, tmp);
    if (nav.code === null || ![0, 1, 3].includes(nav.code)) throw new Error(`navkernel navigate exited ${nav.code}`);

    const figures = {
      route_routes: routes,
      route_peak_rss_mb: route.peakRssMb,
      route_wall_ms: route.ms,
      route_per_s: (routes / route.ms) * 1000,
      navigate_peak_rss_mb: nav.peakRssMb,
      navigate_wall_ms: nav.ms,
    };
    const body = [
      `How to read this: the built CLI run as a child process, its peak resident set read with ${route.via}. ` +
        `\`navkernel route\` reads ${routes.toLocaleString('en-US')} JSONL requests (the demo runner's runs on the sample charters) on stdin and records each in a new SQLite ledger (durability normal, decisions.jsonl on), printing one decision per line; ` +
        `\`navkernel navigate\` runs once, cold (--no-cache), on ${repo.name} (\`${repo.dir}\`, the navigator bench's ${opts.quick ? 'small' : 'largest'} repository). Wall time includes process start-up.`,
      '',
      table(
        ['command', 'work', 'peak RSS MB', 'wall ms', 'routes/s'],
        [
          ['navkernel route --ledger', `${routes.toLocaleString('en-US')} routes`, route.peakRssMb, route.ms, figures.route_per_s],
          ['navkernel navigate --no-cache', repo.name, nav.peakRssMb, nav.ms, '—'],
        ],
      ),
    ].join('\n');
    return { title: 'Memory: peak RSS of the CLI', body, figures };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
