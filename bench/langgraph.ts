// Routing overhead against LangGraph.js: the same three-step flow (plan → implement, a microloop of at most
// 3 iterations behind a conditional router → review) routed by navkernel and by a LangGraph StateGraph, with
// the same step outcomes, measured in alternating rounds in one process.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Annotation, END, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import type { Decision, RouteRequest } from '../src/contracts/index.js';
import { createKernel, defineFlows, type Kernel } from '../src/kernel/index.js';
import { openLedger } from '../src/ledger/index.js';
import { percentile, table, type BenchSection } from './stats.js';
import { ledgerSql } from '../src/ledger/sqlite-ledger.js';

const MAX_ITERATIONS = 3;

/** The flow both sides route: three steps, a microloop on `implement` with a conditional exit. */
export const BENCH_FLOWS = defineFlows([
  {
    flow: 'three-step',
    charter: { goal: 'Ship a planned change with passing tests', non_goals: [], key_question: 'Does the change work?' },
    steps: [
      { id: 'plan', agent: 'planner', next: 'implement' },
      { id: 'implement', agent: 'implementer', next: 'review', loop: { to: 'implement', max_iterations: MAX_ITERATIONS, exit_when: ['VERIFIED'] } },
      { id: 'review', agent: 'reviewer', terminal: true },
    ],
  },
]);

/** Failed attempts of `implement` in run i before it passes (0..3; 3 reaches the cap and moves on failing). */
const failuresOf = (i: number): number => i % 4;

/** Decisions a run makes: plan, each implement attempt, review. */
export const decisionsOfRun = (i: number): number => 2 + Math.min(failuresOf(i) + 1, MAX_ITERATIONS);

/** The requests a runner sends navkernel for run i, in order. */
export function runRequests(run_id: string, i: number): RouteRequest[] {
  const base = { run_id, flow: 'three-step' } as const;
  const out: RouteRequest[] = [{ ...base, step_completed: 'plan', agent: 'planner', status: 'VERIFIED', forensics: { tests: { passed: 0, failed: 0 } } }];
  const attempts = Math.min(failuresOf(i) + 1, MAX_ITERATIONS);
  for (let a = 1; a <= attempts; a++) {
    const failed = a <= failuresOf(i) ? 1 + (a % 3) : 0;
    out.push({ ...base, step_completed: 'implement', agent: 'implementer', status: failed ? 'UNVERIFIED' : 'VERIFIED', forensics: { tests: { passed: 40, failed } }, iteration: { current: a, max: MAX_ITERATIONS } });
  }
  out.push({ ...base, step_completed: 'review', agent: 'reviewer', status: 'DONE' });
  return out;
}

const State = Annotation.Root({
  run: Annotation<number>(),
  attempt: Annotation<number>(),
  tests: Annotation<{ passed: number; failed: number }>(),
  status: Annotation<string>(),
});
type S = typeof State.State;

/** The same flow as a LangGraph StateGraph: node bodies only report the scripted outcome; the edge decides. */
export function buildGraph(checkpointer?: BaseCheckpointSaver) {
  const g = new StateGraph(State)
    .addNode('plan', () => ({ attempt: 0, tests: { passed: 0, failed: 0 }, status: 'VERIFIED' }))
    .addNode('implement', (s: S) => {
      const attempt = s.attempt + 1;
      const failed = attempt <= failuresOf(s.run) ? 1 + (attempt % 3) : 0;
      return { attempt, tests: { passed: 40, failed }, status: failed ? 'UNVERIFIED' : 'VERIFIED' };
    })
    .addNode('review', () => ({ status: 'DONE' }))
    .addEdge(START, 'plan')
    .addEdge('plan', 'implement')
    .addConditionalEdges('implement', (s: S) => (s.status !== 'VERIFIED' && s.attempt < MAX_ITERATIONS ? 'implement' : 'review'), ['implement', 'review'])
    .addEdge('review', END);
  return checkpointer ? g.compile({ checkpointer }) : g.compile();
}

interface Side {
  name: string;
  /** Routes runs [from, to) and pushes one latency (µs) per decision; returns the decisions made. */
  runs(from: number, to: number, lat: number[]): Promise<number>;
  close(): unknown;
  bytes(): number;
}

function navkernelSide(kernel: Kernel, prefix: string, bytes: () => number, close: () => unknown): Side {
  return {
    name: 'navkernel',
    async runs(from, to, lat) {
      let n = 0;
      for (let i = from; i < to; i++) {
        const reqs = runRequests(`${prefix}-${i}`, i);
        let last: Decision | undefined;
        for (const r of reqs) {
          const t = process.hrtime.bigint();
          last = await kernel.route(r);
          lat.push(Number(process.hrtime.bigint() - t) / 1000);
          n++;
        }
        if (last?.decision !== 'TERMINATE') throw new Error(`navkernel run ${i} ended with ${last?.decision}, not TERMINATE`);
      }
      return n;
    },
    close,
    bytes,
  };
}

function langgraphSide(checkpointer: BaseCheckpointSaver | undefined, prefix: string, bytes: () => number, close: () => unknown): Side {
  const graph = buildGraph(checkpointer);
  return {
    name: 'LangGraph',
    async runs(from, to, lat) {
      let n = 0;
      for (let i = from; i < to; i++) {
        const config = checkpointer ? { configurable: { thread_id: `${prefix}-${i}` }, streamMode: 'updates' as const } : { streamMode: 'updates' as const };
        let t = process.hrtime.bigint();
        let steps = 0;
        // One chunk per superstep (a node ran and its outgoing edge was resolved): the time between chunks is one decision.
        for await (const _chunk of await graph.stream({ run: i, attempt: 0, tests: { passed: 0, failed: 0 }, status: '' }, config)) {
          const now = process.hrtime.bigint();
          lat.push(Number(now - t) / 1000);
          t = now;
          steps++;
        }
        if (steps !== decisionsOfRun(i)) throw new Error(`LangGraph run ${i} made ${steps} steps, navkernel's flow makes ${decisionsOfRun(i)}`);
        n += steps;
      }
      return n;
    },
    close,
    bytes,
  };
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) total += statSync(path.join(e.parentPath, e.name)).size;
  }
  return total;
}

interface PairResult {
  perSecond: [number, number];
  p50: [number, number];
  p99: [number, number];
  decisions: [number, number];
}

/** Alternates rounds of `runsPerRound` runs between the two sides (ABBA order), after a warm-up round each. */
async function alternate(a: Side, b: Side, rounds: number, runsPerRound: number): Promise<PairResult> {
  const sides = [a, b];
  const lat: number[][] = [[], []];
  const ms = [0, 0];
  const decisions = [0, 0];
  // Warm-up (not counted): JIT, prepared statements, first pages.
  for (const s of sides) await s.runs(0, Math.min(40, runsPerRound), []);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) {
      const from = 1_000_000 + r * runsPerRound;
      const t0 = performance.now();
      decisions[k]! += await sides[k]!.runs(from, from + runsPerRound, lat[k]!);
      ms[k]! += performance.now() - t0;
    }
  }
  const pair = <T>(f: (k: number) => T): [T, T] => [f(0), f(1)];
  return {
    perSecond: pair((k) => (decisions[k]! / ms[k]!) * 1000),
    p50: pair((k) => percentile(lat[k]!, 50)),
    p99: pair((k) => percentile(lat[k]!, 99)),
    decisions: pair((k) => decisions[k]!),
  };
}

/** navkernel vs LangGraph.js, in memory and with SQLite persistence. */
export async function benchLangGraph(opts: { quick: boolean }): Promise<BenchSection> {
  const rounds = opts.quick ? 2 : 6;
  const runsPerRound = opts.quick ? 20 : 400; // a run is 3-5 decisions (3.75 on average)
  const figures: Record<string, number> = {};
  const rows: (string | number)[][] = [];
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'navkernel-bench-lg-'));
  let sync = '';
  try {
    // (a) in memory: navkernel route() with validation vs a compiled graph without a checkpointer.
    {
      const kernel = createKernel({ flows: BENCH_FLOWS, validate: true });
      const nk = navkernelSide(kernel, 'mem', () => 0, () => kernel.close());
      const lg = langgraphSide(undefined, 'mem', () => 0, () => {});
      const m = await alternate(nk, lg, rounds, runsPerRound);
      await nk.close();
      rows.push(['(a) in memory', 'navkernel route(), validated', m.decisions[0], m.perSecond[0], m.p50[0], m.p99[0], '—']);
      rows.push(['(a) in memory', 'LangGraph step, conditional edge, no checkpointer', m.decisions[1], m.perSecond[1], m.p50[1], m.p99[1], '—']);
      rows.push(['(a) ratio navkernel / LangGraph', 'decisions/s ×, latency ÷', '', m.perSecond[0] / m.perSecond[1], m.p50[1] / m.p50[0], m.p99[1] / m.p99[0], '—']);
      Object.assign(figures, {
        mem_navkernel_per_s: m.perSecond[0], mem_navkernel_p50_us: m.p50[0], mem_navkernel_p99_us: m.p99[0],
        mem_langgraph_per_s: m.perSecond[1], mem_langgraph_p50_us: m.p50[1], mem_langgraph_p99_us: m.p99[1],
        mem_ratio_per_s: m.perSecond[0] / m.perSecond[1],
      });
    }
    // (b) persisted: navkernel + SQLite ledger (durability normal) vs LangGraph + SqliteSaver, each in its own folder.
    {
      const nkDir = path.join(tmp, 'navkernel');
      const lgDir = path.join(tmp, 'langgraph');
      const ledger = openLedger(path.join(nkDir, 'ledger.sqlite'), { durability: 'normal' });
      const kernel = createKernel({ flows: BENCH_FLOWS, validate: true, store: ledger });
      const nk = navkernelSide(kernel, 'db', () => dirBytes(nkDir), () => kernel.close());
      const db = new Database(path.join(lgDir + '.sqlite'));
      const saver = new SqliteSaver(db);
      const lg = langgraphSide(saver, 'db', () => dirBytes(tmp) - dirBytes(nkDir), () => db.close());
      const m = await alternate(nk, lg, rounds, runsPerRound);
      sync = `ledger synchronous=${ledgerSql(ledger).db.pragma('synchronous', { simple: true })}, SqliteSaver synchronous=${db.pragma('synchronous', { simple: true })} (1 = NORMAL), both WAL`;
      // Closing the last connection checkpoints the WAL into the main file, so the sizes compare like for like.
      await nk.close();
      await lg.close();
      const warm = [decisionsWarm(runsPerRound), decisionsWarm(runsPerRound)];
      const bytes = [nk.bytes() / (m.decisions[0] + warm[0]!), lg.bytes() / (m.decisions[1] + warm[1]!)];
      rows.push(['(b) SQLite', 'navkernel + ledger (normal)', m.decisions[0], m.perSecond[0], m.p50[0], m.p99[0], bytes[0]!]);
      rows.push(['(b) SQLite', 'LangGraph + SqliteSaver', m.decisions[1], m.perSecond[1], m.p50[1], m.p99[1], bytes[1]!]);
      rows.push(['(b) ratio navkernel / LangGraph', 'decisions/s ×, latency ÷, bytes ÷', '', m.perSecond[0] / m.perSecond[1], m.p50[1] / m.p50[0], m.p99[1] / m.p99[0], bytes[1]! / bytes[0]!]);
      Object.assign(figures, {
        db_navkernel_per_s: m.perSecond[0], db_navkernel_p50_us: m.p50[0], db_navkernel_p99_us: m.p99[0], db_navkernel_bytes_per_decision: bytes[0]!,
        db_langgraph_per_s: m.perSecond[1], db_langgraph_p50_us: m.p50[1], db_langgraph_p99_us: m.p99[1], db_langgraph_bytes_per_decision: bytes[1]!,
        db_ratio_per_s: m.perSecond[0] / m.perSecond[1], db_ratio_bytes: bytes[1]! / bytes[0]!,
      });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const body = [
    `How to read this: the same three-step flow (plan → implement, a microloop of at most ${MAX_ITERATIONS} iterations whose exit is a conditional router → review), ` +
      `with the same scripted step outcomes (0-3 failed attempts per run, 3-5 decisions per run), routed by navkernel \`route()\` and by a LangGraph.js StateGraph ` +
      `whose node bodies only report the outcome. A decision is one \`route()\` call on our side and one graph superstep (node + edge) on LangGraph's, timed between \`stream()\` chunks. ` +
      `${rounds} rounds of ${runsPerRound} runs per side, alternating (ABBA) in the same process after a warm-up round. ` +
      `Ratios are navkernel's advantage: decisions/s navkernel ÷ LangGraph, latency and bytes LangGraph ÷ navkernel (above 1 = navkernel better). ` +
      `Bytes stored = the files' size after closing (WAL checkpointed), the ledger's decisions.jsonl included, ÷ decisions (warm-up included). ${sync}.`,
    '',
    table(['pair', 'system', 'decisions', 'decisions/s', 'p50 µs', 'p99 µs', 'bytes/decision'], rows),
  ].join('\n');
  return { title: 'Routing overhead against LangGraph.js', body, figures };
}

/** Decisions of the warm-up round (runs 0..min(40, n)). */
function decisionsWarm(runsPerRound: number): number {
  let n = 0;
  for (let i = 0; i < Math.min(40, runsPerRound); i++) n += decisionsOfRun(i);
  return n;
}
