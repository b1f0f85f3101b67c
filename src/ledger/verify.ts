import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Decision } from '../contracts/decision.js';
import type { JsonlRepair, VerifyIssue, VerifyReport } from '../contracts/ledger.js';
import { GENESIS_HASH, llmCallsJson, resolutionHash, routeHash } from './chain.js';
import { readJsonl } from './decisions-jsonl.js';
import { expectedLines } from './jsonl-mirror.js';
import type { LlmCallRecord } from '../contracts/llm-call.js';
import type { DecisionsMirror, Ledger, LedgerReader, StoredLlmCall } from '../contracts/ports.js';
import { requireRun } from './audit.js';

export interface VerifyOptions {
  /** Only this run (UnknownRunError when the ledger does not have it). */
  run?: string;
  /** Repair decisions.jsonl files that lack a suffix or end in a torn line before checking them (default true). */
  repair?: boolean;
  /** Called now and then with routes checked so far and the total. */
  onProgress?: (done: number, total: number) => void;
}

const PAGE = 2000;

/**
 * Re-computes every route's hash chain, checks sequence numbers, run heads, LLM call rows and escalations,
 * and compares each decisions.jsonl file with the lines the database implies. Reads only; the one write is the
 * JSONL repair (`repair: false` to skip it).
 */
export async function verifyLedger(ledger: Ledger, options: VerifyOptions = {}): Promise<VerifyReport> {
  let runIds: string[];
  if (options.run !== undefined) {
    if ((await ledger.run(options.run)) === undefined && (await ledger.routes(options.run, 0, 1)).length === 0) await requireRun(ledger, options.run);
    runIds = [options.run];
  } else {
    runIds = await ledger.runIds();
  }
  let total = 0;
  for (const id of runIds) total += (await ledger.run(id))?.last_seq ?? 0;
  const issues: VerifyIssue[] = [];
  const repairs: JsonlRepair[] = [];
  let routes = 0;
  let jsonlFiles = 0;
  for (const run_id of runIds) {
    routes += await verifyChain(ledger, run_id, issues, (n) => options.onProgress?.(routes + n, total));
    if (ledger.mirror) {
      if (options.repair ?? true) repairs.push(...(await ledger.mirror.repair(run_id)));
      jsonlFiles += await verifyJsonl(ledger, ledger.mirror, run_id, issues);
    }
  }
  options.onProgress?.(routes, total);
  return { ok: issues.length === 0, runs: runIds.length, routes, jsonl_files: jsonlFiles, issues, repairs };
}

async function verifyChain(ledger: LedgerReader, run_id: string, issues: VerifyIssue[], progress: (n: number) => void): Promise<number> {
  let expectedSeq = 1;
  let prev = GENESIS_HASH;
  let lastSeq = 0;
  let count = 0;
  const escalations = await ledger.runEscalations(run_id);
  const escalated = new Set(escalations.map((e) => e.seq));
  const hashes = new Map<number, string>();
  for (let after = 0; ; ) {
    const rows = await ledger.routes(run_id, after, PAGE);
    if (rows.length === 0) break;
    const first = rows[0]!.seq;
    const last = rows[rows.length - 1]!.seq;
    const calls = new Map<number, string[]>();
    const badCalls = new Set<number>();
    for (const c of await ledger.llmCalls(run_id, first, last)) {
      let list = calls.get(c.seq);
      if (!list) calls.set(c.seq, (list = []));
      list.push(c.record);
      if (!llmColumnsMatch(c)) badCalls.add(c.seq);
    }
    for (const row of rows) {
      const bad = (kind: VerifyIssue['kind'], message: string, seq = row.seq) => issues.push({ run_id, seq, kind, message });
      const rowCalls = calls.get(row.seq) ?? [];
      const hash = row.hash;
      const prevHash = row.prev_hash;
      if (row.seq !== expectedSeq) {
        bad('seq_gap', `expected seq ${expectedSeq}, found ${row.seq}: rows deleted or renumbered`, Math.min(expectedSeq, row.seq));
      } else if (prevHash !== prev) {
        bad('prev_hash_mismatch', `prev_hash does not match the hash of seq ${row.seq - 1}: a row before it was changed, deleted or moved`);
      } else if (
        hash !==
        routeHash(prevHash, { ...row, llm_calls_json: llmCallsJson(rowCalls) })
      ) {
        bad('hash_mismatch', `row content does not match its hash: edited after it was written`);
      } else if (rowCalls.length !== row.llm_calls) {
        bad('llm_calls_mismatch', `row records ${row.llm_calls} LLM calls, the llm_calls table has ${rowCalls.length}`);
      } else if (badCalls.has(row.seq)) {
        bad('llm_calls_mismatch', 'an llm_calls row disagrees with its hashed record');
      } else {
        let decision: Decision | undefined;
        try {
          JSON.parse(row.request);
          JSON.parse(row.state);
          decision = JSON.parse(row.decision_json) as Decision;
        } catch (err) {
          bad('bad_record', `unparseable JSON: ${(err as Error).message}`);
        }
        if (decision?.decision === 'ESCALATE') hashes.set(row.seq, hash);
        if (decision?.decision === 'ESCALATE' && !escalated.has(row.seq)) {
          bad('escalation_missing', 'ESCALATE decision without its escalation row');
        }
      }
      // Continue the chain from what is stored, so one bad row is reported once, not for every row after it.
      expectedSeq = row.seq + 1;
      prev = hash;
      lastSeq = row.seq;
      count++;
    }
    after = last;
    progress(count);
  }
  for (const e of escalations) {
    if (e.status !== 'resolved') continue;
    const h = e.resolution_hash;
    if (e.resolution === null || h !== resolutionHash(hashes.get(e.seq) ?? '', e.escalation_id, e.resolution)) {
      issues.push({ run_id, seq: e.seq, kind: 'resolution_mismatch', message: `the resolution of escalation ${e.escalation_id} does not match its hash` });
    }
  }
  const run = await ledger.run(run_id);
  if (!run) {
    issues.push({ run_id, seq: null, kind: 'head_mismatch', message: 'routes without a runs row' });
  } else if (run.last_seq !== lastSeq || run.head_hash !== prev) {
    issues.push({
      run_id,
      seq: Math.min(run.last_seq, lastSeq + 1),
      kind: 'head_mismatch',
      message: `the run's head is seq ${run.last_seq}, the last row is seq ${lastSeq}${run.last_seq > lastSeq ? ': rows at the end were deleted' : ''}`,
    });
  }
  return count;
}

/** The queryable columns of an LLM call row repeat its hashed record; an edit to one of them shows here. */
function llmColumnsMatch(c: StoredLlmCall): boolean {
  try {
    const r = JSON.parse(c.record) as LlmCallRecord;
    return (
      r.provider === c.provider && r.model === c.model && r.purpose === c.purpose && r.attempt === c.attempt && r.prompt_hash === c.prompt_hash &&
      r.raw_answer === c.raw_answer && r.outcome === c.outcome && r.input_tokens === c.input_tokens && r.output_tokens === c.output_tokens &&
      r.usd === c.usd && r.latency_ms === c.latency_ms
    );
  } catch {
    return false;
  }
}

async function verifyJsonl(ledger: LedgerReader, mirror: DecisionsMirror, run_id: string, issues: VerifyIssue[]): Promise<number> {
  const expected = expectedLines(await ledger.offroadRows(run_id));
  // Files on disk for flows the database has no off-road decision in (their folder names may be hashed:
  // match them against the run's flows).
  const files = new Map<string, string>();
  for (const flow of expected.keys()) files.set(mirror.fileFor(run_id, flow), flow);
  for (const flow of await ledger.runFlows(run_id)) {
    const file = mirror.fileFor(run_id, flow);
    if (!files.has(file) && existsSync(file)) files.set(file, flow);
  }
  const runDir = path.dirname(path.dirname(path.dirname(mirror.fileFor(run_id, '_'))));
  if (existsSync(runDir)) {
    for (const entry of readdirSync(runDir, { withFileTypes: true })) {
      const file = path.join(runDir, entry.name, 'routing', 'decisions.jsonl');
      if (entry.isDirectory() && !files.has(file) && existsSync(file)) files.set(file, entry.name);
    }
  }
  let count = 0;
  for (const [file, flow] of [...files].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))) {
    const want = expected.get(flow) ?? [];
    const { lines } = readJsonl(file);
    count++;
    const seqOf = (line: string | undefined): number | null => {
      try {
        const v = (JSON.parse(line ?? '') as { seq?: unknown }).seq;
        return typeof v === 'number' ? v : null;
      } catch {
        return null;
      }
    };
    const n = Math.max(lines.length, want.length);
    for (let i = 0; i < n; i++) {
      if (lines[i] === want[i]) continue;
      if (i >= lines.length) {
        issues.push({ run_id, seq: seqOf(want[i]), kind: 'jsonl_missing_line', message: `${want.length - lines.length} line(s) of the database missing from the file`, file });
      } else if (i >= want.length) {
        issues.push({ run_id, seq: seqOf(lines[i]), kind: 'jsonl_extra_line', message: `line ${i + 1} is not in the database`, file });
      } else {
        issues.push({ run_id, seq: seqOf(want[i]), kind: 'jsonl_mismatch', message: `line ${i + 1} differs from the database record`, file });
      }
      break;
    }
  }
  return count;
}
