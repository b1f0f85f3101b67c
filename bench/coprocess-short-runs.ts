// Many short runs through the co-process with off-road logging on (issue 27, row 2): 4,000 runs of 10 routes, 20%
// off-road, streamed into `navkernel route --ledger` (a child process) with R runs routed side by side, every answer
// read and checked. Beside it, in the same run, the same co-process loop with the decisions.jsonl mirror on and off
// (bench/coprocess-child.ts): the mirror's cost, and the floor it is measured against. Afterwards the decisions.jsonl
// lines on disk are counted against the off-road decisions answered (the mirror's guarantee, checked where measured).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from '../src/package-root.js';

/** The ten routes of one run on the build flow: two of them off-road (a microloop LOOP). */
const RUN_STEPS: [step: string, status: string, forensics: Record<string, unknown>][] = [
  ['build-step-1', 'VERIFIED', { tests: { passed: 3, failed: 0 } }],
  ['build-step-3', 'UNVERIFIED', { tests: { passed: 40, failed: 2 }, error_output: 'AssertionError: expected 3 to equal 4' }],
  ['build-step-3', 'VERIFIED', { tests: { passed: 42, failed: 0 } }],
  ['build-review', 'APPROVED', { concerns: [] }],
  ['build-step-1', 'VERIFIED', { tests: { passed: 3, failed: 0 } }],
];
const ROUTES_PER_RUN = 10;

/** The lines of `runs` runs of ten routes, `atOnce` runs interleaved at a time (each run's routes in order). */
export function shortRunLines(runs: number, atOnce: number, prefix: string): { lines: string[]; runIds: string[] } {
  const lines: string[] = [];
  const runIds: string[] = [];
  for (let first = 0; first < runs; first += atOnce) {
    const group = Array.from({ length: Math.min(atOnce, runs - first) }, (_, k) => `${prefix}-${first + k}`);
    for (let i = 0; i < ROUTES_PER_RUN; i++) {
      for (const run_id of group) {
        const [step_completed, status, forensics] = RUN_STEPS[i % RUN_STEPS.length]!;
        lines.push(`${JSON.stringify({ run_id, flow: 'build', step_completed, status, request_id: `${run_id}-${i}`, forensics, restart: { reason: 'bench' } })}\n`);
        runIds.push(run_id);
      }
    }
  }
  return { lines, runIds };
}

export interface ShortRunsFigure {
  label: string;
  mirror: 'on' | 'off';
  runs: number;
  atOnce: number;
  routes: number;
  offroad: number;
  perSecond: number;
  /** The co-process's CPU time (all its threads: routing, SQLite, the mirror's thread) per route, µs. */
  cpuUsPerRoute: number;
  /** decisions.jsonl lines on disk once the co-process exited (the off-road decisions, warm-up run included, when the mirror is on). */
  jsonlLines: number;
}

function cpuMs(pid: number): number {
  // utime + stime (fields 14 and 15, after the command name in parentheses), in clock ticks of 10 ms.
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

function countJsonlLines(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const p = path.join(dir, name);
    if (name.endsWith('decisions.jsonl') && statSync(p).isFile()) n += readFileSync(p, 'utf8').split('\n').filter((l) => l.length > 0).length;
  }
  return n;
}

/** One co-process (the CLI, or the bench's child with the mirror on or off) fed `runs` short runs, `atOnce` at a time. */
async function shortRuns(kind: 'cli' | 'child', mirror: 'on' | 'off', runs: number, atOnce: number): Promise<ShortRunsFigure> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'navkernel-bench-short-'));
  try {
    const ledger = path.join(dir, 'ledger.sqlite');
    const root = packageRoot();
    const args =
      kind === 'cli'
        ? [path.join(root, 'bin', 'navkernel.js'), 'route', '--flows', path.join(root, 'charters'), '--ledger', ledger]
        : [path.join(root, 'dist', 'bench', 'coprocess-child.js'), ledger, mirror];
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const answers = createInterface({ input: child.stdout!, crlfDelay: Infinity })[Symbol.asyncIterator]();
    const next = async (): Promise<Record<string, unknown>> => {
      const r = await answers.next();
      if (r.done) throw new Error(`the co-process (${kind}, mirror ${mirror}) ended early`);
      return JSON.parse(r.value) as Record<string, unknown>;
    };
    // Start-up is not routing: a first run answered before the clock starts.
    const warm = shortRunLines(1, 1, 'warm-up');
    child.stdin!.write(warm.lines.join(''));
    let warmOffroad = 0;
    for (let i = 0; i < warm.lines.length; i++) if ((await next()).decision !== 'CONTINUE') warmOffroad++;
    let offroad = 0;
    const { lines, runIds } = shortRunLines(runs, atOnce, 'short');
    const cpu0 = cpuMs(child.pid!);
    const t0 = process.hrtime.bigint();
    const payload = Buffer.from(lines.join(''));
    child.stdin!.end(payload);
    for (let i = 0; i < lines.length; i++) {
      const a = await next();
      if (typeof a.decision !== 'string' || a.run_id !== runIds[i]) throw new Error(`answer ${i} out of order or an error: ${JSON.stringify(a)}`);
      if (a.decision !== 'CONTINUE') offroad++;
    }
    const took = Number(process.hrtime.bigint() - t0) / 1e6;
    const cpu = cpuMs(child.pid!) - cpu0;
    const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
    if (code !== 0) throw new Error(`the co-process (${kind}, mirror ${mirror}) exited ${code}`);
    const jsonlLines = countJsonlLines(dir);
    if (mirror === 'on' && jsonlLines !== warmOffroad + offroad) throw new Error(`decisions.jsonl holds ${jsonlLines} lines for ${warmOffroad + offroad} off-road decisions`);
    const label = kind === 'cli' ? '`navkernel route --ledger`' : `co-process loop, decisions.jsonl ${mirror}`;
    return { label, mirror, runs, atOnce, routes: lines.length, offroad, perSecond: (lines.length / took) * 1000, cpuUsPerRoute: (cpu * 1000) / lines.length, jsonlLines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each `atOnce`: the CLI (mirror on), then the bench's co-process loop with the mirror on and off, one after another. */
export async function shortRunsFigures(runs: number, atOnceList: readonly number[]): Promise<ShortRunsFigure[]> {
  const out: ShortRunsFigure[] = [];
  for (const atOnce of atOnceList) {
    out.push(await shortRuns('cli', 'on', runs, atOnce));
    out.push(await shortRuns('child', 'on', runs, atOnce));
    out.push(await shortRuns('child', 'off', runs, atOnce));
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await shortRunsFigures(Number(process.argv[2] ?? 4000), [16, 64])));
}
