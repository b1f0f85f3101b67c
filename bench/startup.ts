// Start-up and weight (issue 13 item 5): how long the CLI takes to answer and what importing an entry point costs,
// each in a fresh Node process of the compiled package (dist/), median of several runs.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { percentile, table, type BenchSection } from './stats.js';

/** Wall time (ms) of a child process from spawn to exit. */
function wallMs(args: string[], input = ''): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: packageRoot(), input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Time (ms) of `import(file)` inside a fresh process, and that process's RSS (MB) right after it. */
function importCost(file: string): { ms: number; rssMb: number } {
  const url = new URL(`file://${path.join(packageRoot(), file)}`).href;
  const code = `const t = performance.now(); await import(${JSON.stringify(url)}); const ms = performance.now() - t; console.log(JSON.stringify({ ms, rssMb: process.memoryUsage().rss / 1e6 }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: packageRoot(), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`import ${file} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { ms: number; rssMb: number };
}

const median = (xs: number[]) => percentile(xs, 50);

export async function benchStartup({ quick }: { quick: boolean }): Promise<BenchSection> {
  const runs = quick ? 3 : 9;
  const bin = path.join(packageRoot(), 'bin', 'navkernel.js');
  const request = JSON.stringify({ run_id: 'bench-startup', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' });
  const times = (f: () => number) => Array.from({ length: runs }, f);
  const bare = median(times(() => wallMs(['-e', '0'])));
  const version = median(times(() => wallMs([bin, '--version'])));
  const route = median(times(() => wallMs([bin, 'route', '--no-ledger', '--flows', 'charters'], request + '\n')));
  const entries = [
    ['`navkernel/kernel`', 'dist/src/kernel/entry.js'],
    ['`navkernel/service`', 'dist/src/service/entry.js'],
    ['`navkernel` (the root API)', 'dist/src/index.js'],
  ] as const;
  const imports = entries.map(([label, file]) => {
    const samples = Array.from({ length: runs }, () => importCost(file));
    return { label, ms: median(samples.map((s) => s.ms)), rssMb: median(samples.map((s) => s.rssMb)) };
  });
  const kernel = imports[0]!;
  const body = [
    `Each figure is the median of ${runs} fresh Node processes on the compiled package. Wall times include Node's own start-up: \`node -e 0\` takes ${bare.toFixed(0)} ms here.`,
    '',
    table(
      ['measure', 'now', 'goal'],
      [
        ['`navkernel --version`, wall ms', version, '≤ 150'],
        ['`navkernel --version` beyond `node -e 0`, ms', version - bare, '—'],
        ['`navkernel route --no-ledger`, one request, wall ms', route, '—'],
        ...imports.map((i) => [`import ${i.label}: ms / RSS MB after it`, `${i.ms.toFixed(0)} ms / ${i.rssMb.toFixed(0)} MB`, i === kernel ? '≤ 200 ms / ≤ 60 MB' : '—']),
      ],
    ),
  ].join('\n');
  return {
    title: 'Start-up and weight',
    body,
    figures: {
      node_bare_ms: bare,
      version_ms: version,
      route_one_ms: route,
      kernel_import_ms: kernel.ms,
      kernel_import_rss_mb: kernel.rssMb,
      service_import_ms: imports[1]!.ms,
      full_import_ms: imports[2]!.ms,
      full_import_rss_mb: imports[2]!.rssMb,
    },
  };
}
