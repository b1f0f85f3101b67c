// A run bundle as a read-only ledger: audit, replay, verify and export read an archived run straight from its bundle,
// through the same read parts (RunReader, StatsReader, EscalationReader) they read a live ledger through.
import type { Decision } from '../../contracts/decision.js';
import type {
  CostBucket,
  Ledger,
  LedgerTotals,
  OffroadRow,
  ReplayRow,
  ReplayTuple,
  RouteRecord,
  RunPage,
  RunPageQuery,
  RunState,
  StoredEscalation,
  StoredLlmCall,
  StoredRoute,
  StoredRun,
  StoredRunEntry,
  StoredRunListing,
  StoredUpgrade,
} from '../../contracts/ports.js';
import { type RunBundle, readBundle } from './bundle.js';
import { archiveInvalid } from './errors.js';

const ms = (ts: string): number | null => {
  const t = Date.parse(ts);
  return Number.isNaN(t) ? null : t;
};

/** A bundle opened as a ledger that only reads. Appending or resolving throws archiveInvalid (restore it first). */
export class BundleLedger implements Ledger {
  readonly mirror = undefined;
  readonly location: string;
  readonly bundle: RunBundle;
  /** sha256 of the bundle's uncompressed JSON (what its tombstone records). */
  readonly sha256: string;
  private readonly bySeq: Map<number, StoredRoute>;

  constructor(file: string) {
    const { bundle, sha256 } = readBundle(file);
    this.location = file;
    this.bundle = bundle;
    this.sha256 = sha256;
    this.bySeq = new Map(bundle.routes.map((r) => [r.seq, r]));
  }

  private mine(run_id: string): boolean {
    return run_id === this.bundle.run_id;
  }
  private sorted(): StoredRoute[] {
    return this.bundle.routes;
  }

  // ---- KernelStore: an archive is read-only ----------------------------------------------------------------
  loadRun(run_id: string): Promise<RunState | undefined> {
    if (!this.mine(run_id)) return Promise.resolve(undefined);
    const last = this.bySeq.get(this.bundle.run.last_seq);
    const upgraded = last ? this.upgradeAt(last.seq) : undefined;
    return Promise.resolve(last ? (JSON.parse(upgraded ? upgraded.state : last.state) as RunState) : undefined);
  }

  // ---- Flow versions and upgrades: what the bundle holds -----------------------------------------------------
  private upgradeAt(seq: number): StoredUpgrade | undefined {
    return (this.bundle.upgrades ?? []).filter((u) => u.seq === seq).at(-1);
  }
  flowVersion(hash: string): Promise<string | undefined> {
    return Promise.resolve(this.bundle.flow_versions?.find((v) => v.hash === hash)?.definition);
  }
  flowVersions(): Promise<{ hash: string; definition: string }[]> {
    return Promise.resolve([...(this.bundle.flow_versions ?? [])]);
  }
  lastUpgrade(run_id: string, seq: number): Promise<StoredUpgrade | undefined> {
    return Promise.resolve(this.mine(run_id) ? this.upgradeAt(seq) : undefined);
  }
  runUpgrades(run_id: string): Promise<StoredUpgrade[]> {
    return Promise.resolve(this.mine(run_id) ? [...(this.bundle.upgrades ?? [])] : []);
  }
  saveFlowVersion(): Promise<void> {
    return Promise.reject(archiveInvalid(`${this.location} is an archived run bundle: restore it before writing to it`));
  }
  recordUpgrade(): Promise<StoredUpgrade | false> {
    return Promise.reject(archiveInvalid(`${this.location} is an archived run bundle: restore it before upgrading its run`));
  }
  findByRequestId(run_id: string, request_id: string): Promise<{ decision: Decision; request_hash: string } | undefined> {
    void run_id;
    void request_id;
    return Promise.resolve(undefined);
  }
  append(record: RouteRecord, state: RunState): Promise<void> {
    void state;
    return Promise.reject(archiveInvalid(`${this.location} is an archived run (read-only): restore it into a ledger before routing run ${JSON.stringify(record.run_id)}`));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }

  // ---- the read parts -----------------------------------------------------------------------------------------
  run(run_id: string): Promise<StoredRun | undefined> {
    return Promise.resolve(this.mine(run_id) ? this.bundle.run : undefined);
  }
  runs(): Promise<StoredRun[]> {
    return Promise.resolve([this.bundle.run]);
  }
  runPage(query: RunPageQuery): Promise<RunPage> {
    const r = this.bundle.run;
    const open = this.bundle.escalations.filter((e) => e.status === 'open').length;
    const last = this.bundle.escalations.find((e) => e.seq === r.last_seq);
    const ended = r.last_decision === 'TERMINATE' || (r.last_decision === 'ESCALATE' && last?.resolution != null && (JSON.parse(last.resolution) as { decision?: string }).decision === 'TERMINATE');
    // As the stores' listing SQL counts it: routes whose decision JSON says needs_human.
    const needsHuman = this.bundle.routes.filter((x) => x.decision_json.includes('"needs_human":true')).length;
    const listing: StoredRunListing = { ...r, flows: this.flows(), open_escalations: open, needs_human: needsHuman, status: ended ? 'terminated' : open > 0 ? 'escalated' : 'active' };
    const filtered =
      (query.status === undefined || query.status === listing.status) &&
      (query.flow === undefined || listing.flows.includes(query.flow)) &&
      (query.has_open_escalation === undefined || query.has_open_escalation === open > 0);
    const key = (ts: string, id: string) => `${ts}\u0000${id}`;
    const onPage = query.after === undefined ? (query.offset ?? 0) === 0 : key(r.created_ts, r.run_id) > key(query.after.created_ts, query.after.run_id);
    return Promise.resolve({ runs: filtered && onPage ? [listing] : [], total: filtered ? 1 : 0, next: null });
  }
  ledgerTotals(): Promise<LedgerTotals> {
    const r = this.bundle.run;
    return Promise.resolve({ runs: 1, routes: r.last_seq, first_ms: ms(r.created_ts), last_ms: ms(r.updated_ts) });
  }
  ledgerTierRuleCounts(): Promise<{ tier: number; rule: string; decision: string; count: number }[]> {
    return this.tierRuleCounts(this.bundle.run_id);
  }
  costBuckets(width_ms: number): Promise<CostBucket[]> {
    const w = Math.max(1, Math.round(width_ms / 1000)) * 1000;
    const buckets = new Map<number, CostBucket>();
    for (const r of this.sorted()) {
      const t = ms(r.ts);
      const b = t === null ? 0 : Math.floor(Math.floor(t / 1000) * 1000 / w) * w;
      const x = buckets.get(b) ?? { bucket_ms: b, routes: 0, llm_calls: 0, usd: 0 };
      x.routes++;
      x.llm_calls += r.llm_calls;
      x.usd += r.cost_usd;
      buckets.set(b, x);
    }
    return Promise.resolve([...buckets.values()].sort((a, b) => a.bucket_ms - b.bucket_ms));
  }
  runIds(): Promise<string[]> {
    return Promise.resolve([this.bundle.run_id]);
  }
  routes(run_id: string, afterSeq: number, limit: number): Promise<StoredRoute[]> {
    if (!this.mine(run_id)) return Promise.resolve([]);
    const out: StoredRoute[] = [];
    for (const r of this.sorted()) {
      if (r.seq <= afterSeq) continue;
      if (out.length >= limit) break;
      out.push(r);
    }
    return Promise.resolve(out);
  }
  async replayRows(run_id: string, afterSeq: number, limit: number): Promise<ReplayRow[]> {
    return (await this.routes(run_id, afterSeq, limit)).map((r) => ({ seq: r.seq, request: r.request, decision_json: r.decision_json, ts: r.ts, llm_calls: r.llm_calls }));
  }
  async *replayChunks(run_id: string, afterSeq: number, chunk: number): AsyncIterable<ReplayTuple[]> {
    for (let after = afterSeq; ; ) {
      const rows = await this.routes(run_id, after, chunk);
      if (rows.length === 0) return;
      yield rows.map((r): ReplayTuple => [r.seq, r.request, r.decision_json, r.ts, r.llm_calls, r.flows_hash]);
      after = rows[rows.length - 1]!.seq;
    }
  }
  llmCalls(run_id: string, fromSeq: number, toSeq: number): Promise<StoredLlmCall[]> {
    if (!this.mine(run_id)) return Promise.resolve([]);
    return Promise.resolve(this.bundle.llm_calls.filter((c) => c.seq >= fromSeq && c.seq <= toSeq).sort((a, b) => a.seq - b.seq || a.idx - b.idx));
  }
  offroadRows(run_id: string): Promise<OffroadRow[]> {
    if (!this.mine(run_id)) return Promise.resolve([]);
    return Promise.resolve(this.sorted().filter((r) => r.decision !== 'CONTINUE').map((r) => ({ seq: r.seq, flow: r.flow, step: r.step, decision_json: r.decision_json, ts: r.ts })));
  }
  private flows(): string[] {
    return [...new Set(this.sorted().map((r) => r.flow))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
  runFlows(run_id: string): Promise<string[]> {
    return Promise.resolve(this.mine(run_id) ? this.flows() : []);
  }
  runFlowsHashes(run_id: string): Promise<string[]> {
    return Promise.resolve(this.mine(run_id) ? this.bundle.flows_hashes : []);
  }
  arbiterFootprint(run_id: string): Promise<boolean> {
    if (!this.mine(run_id)) return Promise.resolve(false);
    return Promise.resolve(
      this.sorted().some((r) => r.tier >= 3 && (r.tier === 3 || r.llm_calls > 0 || (r.decision_json.includes('"tier":3') && !r.decision_json.includes('navigator_unavailable') && !r.decision_json.includes('arbiter_unavailable')))),
    );
  }
  tierRuleCounts(run_id: string): Promise<{ tier: number; rule: string; decision: string; count: number }[]> {
    if (!this.mine(run_id)) return Promise.resolve([]);
    const counts = new Map<string, { tier: number; rule: string; decision: string; count: number }>();
    for (const r of this.sorted()) {
      const k = JSON.stringify([r.tier, r.rule, r.decision]);
      const x = counts.get(k) ?? { tier: r.tier, rule: r.rule, decision: r.decision, count: 0 };
      x.count++;
      counts.set(k, x);
    }
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return Promise.resolve([...counts.values()].sort((a, b) => a.tier - b.tier || cmp(a.rule, b.rule) || cmp(a.decision, b.decision)));
  }
  openEscalationCount(run_id: string): Promise<number> {
    return Promise.resolve(this.mine(run_id) ? this.bundle.escalations.filter((e) => e.status === 'open').length : 0);
  }
  escalation(escalation_id: string): Promise<StoredEscalation | undefined> {
    return Promise.resolve(this.bundle.escalations.find((e) => e.escalation_id === escalation_id));
  }
  runEscalations(run_id: string): Promise<StoredEscalation[]> {
    return Promise.resolve(this.mine(run_id) ? [...this.bundle.escalations].sort((a, b) => a.seq - b.seq) : []);
  }
  routeHash(run_id: string, seq: number): Promise<string | undefined> {
    return Promise.resolve(this.mine(run_id) ? this.bySeq.get(seq)?.hash : undefined);
  }
  /** The run's one register entry (its prev_hash chains to entries of the ledger it came from, not in the bundle). */
  runRegister(): Promise<StoredRunEntry[]> {
    return Promise.resolve([this.bundle.register]);
  }
  resolveEscalation(): Promise<boolean> {
    return Promise.reject(archiveInvalid(`${this.location} is an archived run (read-only): restore it into a ledger to resolve its escalations`));
  }
}
