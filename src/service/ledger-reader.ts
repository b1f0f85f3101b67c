import type {
  AuditReport,
  Decision,
  DecisionKind,
  Escalation,
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
import type { KernelStore, Ledger, RunState } from '../contracts/ports.js';
import type { FlowSet } from '../kernel/index.js';
import { toEscalation } from '../ledger/index.js';
import { verifyLedger } from '../ledger/index.js';
import { auditRun, listRuns, replayRun, resolveEscalation, runSummary, whyStep, type ResolveInput } from '../runs/index.js';

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
  runDetail(run_id: string, after: number, limit: number): Promise<RunDetail>;
  audit(run_id: string): Promise<AuditReport>;
  why(run_id: string, step: string): Promise<WhyReport>;
  replay(run_id: string, flows: FlowSet, maxDivergences?: number): Promise<ReplayReport>;
  /** The run an escalation belongs to (to serialise it with the run's routes), or undefined. */
  escalationRun(escalation_id: string): Promise<string | undefined>;
  resolve(flows: FlowSet, input: ResolveInput): Promise<Escalation>;
  verify(): Promise<VerifyReport>;
  stats(): Promise<LedgerStats>;
  close(): Promise<void>;
}

const HOUR_MS = 3_600_000;

/** The service's view of a ledger. */
export function serviceLedger(ledger: Ledger): ServiceLedger {
  return {
    location: ledger.location,
    store: ledger,
    listRuns: () => listRuns(ledger),
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
        latency_us: row.latency_us,
        cost_usd: row.cost_usd,
        decision: JSON.parse(row.decision_json) as Decision,
        llm_calls: calls.get(row.seq) ?? [],
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
    why: (run_id, step) => whyStep(ledger, run_id, step),
    replay: (run_id, flows, maxDivergences) => replayRun(ledger, run_id, flows, maxDivergences ? { maxDivergences } : {}),
    async escalationRun(id) {
      return (await ledger.escalation(id))?.run_id;
    },
    resolve: (flows, input) => resolveEscalation(ledger, flows, input),
    verify: () => verifyLedger(ledger, { repair: false }),
    async stats() {
      const runs = await ledger.runs();
      const byRule = new Map<string, { tier: Tier; rule: string; decision: DecisionKind; count: number }>();
      const byTier = new Map<number, number>();
      let routes = 0;
      for (const r of runs) {
        routes += r.last_seq;
        for (const t of await ledger.tierRuleCounts(r.run_id)) {
          const k = `${t.tier}\u0000${t.rule}\u0000${t.decision}`;
          const e = byRule.get(k);
          if (e) e.count += t.count;
          else byRule.set(k, { tier: t.tier as Tier, rule: t.rule, decision: t.decision as DecisionKind, count: t.count });
          byTier.set(t.tier, (byTier.get(t.tier) ?? 0) + t.count);
        }
      }
      // Cost over time by bucket of route time: one pass over the routes (fine for a few million routes).
      const first = Math.min(...runs.map((r) => Date.parse(r.created_ts)).filter(Number.isFinite));
      const last = Math.max(...runs.map((r) => Date.parse(r.updated_ts)).filter(Number.isFinite));
      const span = Number.isFinite(first) && Number.isFinite(last) ? last - first : 0;
      const width = [1_000, 10_000, 60_000, 300_000, HOUR_MS, 24 * HOUR_MS].find((w) => span / w <= 240) ?? 24 * HOUR_MS;
      const buckets = new Map<number, { routes: number; llm_calls: number; usd: number }>();
      for (const r of runs) {
        for (let after = 0; ; ) {
          const page = await ledger.routes(r.run_id, after, 4096);
          if (page.length === 0) break;
          for (const row of page) {
            const t = Date.parse(row.ts);
            const h = Number.isFinite(t) ? Math.floor(t / width) * width : 0;
            let b = buckets.get(h);
            if (!b) buckets.set(h, (b = { routes: 0, llm_calls: 0, usd: 0 }));
            b.routes++;
            b.llm_calls += row.llm_calls;
            b.usd += row.cost_usd;
          }
          after = page[page.length - 1]!.seq;
        }
      }
      return {
        runs: runs.length,
        routes,
        by_tier: [...byTier].sort((a, b) => a[0] - b[0]).map(([tier, count]) => ({ tier: tier as Tier, count })),
        by_tier_rule: [...byRule.values()].sort((a, b) => a.tier - b.tier || b.count - a.count || a.rule.localeCompare(b.rule)),
        bucket_seconds: width / 1000,
        cost_over_time: [...buckets]
          .sort((a, b) => a[0] - b[0])
          .map(([h, b]) => ({ bucket: new Date(h).toISOString(), routes: b.routes, llm_calls: b.llm_calls, usd: b.usd })),
      };
    },
    close: () => ledger.close(),
  };
}
