// The two scenarios of `npm run crash` and the checks run on the ledger after each. A child (child.ts) prints
// "ACK …" after route() returned; only complete lines count as acknowledged (see harness.ts, lines.ts).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Decision, RouteRequest } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, seededRandom, simulate } from '../../src/demo/index.js';
import { MemoryStore, createKernel, type FlowSet } from '../../src/kernel/index.js';
import { openLedger, verifyLedger } from '../../src/ledger/index.js';
import { replayRun } from '../../src/runs/index.js';
import { parseAck, startChild, uninterruptedDecisions, type Child } from './harness.js';
import { CYCLES_PER_RUN, HAMMER_COUNT } from './hammer-flows.js';

/** The figures of one scenario, as printed in the table. */
export interface CrashFigures {
  scenario: string;
  kills: number;
  /** Kills that landed before the child acknowledged anything (start-up, the ledger's open, a run's reload). */
  killsBeforeFirstAck: number;
  /** Child processes started (killed, finished, failed). */
  children: number;
  runs: number;
  routes: number;
  acknowledged: number;
  /** Acknowledged decisions absent from the ledger or recorded with a different decision. */
  lost: number;
  /** Per run: seq numbers missing from 1..last, seq numbers present twice, request ids recorded twice. */
  seqMissing: number;
  seqDuplicate: number;
  requestDuplicate: number;
  /** Scenario A: recorded decisions that differ from one uninterrupted in-memory run of the same requests. */
  referenceMismatches: number | null;
  /** verifyLedger issues left after the decisions.jsonl repair. */
  verifyIssues: number;
  /** Kinds of the issues the check without repair found (decisions.jsonl short or torn after a kill is expected). */
  strictIssueKinds: Record<string, number>;
  jsonlLinesRepaired: number;
  tornLinesRemoved: number;
  replayDivergences: number;
  /** Children that exited without being killed and without finishing (their stderr is in `errors`). */
  childFailures: number;
  errors: string[];
  wallMs: number;
  ok: boolean;
}

export interface ScenarioOptions {
  /** The ledger file (a fresh one). */
  file: string;
  /** Where request files go. */
  dir: string;
  /** The compiled child script. */
  child: string;
  /** The package root (the children's cwd). */
  cwd: string;
  flows: FlowSet;
  kills: number;
  seed: number;
  /** Called after each kill. */
  onKill?: (kills: number) => void;
  /** The children's environment (default this process's): NAVKERNEL_TEST_CHARTERS names the flows they load. */
  env?: NodeJS.ProcessEnv;
}

type KillPlan = { afterLines: number; delayMs: number } | { afterMs: number };

/**
 * A random moment: mostly after a random number of acknowledged lines (plus 0-3 ms, so the kill lands inside the
 * next route), sometimes a random time after the spawn (during start-up, the ledger's open, a run's reload).
 */
function planKill(rand: () => number, maxLines: number): KillPlan {
  if (rand() < 0.15) return { afterMs: Math.floor(rand() * 1000) };
  return { afterLines: 1 + Math.floor(rand() * Math.max(1, maxLines)), delayMs: Math.floor(rand() * 4) };
}

function arm(child: Child, plan: KillPlan): void {
  if ('afterMs' in plan) {
    const timer = setTimeout(child.kill, plan.afterMs);
    void child.exit.then(() => clearTimeout(timer));
  } else {
    child.onLine((_line, count) => {
      if (count === plan.afterLines) setTimeout(child.kill, plan.delayMs);
    });
  }
}

const MAX_CONSECUTIVE_FAILURES = 5;
const RUNS_PER_BATCH = 6;

/**
 * Scenario A: one writer per cycle routes an interleaved stream of requests over several runs and is killed at a
 * random moment; the next child continues the same runs from each run's last seq. When a batch of runs is done, a
 * new batch starts, until `kills` kills.
 */
export async function scenarioA(o: ScenarioOptions): Promise<CrashFigures> {
  const t0 = performance.now();
  const rand = seededRandom(o.seed);
  const reference = new Map<string, Decision[]>();
  const acked = new Map<string, Decision[]>();
  const errors: string[] = [];
  let kills = 0;
  let early = 0;
  let children = 0;
  let failures = 0;
  let consecutiveFailures = 0;
  let batch = 0;
  let requestsFile = await writeBatch(o, batch, rand, reference);
  while (kills < o.kills) {
    const child = startChild(o.child, ['resume', o.file, requestsFile], { cwd: o.cwd, ...(o.env ? { env: o.env } : {}) });
    children++;
    arm(child, planKill(rand, 40));
    const exit = await child.exit;
    collect(child, acked);
    if (exit.signal === 'SIGKILL') {
      kills++;
      if (!child.lines.some((l) => l.startsWith('ACK '))) early++;
      consecutiveFailures = 0;
      o.onKill?.(kills);
    } else if (exit.code === 0 && child.lines[child.lines.length - 1] === 'DONE') {
      consecutiveFailures = 0;
      requestsFile = await writeBatch(o, ++batch, rand, reference);
    } else {
      failures++;
      errors.push(`child exit ${exit.code ?? exit.signal}: ${child.stderr.trim().slice(0, 2000)}`);
      if (++consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) break;
    }
  }
  return check(o, 'A: one writer, several runs', { kills, early, children, failures, errors, t0, reference, acked });
}

/** Adds the child's acknowledged decisions by request id (a request routed again after a kill may be acknowledged twice). */
function collect(child: Child, acked: Map<string, Decision[]>): number | undefined {
  let last: number | undefined;
  for (const line of child.lines) {
    const ack = parseAck(line);
    if (!ack) continue;
    acked.set(ack.id, [...(acked.get(ack.id) ?? []), ack.decision]);
    last = Number(ack.id.slice(ack.id.lastIndexOf('-') + 1));
  }
  return last;
}

/** Writes batch `b`'s interleaved requests and records each run's reference decisions (an uninterrupted run). */
async function writeBatch(o: ScenarioOptions, b: number, rand: () => number, reference: Map<string, Decision[]>): Promise<string> {
  const perRun: RouteRequest[][] = [];
  for (let k = 0; k < RUNS_PER_BATCH; k++) {
    const steps: { request: RouteRequest; decision: Decision }[] = [];
    const memory = createKernel({ flows: o.flows, store: new MemoryStore() });
    const scenario = { ...HARSH_SCENARIO, runs: 1, seed: 1 + Math.floor(rand() * 2 ** 30), divergedRuns: k % 2 === 0 ? [0] : [], sequence: [...HARSH_SCENARIO.sequence, ...HARSH_SCENARIO.sequence, ...HARSH_SCENARIO.sequence] };
    await simulate(memory, scenario, { runPrefix: `a${b}-${k}`, maxStepsPerRun: 5000, onStep: (s) => steps.push(structuredClone(s)) });
    await memory.close();
    const run = steps[0]!.request.run_id;
    const requests = steps.map((s, i) => ({ ...s.request, request_id: `${run}-req-${i + 1}` }));
    perRun.push(requests);
    const decisions = await uninterruptedDecisions(o.flows, requests);
    for (const [i, r] of requests.entries()) {
      const ofRun = reference.get(r.run_id) ?? [];
      ofRun.push(decisions[i]!);
      reference.set(r.run_id, ofRun);
    }
  }
  // Interleave the runs at random, each run's requests in order.
  const stream: RouteRequest[] = [];
  const next = perRun.map(() => 0);
  for (;;) {
    const open = perRun.map((_, k) => k).filter((k) => next[k]! < perRun[k]!.length);
    if (open.length === 0) break;
    const k = open[Math.floor(rand() * open.length)]!;
    stream.push(perRun[k]![next[k]!++]!);
  }
  const file = path.join(o.dir, `requests-${b}.json`);
  writeFileSync(file, JSON.stringify(stream));
  return file;
}


/**
 * Scenario B: two writers route the SAME run at once (each its own kernel on the same ledger file); one or both are
 * killed at random moments. A killed writer is restarted at its first unacknowledged request (which it may have
 * recorded before dying: the idempotent retry must return that decision and record nothing). Every
 * `CYCLES_PER_RUN` cycles the pair moves to a new run.
 */
export async function scenarioB(o: ScenarioOptions): Promise<CrashFigures> {
  const t0 = performance.now();
  const rand = seededRandom(o.seed ^ 0x5bd1e995);
  const acked = new Map<string, Decision[]>();
  const errors: string[] = [];
  let kills = 0;
  let early = 0;
  let children = 0;
  let failures = 0;
  let consecutiveFailures = 0;
  let generation = 0;
  const slots = ['a', 'b'].map((name) => ({ name, prefix: `${name}0`, next: 0 }));
  let run = '';
  for (let cycle = 0; kills < o.kills; cycle++) {
    const runNow = `shared-run-${Math.floor(cycle / CYCLES_PER_RUN) + 1}`;
    if (runNow !== run) {
      // Requests a killed writer never got acknowledged on the old run are abandoned with it.
      run = runNow;
      for (const s of slots) (s.prefix = `${run}-${s.name}${++generation}`), (s.next = 0);
    }
    const kids = slots.map((s) => ({ slot: s, child: startChild(o.child, ['hammer', o.file, run, s.prefix, String(HAMMER_COUNT), String(s.next)], { cwd: o.cwd, ...(o.env ? { env: o.env } : {}) }) }));
    children += kids.length;
    const r = rand();
    const victims = r < 0.4 ? [kids[0]!] : r < 0.8 ? [kids[1]!] : r < 0.95 ? kids : [];
    for (const v of victims) arm(v.child, planKill(rand, HAMMER_COUNT - v.slot.next - 1));
    const exits = await Promise.all(kids.map((k) => k.child.exit));
    let failedNow = false;
    kids.forEach(({ slot, child }, i) => {
      const last = collect(child, acked);
      if (last !== undefined) slot.next = last + 1;
      const exit = exits[i]!;
      if (exit.signal === 'SIGKILL') {
        kills++;
        if (!child.lines.some((l) => l.startsWith('ACK '))) early++;
        o.onKill?.(kills);
      } else if (exit.code === 0 && child.lines[child.lines.length - 1] === 'DONE') {
        slot.prefix = `${run}-${slot.name}${++generation}`;
        slot.next = 0;
      } else {
        failures++;
        failedNow = true;
        errors.push(`child exit ${exit.code ?? exit.signal}: ${child.stderr.trim().slice(0, 2000)}`);
      }
    });
    consecutiveFailures = failedNow ? consecutiveFailures + 1 : 0;
    if (consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) break;
  }
  return check(o, 'B: two writers, same run', { kills, early, children, failures, errors, t0, reference: undefined, acked });
}

interface Row {
  seq: number;
  decision: Decision;
}

/** The checks after a scenario, on the ledger file: seq, acknowledged decisions, reference, verify, replay. */
async function check(
  o: ScenarioOptions,
  scenario: string,
  s: { kills: number; early: number; children: number; failures: number; errors: string[]; t0: number; reference: Map<string, Decision[]> | undefined; acked: Map<string, Decision[]> },
): Promise<CrashFigures> {
  const ledger = openLedger(o.file, { create: false });
  try {
    const byRequest = new Map<string, Row>();
    let seqMissing = 0;
    let seqDuplicate = 0;
    let requestDuplicate = 0;
    let referenceMismatches = 0;
    let routes = 0;
    let replayDivergences = 0;
    const runIds = await ledger.runIds();
    for (const run of runIds) {
      const stored = await ledger.routes(run, 0, 1_000_000);
      routes += stored.length;
      const seen = new Set<number>();
      const ids = new Set<string>();
      let max = 0;
      for (const r of stored) {
        if (seen.has(r.seq)) seqDuplicate++;
        seen.add(r.seq);
        max = Math.max(max, r.seq);
        const row: Row = { seq: r.seq, decision: JSON.parse(r.decision_json) as Decision };
        if (r.request_id != null) {
          if (ids.has(r.request_id)) requestDuplicate++;
          ids.add(r.request_id);
          byRequest.set(r.request_id, row);
        }
      }
      const head = (await ledger.run(run))?.last_seq ?? 0;
      for (let q = 1; q <= Math.max(max, head); q++) if (!seen.has(q)) seqMissing++;
      const ref = s.reference?.get(run);
      if (s.reference) {
        if (!ref) referenceMismatches += stored.length;
        else for (const r of stored) if (r.seq > ref.length || !isDeepStrictEqual(JSON.parse(r.decision_json), ref[r.seq - 1])) referenceMismatches++;
      }
      const replay = await replayRun(ledger, run, o.flows);
      replayDivergences += replay.divergences.length + Math.abs(replay.routes - stored.length);
    }
    // Every acknowledgement (request ids are unique over the whole ledger here): the decision the child returned
    // must be the one recorded for that request, seq included.
    let acknowledged = 0;
    let lost = 0;
    for (const [id, ds] of s.acked) {
      const row = byRequest.get(id);
      for (const d of ds) {
        acknowledged++;
        if (!row || !isDeepStrictEqual(row.decision, d)) {
          lost++;
          if (lost <= 10) s.errors.push(`lost: ${id} seq ${d.seq}: ${row ? 'recorded with another decision' : 'not in the ledger'}`);
        }
      }
    }
    const strict = await verifyLedger(ledger, { repair: false });
    const strictIssueKinds: Record<string, number> = {};
    for (const i of strict.issues) strictIssueKinds[i.kind] = (strictIssueKinds[i.kind] ?? 0) + 1;
    const repaired = await verifyLedger(ledger, { repair: true });
    for (const i of repaired.issues) s.errors.push(`verify: ${i.run_id} seq ${i.seq}: ${i.kind}: ${i.message}`);
    const figures: CrashFigures = {
      scenario,
      kills: s.kills,
      killsBeforeFirstAck: s.early,
      children: s.children,
      runs: runIds.length,
      routes,
      acknowledged,
      lost,
      seqMissing,
      seqDuplicate,
      requestDuplicate,
      referenceMismatches: s.reference ? referenceMismatches : null,
      verifyIssues: repaired.issues.length,
      strictIssueKinds,
      jsonlLinesRepaired: repaired.repairs.reduce((n, r) => n + r.appended, 0),
      tornLinesRemoved: repaired.repairs.filter((r) => r.torn_line_removed).length,
      replayDivergences,
      childFailures: s.failures,
      errors: s.errors,
      wallMs: performance.now() - s.t0,
      ok: false,
    };
    figures.ok =
      figures.kills >= o.kills && lost === 0 && acknowledged > 0 && seqMissing + seqDuplicate + requestDuplicate === 0 && (figures.referenceMismatches ?? 0) === 0 && figures.verifyIssues === 0 && replayDivergences === 0 && s.failures === 0;
    return figures;
  } finally {
    await ledger.close();
  }
}
