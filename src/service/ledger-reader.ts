import { currentRuleCounts, withCurrentRuleNames } from '../contracts/arbiter-rules.js';
import type {
  AuditReport,
  Decision,
  DecisionKind,
  Escalation,
  EscalationsInbox,
  LedgerStats,
  LlmCallRecord,
  RecordedDecision,
  ReplayReport,
  RouteRequest,
  RunDetail,
  RunSummary,
  Tier,
  VerifyReport,
  WhyReport,
} from '../contracts/index.js';
import type { KernelStore, Ledger, RunPageKey, RunPageQuery, RunState, StatsReader } from '../contracts/ports.js';
import type { FlowSet } from '../kernel/index.js';
import { routeLatencyUs, toEscalation } from '../ledger/index.js';
import { verifyLedger } from '../ledger/index.js';
import { auditRun, listRuns, replayRecorded, resolveEscalation, runSummary, runsPage, whyStep, type ResolveInput } from '../runs/index.js';

/**
 * What the service reads and writes besides routing: the ledger's read side (runs, audit, verify, replay,
 * resolve), asynchronous, over any store that implements the `Ledger` interface (SQLite, PostgreSQL).
 */
export interface ServiceLedger {
  /** Where the ledger lives (a file, or a URL without its password), for /healthz. */
  readonly location: string;
  /** The store the kernel records routes into. */
  readonly store: KernelStore;
  listRuns(): Promise<RunSummary[]>;
  /** One page of runs, filtered and paged by the store (see `StatsReader.runPage`). */
  runsPage(query: RunPageQuery): Promise<{ runs: RunSummary[]; total: number; next: RunPageKey | null }>;
  runDetail(run_id: string, after: number, limit: number): Promise<RunDetail>;
  audit(run_id: string): Promise<AuditReport>;
  /** `flows`: the served flows, so a step of the run's flows no decision touched is not reported as unknown. */
  why(run_id: string, step: string, flows?: FlowSet): Promise<WhyReport>;
  /** The run replayed with its recorded flow versions (`flows` for a run recorded before versions were kept). */
  replay(run_id: string, flows: FlowSet, maxDivergences?: number): Promise<ReplayReport>;
  /** The run an escalation belongs to (to serialise it with the run's routes), or undefined. */
  escalationRun(escalation_id: string): Promise<string | undefined>;
  resolve(flows: FlowSet, input: ResolveInput): Promise<Escalation>;
  /** Open escalations across runs, oldest first, from at most `limit` runs that have one (the UI's inbox). */
  openEscalations(limit: number): Promise<EscalationsInbox>;
  verify(): Promise<VerifyReport>;
  stats(): Promise<LedgerStats>;
  close(): Promise<void>;
}

const HOUR_MS = 3_600_000;

/** The width of /v1/stats' cost buckets: the finest of 1 s … 1 day that cuts the ledger's time span into at most 240. */
export function bucketWidth(spanMs: number): number {
  return [1_000, 10_000, 60_000, 300_000, HOUR_MS, 24 * HOUR_MS].find((w) => spanMs / w <= 240) ?? 24 * HOUR_MS;
}

/** `/v1/stats`: three aggregate queries, whatever the number of runs: totals, counts by tier/rule/decision, cost by time bucket. */
export async function ledgerStats(ledger: StatsReader): Promise<LedgerStats> {
  const totals = await ledger.ledgerTotals();
  const byTier = new Map<number, number>();
  const byRule = currentRuleCounts(await ledger.ledgerTierRuleCounts()).map((t) => {
    byTier.set(t.tier, (byTier.get(t.tier) ?? 0) + t.count);
    return { tier: t.tier as Tier, rule: t.rule, decision: t.decision as DecisionKind, count: t.count };
  });
  const span = totals.first_ms !== null && totals.last_ms !== null ? totals.last_ms - totals.first_ms : 0;
  const width = bucketWidth(span);
  const buckets = await ledger.costBuckets(width);
  return {
    runs: totals.runs,
    routes: totals.routes,
    by_tier: [...byTier].sort((a, b) => a[0] - b[0]).map(([tier, count]) => ({ tier: tier as Tier, count })),
    by_tier_rule: byRule.sort((a, b) => a.tier - b.tier || b.count - a.count || a.rule.localeCompare(b.rule)),
    bucket_seconds: width / 1000,
    cost_over_time: buckets.map((b) => ({ bucket: new Date(b.bucket_ms).toISOString(), routes: b.routes, llm_calls: b.llm_calls, usd: b.usd })),
  };
}

/** The service's view of a ledger. */
export function serviceLedger(ledger: Ledger): ServiceLedger {
  return {
    location: ledger.location,
    store: ledger,
    listRuns: () => listRuns(ledger),
    runsPage: (query) => runsPage(ledger, query),
    async runDetail(run_id, after, limit) {
      const run = await runSummary(ledger, run_id);
      const rows = await ledger.routes(run_id, after, limit + 1);
      const more = rows.length > limit;
      if (more) rows.length = limit;
      const calls = new Map<number, LlmCallRecord[]>();
      if (rows.some((r) => r.llm_calls > 0)) {
        for (const c of await ledger.llmCalls(run_id, rows[0]!.seq, rows[rows.length - 1]!.seq)) {
          let list = calls.get(c.seq);
          if (!list) calls.set(c.seq, (list = []));
          list.push(JSON.parse(c.record) as LlmCallRecord);
        }
      }
      const decisions: RecordedDecision[] = rows.map((row) => ({
        seq: row.seq,
        flow: row.flow,
        step: row.step,
        status: (JSON.parse(row.request) as RouteRequest).status,
        ts: row.ts,
        latency_us: routeLatencyUs(row),
        cost_usd: row.cost_usd,
        decision: withCurrentRuleNames(JSON.parse(row.decision_json) as Decision),
        llm_calls: calls.get(row.seq) ?? [],
        principal: row.principal ?? null,
      }));
      const state = (await ledger.loadRun(run_id)) as RunState | undefined;
      return {
        run,
        state: state ? { ...state } : null,
        decisions,
        next_after: more ? rows[rows.length - 1]!.seq : null,
        escalations: (await ledger.runEscalations(run_id)).map(toEscalation),
      };
    },
    audit: (run_id) => auditRun(ledger, run_id),
    why: (run_id, step, flows) => whyStep(ledger, run_id, step, flows),
    replay: (run_id, flows, maxDivergences) => replayRecorded(ledger, run_id, flows, maxDivergences ? { maxDivergences } : {}),
    async escalationRun(id) {
      return (await ledger.escalation(id))?.run_id;
    },
    resolve: (flows, input) => resolveEscalation(ledger, flows, input),
    async openEscalations(limit) {
      // The run listing already filters runs with an open escalation in SQL; their escalations are a few rows each.
      const page = await ledger.runPage({ limit, has_open_escalation: true });
      const escalations: Escalation[] = [];
      for (const run of page.runs) {
        for (const row of await ledger.runEscalations(run.run_id)) if (row.status === 'open') escalations.push(toEscalation(row));
      }
      escalations.sort((a, b) => a.opened_ts.localeCompare(b.opened_ts) || a.escalation_id.localeCompare(b.escalation_id));
      return { escalations, runs_total: page.total };
    },
    verify: () => verifyLedger(ledger, { repair: false }),
    stats: () => ledgerStats(ledger),
    close: () => ledger.close(),
  };
}
