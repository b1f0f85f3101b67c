// What a Python runner sees of the co-process (issue 13 items 3 and 7): bench/coprocess_client.py, stdlib only,
// drives `navkernel route` one request at a time in memory (latency) and pipelined over 16 runs with the SQLite
// ledger (throughput); skipped, saying so, when python3 is not installed. Then many short runs (bench/coprocess-short-runs.ts):
// the CLI, and the same co-process loop with decisions.jsonl on and off (its floor), driven from this process.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { shortRunsFigures, type ShortRunsFigure } from './coprocess-short-runs.js';
import { table, type BenchSection } from './stats.js';

interface ClientResult {
  python: string;
  one_at_a_time: { requests: number; p50_ms: number; p99_ms: number; mean_ms: number };
  pipelined: { routes: number; runs: number; seconds: number; routes_per_s: number; exit: number };
}

/** The short-runs table (issue 27, row 2): the CLI and the co-process loop with decisions.jsonl on and off, same run. */
function shortRunsBody(rows: readonly ShortRunsFigure[]): string {
  const first = rows[0]!;
  const pairs = [...new Set(rows.map((r) => r.atOnce))].map((atOnce) => {
    const on = rows.find((r) => r.atOnce === atOnce && r.label.includes('loop') && r.mirror === 'on')!;
    const off = rows.find((r) => r.atOnce === atOnce && r.mirror === 'off')!;
    return `${atOnce} at a time: ${(on.perSecond / off.perSecond).toFixed(2)}× the floor's rate, ${Math.round(on.cpuUsPerRoute - off.cpuUsPerRoute)} µs more CPU per route (${Math.round(((on.cpuUsPerRoute - off.cpuUsPerRoute) * first.routes) / first.offroad)} µs per off-road line)`;
  });
  return [
    `Many short runs through the co-process (issue 27): ${first.runs.toLocaleString('en-US')} runs of 10 routes on the build flow, ${Math.round((first.offroad / first.routes) * 100)}% off-road (a microloop LOOP twice per run, so each run makes its \`<run>/build/routing/\` folders and its decisions.jsonl), streamed into the co-process R runs at a time (each run's routes in order, the next R runs after), every answer read and checked in order; routes/s from the first line written to the last answer read, after a warm-up run. SQLite ledger, durability normal, validation on. \`navkernel route --ledger\` is the CLI (decisions.jsonl on: it has no switch for it); the co-process loop is the same \`serveCoProcess\` and kernel in a bench child (bench/coprocess-child.ts) with the mirror on and off, the floor the mirror is measured against. CPU is the co-process's user + system time, all its threads (routing, SQLite, the mirror's thread), per route, from /proc. After each run the decisions.jsonl lines on disk were counted: one per off-road decision answered (warm-up included), or the bench fails. Goal: ≥ 20,000 routes/s with decisions.jsonl on.`,
    '',
    table(
      ['co-process', 'runs at a time', 'decisions.jsonl', 'routes', 'off-road', 'routes/s', 'CPU µs/route', 'jsonl lines on disk'],
      rows.map((r) => [r.label, String(r.atOnce), r.mirror, r.routes, r.offroad, r.perSecond, r.cpuUsPerRoute, r.jsonlLines.toLocaleString('en-US')]),
    ),
    '',
    `The mirror against its floor (the loop, on vs off): ${pairs.join('; ')}.`,
  ].join('\n');
}

export async function benchCoProcess({ quick }: { quick: boolean }): Promise<BenchSection> {
  const shortRows = await shortRunsFigures(quick ? 200 : 4000, [16, 64]);
  const short = shortRunsBody(shortRows);
  const shortFigures: Record<string, number> = {};
  for (const r of shortRows) {
    const key = `short_runs_${r.label.includes('loop') ? 'loop' : 'cli'}_jsonl_${r.mirror}_${r.atOnce}`;
    shortFigures[`${key}_per_s`] = r.perSecond;
    shortFigures[`${key}_cpu_us`] = r.cpuUsPerRoute;
  }
  const root = packageRoot();
  const args = [path.join(root, 'bench', 'coprocess_client.py'), '--node', process.execPath, '--root', root, '--n', quick ? '500' : '5000', '--runs', '16', '--routes', quick ? '2000' : '20000'];
  const r = spawnSync('python3', args, { cwd: root, encoding: 'utf8', timeout: 600_000 });
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status}: ${r.stderr.trim().split('\n').pop()}`;
    return { title: 'The co-process seen from a Python runner', body: `Not measured: python3 could not run the client (${why}).\n\n${short}`, figures: { python_missing: 1, ...shortFigures } };
  }
  const res = JSON.parse(r.stdout.trim().split('\n').pop()!) as ClientResult;
  const load = os.loadavg()[0]!;
  const body = [
    `\`bench/coprocess_client.py\` (Python ${res.python}, standard library only) drives \`navkernel route\` as a runner would. One request at a time: in memory (\`--no-ledger\`), write a line, wait for its answer (${res.one_at_a_time.requests} requests after a warm-up). Pipelined: a writer thread streams ${res.pipelined.routes} lines round-robin over ${res.pipelined.runs} runs into a co-process with a SQLite ledger (durability normal, decisions.jsonl on) while the main thread reads and checks every answer; routes/s from the first line written to the last answer read. Load average when it ended: ${load.toFixed(1)} on ${os.cpus().length} CPUs.`,
    '',
    table(
      ['measure', 'now', 'goal'],
      [
        ['one at a time, in memory: p50 ms', res.one_at_a_time.p50_ms, '—'],
        ['one at a time, in memory: p99 ms', res.one_at_a_time.p99_ms, '≤ 1'],
        [`pipelined over ${res.pipelined.runs} runs, with the ledger: routes/s`, res.pipelined.routes_per_s, '≥ 10,000'],
      ],
    ),
    '',
    short,
  ].join('\n');
  return {
    title: 'The co-process seen from a Python runner',
    body,
    figures: { one_p50_ms: res.one_at_a_time.p50_ms, one_p99_ms: res.one_at_a_time.p99_ms, pipelined_routes_per_s: res.pipelined.routes_per_s, ...shortFigures },
  };
}
