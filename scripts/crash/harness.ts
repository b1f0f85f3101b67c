// What the crash harness (`npm run crash`, scripts/crash/run.ts) and the process tests
// (tests/ledger/processes.test.ts, tests/postgres/processes.test.ts) share: how a child runner is spawned and
// read, what it routes, and its clock.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Decision, RouteRequest } from '../../src/contracts/index.js';
import { MemoryStore, createKernel, type FlowSet } from '../../src/kernel/index.js';
import { onLines } from './lines.js';

/** The clock of every child (and of the reference runs compared with them): request i of a run at CLOCK_START + i s. */
export const CLOCK_START = Date.UTC(2025, 0, 1);

/** The compiled child script (scripts/crash/child.ts) under a dist/ folder: `childScript(path.join(root, 'dist'))`. */
export const childScript = (dist: string): string => path.join(dist, 'scripts', 'crash', 'child.js');

/** The folders of dist/ a child needs; copy them to run children from a snapshot that a rebuild cannot break. */
export const CHILD_DIST_PARTS = ['src', 'machines', path.join('scripts', 'crash')];

/** The child's dist/ when this module runs compiled (dist/scripts/crash/harness.js). */
export const ownDist = (): string => path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The request the hammer mode routes as `${prefix}-${i}`: the same body every time, so a retry is idempotent. */
export function hammerRequest(run: string, prefix: string, i: number): RouteRequest {
  // The build steps in turn, each passing (restart: the hammer reports whichever step it likes). Each step is visited
  // every fourth route: a run of more than about 20 routes passes the shipped build flow's visit caps and escalates,
  // so longer hammering loads charters with the bounds raised (scripts/crash/hammer-flows.ts for `npm run crash`,
  // tests/support/long-run-charters.ts for the tests).
  const [step, status] = (
    [
      ['build-step-1', 'VERIFIED'],
      ['build-step-2', 'VERIFIED'],
      ['build-step-3', 'VERIFIED'],
      ['build-review', 'APPROVED'],
    ] as const
  )[i % 4]!;
  return { run_id: run, flow: 'build', step_completed: step, status, request_id: `${prefix}-${i}`, forensics: { tests: { passed: i, failed: 0 } }, restart: { reason: 'the hammer re-runs the build steps' } };
}

/**
 * The decisions a kernel that is never interrupted gives `requests`, in their order, on the children's clock: request i
 * of a run id is decided at CLOCK_START + i s, counted from that run id's first request (a simulated run of several
 * flows routes each under a run id of its own, `…-f2`), whatever the interleaving, as a resuming child decides it.
 */
export async function uninterruptedDecisions(flows: FlowSet, requests: readonly RouteRequest[]): Promise<Decision[]> {
  let index = 0;
  const kernel = createKernel({ flows, store: new MemoryStore(), clock: () => new Date(CLOCK_START + 1000 * index) });
  const routed = new Map<string, number>();
  const decisions: Decision[] = [];
  for (const request of requests) {
    index = routed.get(request.run_id) ?? 0;
    routed.set(request.run_id, index + 1);
    decisions.push(await kernel.route(request));
  }
  await kernel.close();
  return decisions;
}

/** An "ACK <request_id> <decision>" line of a child, or undefined for any other line. */
export function parseAck(line: string): { id: string; decision: Decision } | undefined {
  const m = /^ACK (\S+) (.*)$/.exec(line);
  return m ? { id: m[1]!, decision: JSON.parse(m[2]!) as Decision } : undefined;
}

export interface Child {
  /** Complete stdout lines so far. A line cut by the child's death is never here: it was never acknowledged. */
  readonly lines: string[];
  readonly stderr: string;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill: () => void;
  /** Called with each complete line and the number of lines so far. */
  onLine: (fn: (line: string, count: number) => void) => void;
}

/** Starts `node script ...args` with stdout and stderr piped. */
export function startChild(script: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Child {
  const child = spawn(process.execPath, [script, ...args], { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
  const lines: string[] = [];
  let stderr = '';
  let listener: ((line: string, count: number) => void) | undefined;
  onLines(child.stdout, (line) => {
    lines.push(line);
    listener?.(line, lines.length);
  });
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  return {
    lines,
    get stderr() {
      return stderr;
    },
    exit: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal }))),
    kill: () => child.kill('SIGKILL'),
    onLine: (fn) => (listener = fn),
  };
}
