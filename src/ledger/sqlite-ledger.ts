import path from 'node:path';
import { canonicalJson } from '../contracts/canonical-json.js';
import type { Decision } from '../contracts/decision.js';
import type { JsonlRepair } from '../contracts/ledger.js';
import type { KernelStore, RouteRecord, RunState } from '../contracts/ports.js';
import { GENESIS_HASH, llmCallsJson, routeHash } from './chain.js';
import { JsonlWriter, offRoadLine, repairJsonlFile } from './decisions-jsonl.js';
import { LedgerConflictError, UnknownRunError } from './errors.js';
import { decisionsJsonlPath } from './paths.js';
import { type Durability, LedgerSql, type LlmCallRow, type RunRow, SeqConflict, openDatabase } from './sql.js';

export interface LedgerOptions {
  /**
   * `normal` (default): synchronous=NORMAL in WAL. Survives any crash of the process (SIGKILL included):
   * every acknowledged decision is in the file. A power loss or OS crash may lose the last transactions
   * committed before it, never corrupting the file. `full`: synchronous=FULL, an fsync per commit; an
   * acknowledged decision also survives a power loss, at several times the cost per route.
   */
  durability?: Durability;
  /** RUN_BASE for decisions.jsonl files; default: the ledger file's folder (`runs/`). */
  runBase?: string;
  /** Write decisions.jsonl files (default true). */
  jsonl?: boolean;
  /** Create the file when missing (default true; read-only commands pass false and get LedgerNotFoundError). */
  create?: boolean;
  /** How long a write waits for another process's lock before failing (default 15 s). */
  busyTimeoutMs?: number;
}

/** The default ledger file, relative to the working directory. */
export const DEFAULT_LEDGER_FILE = path.join('runs', 'ledger.sqlite');

/**
 * The SQLite ledger: the KernelStore the kernel records every route into, and the source of truth that
 * audit, verify and replay read. SQLite is the truth; decisions.jsonl files are derived and repaired from it.
 */
export class SqliteLedger implements KernelStore {
  readonly file: string;
  readonly runBase: string;
  readonly durability: Durability;
  readonly jsonl: boolean;
  /** The SQL surface (one module); audit, verify and replay read through it. */
  readonly sql: LedgerSql;
  private readonly writer = new JsonlWriter();
  private readonly heads = new Map<string, string>();
  private readonly repaired = new Set<string>();

  constructor(file: string, options: LedgerOptions = {}) {
    this.file = file;
    this.durability = options.durability ?? 'normal';
    this.runBase = options.runBase ?? path.dirname(path.resolve(file));
    this.jsonl = options.jsonl ?? true;
    this.sql = new LedgerSql(
      openDatabase(file, { create: options.create ?? true, durability: this.durability, busyTimeoutMs: options.busyTimeoutMs ?? 15_000 }),
    );
  }

  /** The run's last persisted state; before returning it, brings the run's decisions.jsonl files up to date. */
  loadRun(run_id: string): RunState | undefined {
    const state = this.sql.lastState(run_id);
    if (state === undefined) return undefined;
    if (this.jsonl && !this.repaired.has(run_id)) this.repairJsonl(run_id);
    return JSON.parse(state) as RunState;
  }

  findByRequestId(run_id: string, request_id: string): Decision | undefined {
    const d = this.sql.decisionByRequestId(run_id, request_id);
    return d === undefined ? undefined : (JSON.parse(d) as Decision);
  }

  append(record: RouteRecord, state: RunState): void {
    const { run_id, seq, decision } = record;
    // Plain JSON.stringify, not canonical JSON: the kernel builds these objects in a fixed key order, so the
    // same input still gives the same bytes, at a third of the cost. The chain hashes the stored text.
    const request = JSON.stringify(record.request);
    const decisionJson = JSON.stringify(decision);
    const stateJson = JSON.stringify(state);
    const callJsons = record.llm_calls.map((c) => canonicalJson(c));
    const prev = this.head(run_id);
    const hash = routeHash(prev, {
      run_id, seq, flow: record.flow, step: record.step, request_id: record.request_id, request, decision_json: decisionJson,
      state: stateJson, latency_us: record.latency_us, cost_usd: record.cost_usd, llm_calls_json: llmCallsJson(callJsons),
      kernel_version: record.kernel_version, flows_hash: record.flows_hash, ts: record.ts,
    });
    const offroad = decision.decision !== 'CONTINUE';
    const llmCalls: LlmCallRow[] = record.llm_calls.map((c, idx) => ({
      run_id, seq, idx, provider: c.provider, model: c.model, purpose: c.purpose, attempt: c.attempt, prompt_hash: c.prompt_hash,
      raw_answer: c.raw_answer, outcome: c.outcome, input_tokens: c.input_tokens, output_tokens: c.output_tokens, usd: c.usd,
      latency_ms: c.latency_ms, record: callJsons[idx]!,
    }));
    const escalation =
      decision.decision === 'ESCALATE'
        ? { escalation_id: decision.escalation_id ?? `${run_id}:${seq}`, run_id, seq, flow: record.flow, step: record.step, reason: decision.reason, opened_ts: record.ts }
        : null;
    try {
      this.sql.append({
        route: {
          run_id, seq, flow: record.flow, step: record.step, request_id: record.request_id, decision: decision.decision,
          next_step: decision.next_step_id, tier: decision.tier, rule: decision.rule, request, decision_json: decisionJson,
          state: stateJson, latency_us: record.latency_us, cost_usd: record.cost_usd, llm_calls: record.llm_calls.length,
          kernel_version: record.kernel_version, flows_hash: record.flows_hash, ts: record.ts,
          prev_hash: Buffer.from(prev, 'hex'), hash: Buffer.from(hash, 'hex'),
        },
        llmCalls,
        escalation,
        offroad,
      });
    } catch (err) {
      this.heads.delete(run_id);
      if (err instanceof SeqConflict) throw new LedgerConflictError(run_id, seq, { cause: err.cause });
      throw err;
    }
    this.heads.set(run_id, hash);
    // After the commit: a crash here leaves the file one line short, which the next loadRun/verify repairs.
    if (offroad && this.jsonl) this.writer.append(decisionsJsonlPath(this.runBase, run_id, record.flow), offRoadLine(record.step, decision, seq, record.ts));
  }

  private head(run_id: string): string {
    let h = this.heads.get(run_id);
    if (h === undefined) {
      const run = this.sql.run(run_id);
      h = run ? run.head_hash.toString('hex') : GENESIS_HASH;
    }
    return h;
  }

  /** The run's row in the runs table, or UnknownRunError. */
  requireRun(run_id: string): RunRow {
    const run = this.sql.run(run_id);
    if (!run) throw new UnknownRunError(run_id, this.file);
    return run;
  }

  /** decisions.jsonl path of a run's flow. */
  jsonlPath(run_id: string, flow: string): string {
    return decisionsJsonlPath(this.runBase, run_id, flow);
  }

  /** The decisions.jsonl lines the database says each of a run's flows should have, by flow. */
  expectedJsonl(run_id: string): Map<string, string[]> {
    const byFlow = new Map<string, string[]>();
    for (const row of this.sql.offroadRows(run_id)) {
      let lines = byFlow.get(row.flow);
      if (!lines) byFlow.set(row.flow, (lines = []));
      let decision: Decision;
      try {
        decision = JSON.parse(row.decision_json) as Decision;
      } catch {
        continue; // a damaged row: verify reports it; it gives no line
      }
      lines.push(offRoadLine(row.step, decision, row.seq, row.ts));
    }
    return byFlow;
  }

  /**
   * Appends to the decisions.jsonl files of a run (or of every run) the lines the database has and they lack,
   * after cutting a torn last line. Files that disagree otherwise are left for verify to report.
   * Run it while no other process routes the runs concerned.
   */
  repairJsonl(run_id?: string): JsonlRepair[] {
    const out: JsonlRepair[] = [];
    for (const id of run_id === undefined ? this.sql.allRunIds() : [run_id]) {
      for (const [flow, lines] of this.expectedJsonl(id)) {
        const file = this.jsonlPath(id, flow);
        this.writer.release(file);
        const r = repairJsonlFile(file, lines);
        if (r.appended > 0 || r.torn_line_removed) out.push({ run_id: id, flow, file, appended: r.appended, torn_line_removed: r.torn_line_removed });
      }
      this.repaired.add(id);
    }
    return out;
  }

  close(): void {
    this.writer.close();
    this.sql.close();
  }
}

/** Opens (creating unless told not to) the ledger at `file`. */
export function openLedger(file: string = DEFAULT_LEDGER_FILE, options: LedgerOptions = {}): SqliteLedger {
  return new SqliteLedger(file, options);
}
