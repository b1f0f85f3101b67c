import { ARBITER_UNAVAILABLE, currentRuleCounts, withCurrentRuleNames } from '../contracts/arbiter-rules.js';
import { decisionTargets } from '../contracts/decision-targets.js';
import { isOffroad } from '../contracts/decision-kinds.js';
import type { Decision, DecisionKind, Tier } from '../contracts/decision.js';
import type { AuditReport, DecisionEntry, Escalation, EscalationResolution, RunSummary, WhyReport } from '../contracts/ledger.js';
import type { EscalationReader, RunPageKey, RunReader, StatsReader, RunPageQuery, RunState, StoredRoute, StoredRun, StoredRunListing } from '../contracts/ports.js';
import { requireRun, routeLatencyUs, toEscalation } from '../ledger/index.js';
import { nearestName } from '../contracts/nearest-name.js';
import type { FlowSet } from '../kernel/index.js';

const PAGE = 2000;
const LIST_PAGE = 1000;

/** A stored run's summary, its status worked out as the listing's SQL does (2 or 3 queries: for one run, not a list). */
export async function summarizeRun(ledger: RunReader & EscalationReader, run: StoredRun): Promise<RunSummary> {
  const open = await ledger.openEscalationCount(run.run_id);
  let status: RunSummary['status'] = 'active';
  if (run.last_decision === 'TERMINATE') status = 'terminated';
  else if (open > 0) status = 'escalated';
  else if (run.last_decision === 'ESCALATE') {
    // A resolved escalation that ended the run.
    const last = (await ledger.runEscalations(run.run_id)).find((e) => e.seq === run.last_seq);
    if (last?.resolution && (JSON.parse(last.resolution) as EscalationResolution).decision === 'TERMINATE') status = 'terminated';
  }
  return {
    run_id: run.run_id,
    flow: run.flow,
    flows: await ledger.runFlows(run.run_id),
    steps: run.last_seq,
    offroad: run.offroad,
    llm_calls: run.llm_calls,
    cost_usd: run.cost_usd,
    open_escalations: open,
    needs_human: await needsHumanCount(ledger, run.run_id),
    status,
    last_decision: run.last_decision as DecisionKind,
    last_step: run.last_step,
    first_ts: run.created_ts,
    last_ts: run.updated_ts,
  };
}

/** Routes of a run whose decision needs a person, counted as the listing's SQL counts them (on the decision's JSON text). */
async function needsHumanCount(ledger: RunReader, run_id: string): Promise<number> {
  let n = 0;
  for (let after = 0; ; ) {
    const rows = await ledger.routes(run_id, after, PAGE);
    if (rows.length === 0) return n;
    for (const row of rows) if (row.decision_json.includes(NEEDS_HUMAN_TEXT)) n++;
    after = rows[rows.length - 1]!.seq;
  }
}

/** How `"needs_human": true` reads in a decision's JSON (JSON.stringify's, as the stores keep it). */
const NEEDS_HUMAN_TEXT = '"needs_human":true';

/** A run listing's row as a RunSummary (the store computed flows, open escalations and status, as `summary` does). */
export function listedSummary(r: StoredRunListing): RunSummary {
  return {
    run_id: r.run_id,
    flow: r.flow,
    flows: r.flows,
    steps: r.last_seq,
    offroad: r.offroad,
    llm_calls: r.llm_calls,
    cost_usd: r.cost_usd,
    open_escalations: r.open_escalations,
    needs_human: r.needs_human,
    status: r.status,
    last_decision: r.last_decision as DecisionKind,
    last_step: r.last_step,
    first_ts: r.created_ts,
    last_ts: r.updated_ts,
  };
}

/** One page of run summaries, oldest first, filtered and paged by the store (`StatsReader.runPage`). */
export async function runsPage(ledger: StatsReader, query: RunPageQuery): Promise<{ runs: RunSummary[]; total: number; next: RunPageKey | null }> {
  const page = await ledger.runPage(query);
  return { runs: page.runs.map(listedSummary), total: page.total, next: page.next };
}

/** One summary per run, oldest first (read in pages of LIST_PAGE runs, one query each). */
export async function listRuns(ledger: StatsReader): Promise<RunSummary[]> {
  const out: RunSummary[] = [];
  for (let after: RunPageKey | undefined; ; ) {
    const page = await ledger.runPage({ limit: LIST_PAGE, ...(after ? { after } : {}) });
    for (const r of page.runs) out.push(listedSummary(r));
    if (!page.next) return out;
    after = page.next;
  }
}

/** The summary of one run (UnknownRunError when absent). */
export async function runSummary(ledger: RunReader & EscalationReader, run_id: string): Promise<RunSummary> {
  return summarizeRun(ledger, await requireRun(ledger, run_id));
}

function entry(row: StoredRoute, d: Decision): DecisionEntry {
  const e: DecisionEntry = {
    seq: row.seq,
    flow: row.flow,
    step: row.step,
    decision: d.decision,
    next_step_id: d.next_step_id,
    tier: d.tier,
    rule: d.rule,
    reason: d.reason,
    ts: row.ts,
  };
  Object.assign(e, decisionTargets(d));
  if (d.iteration !== undefined) e.iteration = d.iteration;
  if (row.principal != null) e.principal = row.principal;
  return e;
}

/** Every route of a run in order, with its parsed decision, read in pages. */
export async function* runRoutes(ledger: RunReader, run_id: string): AsyncGenerator<{ row: StoredRoute; decision: Decision }> {
  for (let after = 0; ; ) {
    const rows = await ledger.routes(run_id, after, PAGE);
    if (rows.length === 0) return;
    for (const row of rows) yield { row, decision: withCurrentRuleNames(JSON.parse(row.decision_json) as Decision) };
    after = rows[rows.length - 1]!.seq;
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** "Why did this run take 12 iterations?": decisions by tier and rule, off-road decisions, loops, signatures, cost. */
export async function auditRun(ledger: RunReader & EscalationReader, run_id: string, options: { onProgress?: (done: number, total: number) => void } = {}): Promise<AuditReport> {
  const run = await requireRun(ledger, run_id);
  const offroad: DecisionEntry[] = [];
  const needsHuman: DecisionEntry[] = [];
  const steps = new Map<string, AuditReport['steps'][number]>();
  const latencies: number[] = [];
  const flowsHashes: string[] = [];
  let lastState: RunState | undefined;
  let done = 0;
  const nav = { consulted: 0, decided: 0, budget_skips: 0 };
  // Routes per principal (null: none recorded), in order of first appearance.
  const senders = new Map<string | null, number>();
  for await (const { row, decision } of runRoutes(ledger, run_id)) {
    const sender = row.principal ?? null;
    senders.set(sender, (senders.get(sender) ?? 0) + 1);
    const key = `${row.flow}/${row.step}`;
    let s = steps.get(key);
    if (!s) steps.set(key, (s = { flow: row.flow, step: row.step, routes: 0, loops: 0, max_iteration: null }));
    s.routes++;
    if (decision.decision === 'LOOP') s.loops++;
    if (decision.iteration !== undefined) s.max_iteration = Math.max(s.max_iteration ?? 0, decision.iteration);
    if (isOffroad(decision)) offroad.push(entry(row, decision));
    if (decision.needs_human) needsHuman.push(entry(row, decision));
    const skip3 = decision.skipped?.find((k) => k.tier === 3);
    if (skip3?.rule === 'budget_exceeded') nav.budget_skips++;
    if (decision.tier === 3 || (decision.tier > 3 && skip3?.rule !== ARBITER_UNAVAILABLE)) {
      nav.consulted++;
      if (decision.tier === 3) nav.decided++;
    }
    latencies.push(routeLatencyUs(row));
    if (flowsHashes[flowsHashes.length - 1] !== row.flows_hash && !flowsHashes.includes(row.flows_hash)) flowsHashes.push(row.flows_hash);
    if (row.seq === run.last_seq) lastState = JSON.parse(row.state) as RunState;
    if (++done % PAGE === 0) options.onProgress?.(done, run.last_seq);
  }
  options.onProgress?.(done, run.last_seq);
  latencies.sort((a, b) => a - b);
  const calls = await ledger.llmCalls(run_id, 1, Number.MAX_SAFE_INTEGER);
  const routedBy = [...senders].map(([principal, routes]) => ({ principal, routes })).sort((a, b) => b.routes - a.routes);
  const byModel = new Map<string, { provider: string; model: string; calls: number; usd: number }>();
  for (const c of calls) {
    const k = `${c.provider}\u0000${c.model}`;
    let m = byModel.get(k);
    if (!m) byModel.set(k, (m = { provider: c.provider, model: c.model, calls: 0, usd: 0 }));
    m.calls++;
    m.usd += c.usd;
  }
  return {
    run: await summarizeRun(ledger, run),
    by_tier_rule: currentRuleCounts(await ledger.tierRuleCounts(run_id)).map((r) => ({ tier: r.tier as Tier, rule: r.rule, decision: r.decision as DecisionKind, count: r.count })),
    offroad,
    needs_human: needsHuman,
    steps: [...steps.values()],
    signatures: Object.entries(lastState?.signatures ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, v]) => ({ key, seen: v.seen, detours: v.detours })),
    cost: {
      usd: run.cost_usd,
      llm_calls: calls.length,
      input_tokens: calls.reduce((n, c) => n + c.input_tokens, 0),
      output_tokens: calls.reduce((n, c) => n + c.output_tokens, 0),
      by_model: [...byModel.values()].sort((a, b) => b.usd - a.usd || a.model.localeCompare(b.model)),
      usd_per_1000_routes: done ? (run.cost_usd / done) * 1000 : 0,
    },
    arbiter: {
      ...nav,
      fall_through_rate: nav.consulted ? (nav.consulted - nav.decided) / nav.consulted : 0,
      invalid_answer_rate: calls.length ? calls.filter((c) => c.outcome === 'invalid_answer').length / calls.length : 0,
    },
    latency_us: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? 0 },
    flows_hashes: flowsHashes,
    ...(routedBy.some((r) => r.principal !== null) ? { routed_by: routedBy } : {}),
    escalations: (await ledger.runEscalations(run_id)).map(toEscalation),
  };
}

/**
 * The decisions that touched `step` in a run (completed it, went to it, detoured to it, returned to it), and why.
 * A decision on a failure signature lists its sightings (the routes behind "seen N times"). A step that is not a
 * step of the run's flows (the loaded `flows` of the run's flow ids, and every step its decisions name) is
 * reported as `unknown_step`, with the nearest one.
 */
export async function whyStep(ledger: RunReader & EscalationReader, run_id: string, step: string, flows?: FlowSet): Promise<WhyReport> {
  await requireRun(ledger, run_id);
  const entries: WhyReport['entries'] = [];
  const steps = new Set<string>();
  const runFlows = new Set<string>();
  // Signature sightings: the seqs at which each `<flow>/<step>:<signature>` counter of the run state went up.
  const sightings = new Map<string, number[]>();
  let seen: Record<string, { seen: number }> = {};
  for await (const { row, decision } of runRoutes(ledger, run_id)) {
    runFlows.add(row.flow);
    for (const s of [row.step, decision.next_step_id, decision.detour_target, decision.return_to]) if (s) steps.add(s);
    const state = JSON.parse(row.state) as RunState;
    for (const [key, v] of Object.entries(state.signatures)) {
      if (v.seen > (seen[key]?.seen ?? 0)) {
        let list = sightings.get(key);
        if (!list) sightings.set(key, (list = []));
        list.push(row.seq);
      }
    }
    seen = state.signatures;
    const touched: WhyReport['entries'][number]['touched_as'] = [];
    if (row.step === step) touched.push('completed');
    if (decision.next_step_id === step) touched.push('next');
    if (decision.detour_target === step) touched.push('detour_target');
    if (decision.return_to === step) touched.push('return_to');
    if (touched.length > 0) {
      const e: WhyReport['entries'][number] = { ...entry(row, decision), touched_as: touched };
      if (decision.signature && row.step === step) {
        const list = sightings.get(`${row.flow}/${row.step}:${decision.signature}`);
        if (list?.length) e.sightings = list.slice();
      }
      entries.push(e);
    }
  }
  const escalations = (await ledger.runEscalations(run_id))
    .map(toEscalation)
    .filter((e) => e.step === step || e.resolution?.next_step_id === step);
  const report: WhyReport = { run_id, step, entries, escalations };
  for (const id of runFlows) for (const s of flows?.get(id)?.steps.keys() ?? []) steps.add(s);
  if (!steps.has(step)) {
    const known = [...steps].sort();
    const near = nearestName(step, known);
    report.unknown_step = { steps: known, ...(near !== undefined ? { did_you_mean: near } : {}) };
  }
  return report;
}
