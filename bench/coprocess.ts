// What a Python runner sees of the co-process (issue 13 items 3 and 7): bench/coprocess_client.py, stdlib only,
// drives `navkernel route` one request at a time in memory (latency) and pipelined over 16 runs with the SQLite
// ledger (throughput). Skipped, saying so, when python3 is not installed.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { table, type BenchSection } from './stats.js';

interface ClientResult {
  python: string;
  one_at_a_time: { requests: number; p50_ms: number; p99_ms: number; mean_ms: number };
  pipelined: { routes: number; runs: number; seconds: number; routes_per_s: number; exit: number };
}

export async function benchCoProcess({ quick }: { quick: boolean }): Promise<BenchSection> {
  const root = packageRoot();
  const args = [path.join(root, 'bench', 'coprocess_client.py'), '--node', process.execPath, '--root', root, '--n', quick ? '500' : '5000', '--runs', '16', '--routes', quick ? '2000' : '20000'];
  const r = spawnSync('python3', args, { cwd: root, encoding: 'utf8', timeout: 600_000 });
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status}: ${r.stderr.trim().split('\n').pop()}`;
    return { title: 'The co-process seen from a Python runner', body: `Not measured: python3 could not run the client (${why}).`, figures: { python_missing: 1 } };
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
  ].join('\n');
  return {
    title: 'The co-process seen from a Python runner',
    body,
    figures: { one_p50_ms: res.one_at_a_time.p50_ms, one_p99_ms: res.one_at_a_time.p99_ms, pipelined_routes_per_s: res.pipelined.routes_per_s },
  };
}
