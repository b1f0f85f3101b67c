import { existsSync, readdirSync } from 'node:fs';
import { isOffroad } from '../contracts/decision-kinds.js';
import path from 'node:path';
import type { Decision } from '../contracts/decision.js';
import type { JsonlRepair, VerifyIssue, VerifyReport } from '../contracts/ledger.js';
import { CHAINED_FIELD_NAMES, GENESIS_HASH, changedFields, fieldSums, llmCallsJson, registerHash, resolutionHash, routeHash, unsealedFields, type ChainedFields } from './chain.js';
import type { Tombstone } from '../contracts/archive-port.js';
import { readJsonl } from './decisions-jsonl.js';
import { expectedLines } from './jsonl-mirror.js';
import type { LlmCallRecord } from '../contracts/llm-call.js';
import type { DecisionsMirror, EscalationReader, Ledger, RunReader, RunState, StoredLlmCall, StoredRoute, VersionStore } from '../contracts/ports.js';
import { sha256 } from '../contracts/canonical-json.js';
import { upgradeHash } from './upgrade-chain.js';
import { requireRun } from './stored-rows.js';
import { archiveStoreFor } from './archive/store-for.js';

/** Options of verifyLedger: repair the decisions.jsonl mirror or not, progress. */
export interface VerifyOptions {
  /** Only this run (UnknownRunError when the ledger does not have it). */
  run?: string;
  /** Repair decisions.jsonl files that lack a suffix or end in a torn line before checking them (default true). */
  repair?: boolean;
  /** Called now and then with routes checked so far and the total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * The ledger's run register is a slice (a run bundle's one entry): chain it from its first entry's prev_hash
   * instead of the genesis hash.
   */
  registerSlice?: boolean;
}

const PAGE = 2000;

/**
 * Re-computes every route's hash chain, checks sequence numbers, run heads, LLM call rows and escalations,
 * and compares each decisions.jsonl file with the lines the database implies. Reads only; the one write is the
 * JSONL repair (`repair: false` to skip it).
 */
export async function verifyLedger(ledger: RunReader & EscalationReader & Pick<Ledger, 'mirror'>, options: VerifyOptions = {}): Promise<VerifyReport> {
  // Archived runs (a tombstone in the run register, src/ledger/archive/): their rows are in a bundle, not here.
  const tombstones = await (archiveStoreFor(ledger)?.tombstones() ?? Promise.resolve([]));
  const archived = new Set(tombstones.map((t) => t.run_id));
  let runIds: string[];
  if (options.run !== undefined) {
    if ((await ledger.run(options.run)) === undefined && (await ledger.routes(options.run, 0, 1)).length === 0 && !archived.has(options.run)) await requireRun(ledger, options.run);
    runIds = [options.run];
  } else {
    runIds = await ledger.runIds();
  }
  const issues: VerifyIssue[] = [];
  const live: string[] = [];
  for (const id of runIds) {
    if (!archived.has(id)) live.push(id);
    else if ((await ledger.run(id)) !== undefined || (await ledger.routeHash(id, 1)) !== undefined) {
      issues.push({ run_id: id, seq: null, kind: 'register_mismatch', message: `run ${JSON.stringify(id)} has a tombstone (archived) but rows in the ledger too`, table: 'run_register', field: 'archived_ts' });
      live.push(id);
    }
  }
  runIds = live;
  let total = 0;
  for (const id of runIds) total += (await ledger.run(id))?.last_seq ?? 0;
  const repairs: JsonlRepair[] = [];
  const versionsOf = (ledger as Partial<VersionStore>).flowVersions;
  const keepsVersions = versionsOf ? (await versionsOf.call(ledger)).length > 0 : false;
  let routes = 0;
  let jsonlFiles = 0;
  for (const run_id of runIds) {
    routes += await verifyChain(ledger, run_id, issues, (n) => options.onProgress?.(routes + n, total), keepsVersions);
    if (ledger.mirror) {
      if (options.repair ?? true) repairs.push(...(await ledger.mirror.repair(run_id)));
      jsonlFiles += await verifyJsonl(ledger, ledger.mirror, run_id, issues);
    }
  }
  if (options.run === undefined) await verifyFlowVersions(ledger, issues);
  await verifyRegister(ledger, issues, options.run, archived, options.registerSlice ?? false);
  if (tombstones.length > 0) await verifyTombstones(ledger, tombstones, issues, options.run);
  options.onProgress?.(routes, total);
  const report: VerifyReport = { ok: issues.length === 0, runs: runIds.length, routes, jsonl_files: jsonlFiles, issues, repairs };
  if (archived.size > 0) report.archived_runs = options.run === undefined ? archived.size : Number(archived.has(options.run));
  return report;
}

type IssueExtra = { table?: string; field?: string };

/** Every kept flow version's definition must hash to its key (content addressing): an edited definition is named. */
async function verifyFlowVersions(ledger: object, issues: VerifyIssue[]): Promise<void> {
  const read = (ledger as Partial<VersionStore>).flowVersions;
  if (!read) return;
  for (const v of await read.call(ledger)) {
    if (sha256(v.definition) !== v.hash) issues.push({ run_id: '', seq: null, kind: 'flow_version_mismatch', message: `flow version ${v.hash.slice(0, 12)}: its kept definition does not hash to it`, table: 'flow_versions', field: 'definition' });
  }
}

/**
 * A run's upgrades: each chained to the route at its seq (or the upgrade before it), its hash recomputed; and the
 * version the run is pinned to (its last state, or its last upgrade's) must be kept, or no other process can route it.
 */
async function verifyUpgrades(ledger: object, run_id: string, hashes: ReadonlyMap<number, string>, lastSeq: number, lastState: string | undefined, keepsVersions: boolean, issue: (seq: number | null, kind: VerifyIssue['kind'], message: string, extra?: IssueExtra) => void): Promise<void> {
  const store = ledger as Partial<VersionStore>;
  const upgrades = store.runUpgrades ? await store.runUpgrades.call(ledger, run_id) : [];
  let at = -1;
  let prev = '';
  for (const u of upgrades) {
    const seq = Number(u.seq);
    const idx = Number(u.idx);
    if (seq !== at) (at = seq), (prev = hashes.get(seq) ?? '');
    const expected = upgradeHash(prev, { ...u, seq, idx });
    if (u.prev_hash !== prev || u.hash !== expected) {
      issue(seq, 'upgrade_mismatch', `upgrade ${idx} after seq ${seq} (${u.from_flows.slice(0, 12)} → ${u.to_flows.slice(0, 12)} by ${JSON.stringify(u.by)}) does not match its hash`, { table: 'run_upgrades', field: u.prev_hash !== prev ? 'prev_hash' : 'hash' });
    }
    prev = u.hash;
  }
  const final = upgrades.filter((u) => Number(u.seq) === lastSeq).at(-1)?.state ?? lastState;
  let pin: string | undefined;
  try {
    pin = final === undefined ? undefined : (JSON.parse(final) as RunState).flows;
  } catch {
    pin = undefined;
  }
  // Only in a ledger that keeps versions (every kernel since schema 9 keeps the ones it routes with): rows appended
  // through the store alone, without the kernel, keep none, and are not damaged for it.
  if (pin !== undefined && store.flowVersion && keepsVersions && (await store.flowVersion.call(ledger, pin)) === undefined) {
    issue(null, 'flow_version_missing', `the run is pinned to flow version ${pin.slice(0, 12)}, which the ledger does not keep`, { table: 'flow_versions', field: 'flows_hash' });
  }
}

async function verifyChain(ledger: RunReader & EscalationReader, run_id: string, issues: VerifyIssue[], progress: (n: number) => void, keepsVersions = false): Promise<number> {
  let expectedSeq = 1;
  let prev = GENESIS_HASH;
  let lastSeq = 0;
  let count = 0;
  const escalations = await ledger.runEscalations(run_id);
  const byEscalationId = new Map(escalations.map((e) => [e.escalation_id, e]));
  const matchedEscalations = new Set<string>();
  const hashes = new Map<number, string>();
  let sawMicros = false;
  let lastState: string | undefined;
  const routeHashes = new Map<number, string>();
  // What the run's summary row must say, recomputed from its routes.
  const sum = { flow: '', created_ts: '', updated_ts: '', offroad: 0, llm_calls: 0, cost_usd: 0, last_decision: '', last_step: '' };
  // Ledgers written before the normal end stopped counting as off-road counted every non-CONTINUE decision.
  let offroadBefore = 0;
  const issue = (seq: number | null, kind: VerifyIssue['kind'], message: string, extra: IssueExtra = {}) => {
    const i: VerifyIssue = { run_id, seq, kind, message };
    if (extra.table !== undefined) i.table = extra.table;
    if (extra.field !== undefined) i.field = extra.field;
    issues.push(i);
  };
  for (let after = 0; ; ) {
    const rows = await ledger.routes(run_id, after, PAGE);
    if (rows.length === 0) break;
    const first = rows[0]!.seq;
    const last = rows[rows.length - 1]!.seq;
    const calls = new Map<number, string[]>();
    const badCalls = new Map<number, string>();
    for (const c of await ledger.llmCalls(run_id, first, last)) {
      let list = calls.get(c.seq);
      if (!list) calls.set(c.seq, (list = []));
      list.push(c.record);
      const field = c.idx !== list.length - 1 ? 'idx' : llmColumnMismatch(c);
      if (field !== null && !badCalls.has(c.seq)) badCalls.set(c.seq, `${field} (row idx ${c.idx})`);
    }
    for (const row of rows) {
      lastState = row.state;
      // Every route's stored hash: an upgrade chains to the route at its seq (a bad route is reported on its own).
      routeHashes.set(row.seq, row.hash);
      const bad = (kind: VerifyIssue['kind'], message: string, extra: IssueExtra = {}, seq = row.seq) => issue(seq, kind, message, extra);
      const rowCalls = calls.get(row.seq) ?? [];
      const hash = row.hash;
      const prevHash = row.prev_hash;
      const chained = { ...row, llm_calls_json: llmCallsJson(rowCalls) };
      if (row.seq === 1) {
        sum.flow = row.flow;
        sum.created_ts = row.ts;
      }
      sum.updated_ts = row.ts;
      sum.llm_calls += row.llm_calls;
      sum.cost_usd = row.seq === 1 ? row.cost_usd : sum.cost_usd + row.cost_usd;
      sum.last_step = row.step;
      sum.last_decision = row.decision;
      if (isOffroad(row)) sum.offroad++;
      if (row.decision !== 'CONTINUE') offroadBefore++;
      if (row.seq !== expectedSeq) {
        bad('seq_gap', `expected seq ${expectedSeq}, found ${row.seq}: rows deleted or renumbered`, { table: 'routes', field: 'seq' }, Math.min(expectedSeq, row.seq));
      } else if (prevHash !== prev) {
        bad('prev_hash_mismatch', `prev_hash does not match the hash of seq ${row.seq - 1}: a row before it was changed, deleted or moved`, { table: 'routes', field: 'prev_hash' });
      } else if (hash !== routeHash(prevHash, chained)) {
        const fields = editedFields(row, chained);
        const what = fields.length ? fields.join(', ') : 'request, decision_json or state';
        bad('hash_mismatch', `row content does not match its hash: ${what} edited after it was written`, { table: fields.includes('llm_calls') ? 'llm_calls' : 'routes', field: what });
      } else if (row.field_sums !== null && row.field_sums !== fieldSums(chained)) {
        bad('field_mismatch', 'field_sums does not match the (hashed) fields it fingerprints', { table: 'routes', field: 'field_sums' });
      } else if (rowCalls.length !== row.llm_calls) {
        bad('llm_calls_mismatch', `row records ${row.llm_calls} LLM calls, the llm_calls table has ${rowCalls.length}`, { table: 'routes', field: 'llm_calls' });
      } else if (badCalls.has(row.seq)) {
        bad('llm_calls_mismatch', `an llm_calls row disagrees with its hashed record: ${badCalls.get(row.seq)}`, { table: 'llm_calls', field: badCalls.get(row.seq)!.split(' ')[0]! });
      } else {
        let decision: Decision | undefined;
        try {
          JSON.parse(row.request);
          JSON.parse(row.state);
          decision = JSON.parse(row.decision_json) as Decision;
        } catch (err) {
          bad('bad_record', `unparseable JSON: ${(err as Error).message}`);
        }
        if (decision) {
          // The queryable copies of the decision (not hashed themselves) must agree with the hashed JSON.
          const copies: [string, unknown, unknown][] = [
            ['decision', row.decision, decision.decision],
            ['next_step', row.next_step, decision.next_step_id],
            ['tier', row.tier, decision.tier],
            ['rule', row.rule, decision.rule],
          ];
          for (const [field, stored, want] of copies) {
            if (stored !== want) bad('field_mismatch', `routes.${field} is ${JSON.stringify(stored)} but the hashed decision says ${JSON.stringify(want)}`, { table: 'routes', field });
          }
          // The latency unit (not hashed) only ever changed once, from 'ms' to 'us' (schema version 5): a run's 'ms' rows come first.
          if (row.latency_unit === 'us') sawMicros = true;
          else if (sawMicros) bad('field_mismatch', "routes.latency_unit is 'ms' after a route recorded in 'us': only routes written before schema version 5 hold ms", { table: 'routes', field: 'latency_unit' });
          if (decision.decision === 'ESCALATE') {
            hashes.set(row.seq, hash);
            const id = decision.escalation_id ?? `${run_id}:${row.seq}`;
            const e = byEscalationId.get(id);
            if (!e) {
              bad('escalation_missing', `ESCALATE decision without its escalation row ${id}`, { table: 'escalations', field: 'escalation_id' });
            } else {
              matchedEscalations.add(id);
              const want: [string, unknown, unknown][] = [
                ['seq', e.seq, row.seq],
                ['flow', e.flow, row.flow],
                ['step', e.step, row.step],
                ['reason', e.reason, decision.reason],
                ['opened_ts', e.opened_ts, row.ts],
              ];
              for (const [field, stored, expect] of want) {
                if (stored !== expect) bad('field_mismatch', `escalation ${id}: ${field} is ${JSON.stringify(stored)} but the hashed route says ${JSON.stringify(expect)}`, { table: 'escalations', field });
              }
            }
          }
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
    if (!matchedEscalations.has(e.escalation_id)) {
      issue(e.seq, 'field_mismatch', `escalation ${e.escalation_id} has no ESCALATE route of this run at seq ${e.seq}`, { table: 'escalations', field: 'escalation_id' });
      continue;
    }
    if (e.status === 'open') {
      if (e.resolution !== null || e.resolved_by !== null || e.resolved_ts !== null || e.resolution_hash !== null) {
        issue(e.seq, 'field_mismatch', `escalation ${e.escalation_id} is open but carries a resolution`, { table: 'escalations', field: 'status' });
      }
      continue;
    }
    if (e.status !== 'resolved') {
      issue(e.seq, 'field_mismatch', `escalation ${e.escalation_id} has status ${JSON.stringify(e.status)}`, { table: 'escalations', field: 'status' });
      continue;
    }
    const h = e.resolution_hash;
    if (e.resolution === null || h !== resolutionHash(hashes.get(e.seq) ?? '', e.escalation_id, e.resolution)) {
      issue(e.seq, 'resolution_mismatch', `the resolution of escalation ${e.escalation_id} does not match its hash`, { table: 'escalations', field: e.resolution === null ? 'status' : 'resolution' });
      continue;
    }
    try {
      const r = JSON.parse(e.resolution) as { by?: unknown; ts?: unknown };
      if (r.by !== e.resolved_by) issue(e.seq, 'field_mismatch', `escalation ${e.escalation_id}: resolved_by disagrees with the hashed resolution`, { table: 'escalations', field: 'resolved_by' });
      if (r.ts !== e.resolved_ts) issue(e.seq, 'field_mismatch', `escalation ${e.escalation_id}: resolved_ts disagrees with the hashed resolution`, { table: 'escalations', field: 'resolved_ts' });
    } catch {
      issue(e.seq, 'bad_record', `escalation ${e.escalation_id}: unparseable resolution`, { table: 'escalations', field: 'resolution' });
    }
  }
  await verifyUpgrades(ledger, run_id, routeHashes, lastSeq, lastState, keepsVersions, issue);
  const run = await ledger.run(run_id);
  if (!run) {
    issue(null, 'head_mismatch', count ? 'routes without a runs row' : 'the run has neither routes nor a runs row', { table: 'runs', field: 'run_id' });
  } else if (run.last_seq !== lastSeq || run.head_hash !== prev) {
    issue(Math.min(run.last_seq, lastSeq + 1), 'head_mismatch', `the run's head is seq ${run.last_seq}, the last row is seq ${lastSeq}${run.last_seq > lastSeq ? ': rows at the end were deleted' : ''}`, {
      table: 'runs',
      field: run.last_seq !== lastSeq ? 'last_seq' : 'head_hash',
    });
  } else if (count > 0) {
    const fields: [keyof typeof sum, unknown][] = [
      ['flow', run.flow],
      ['created_ts', run.created_ts],
      ['updated_ts', run.updated_ts],
      ['offroad', run.offroad],
      ['llm_calls', run.llm_calls],
      ['cost_usd', run.cost_usd],
      ['last_decision', run.last_decision],
      ['last_step', run.last_step],
    ];
    for (const [field, stored] of fields) {
      const want = field === 'offroad' && stored === offroadBefore ? stored : sum[field];
      const same = typeof want === 'number' && typeof stored === 'number' ? Math.abs(want - stored) <= 1e-9 * Math.max(1, Math.abs(want)) : want === stored;
      if (!same) issue(null, 'field_mismatch', `runs.${field} is ${JSON.stringify(stored)}, the routes give ${JSON.stringify(want)}`, { table: 'runs', field });
    }
  }
  return count;
}

/** Which hashed fields of a row that fails its hash were edited: from its field fingerprints, else from copies. */
function editedFields(row: StoredRoute, chained: ChainedFields): string[] {
  let sumsAgree = false;
  if (row.field_sums !== null) {
    const changed = changedFields(row.field_sums, chained);
    if (changed.length > 0 && changed.length < CHAINED_FIELD_NAMES.length) return changed;
    sumsAgree = changed.length === 0;
  }
  const out: string[] = [];
  // Routes without fingerprints were written before schema 2, long before any route carried a principal.
  if (row.field_sums === null && row.principal != null) out.push('principal');
  try {
    const q = JSON.parse(row.request) as { run_id?: unknown; flow?: unknown; step_completed?: unknown; request_id?: unknown };
    if (q.run_id !== row.run_id || q.flow !== row.flow || q.step_completed !== row.step || (q.request_id ?? null) !== row.request_id) out.push('request');
  } catch {
    out.push('request');
  }
  try {
    const d = JSON.parse(row.decision_json) as Decision;
    if (d.decision !== row.decision || d.tier !== row.tier || d.rule !== row.rule || d.next_step_id !== row.next_step || (d.seq !== undefined && d.seq !== row.seq)) out.push('decision_json');
  } catch {
    out.push('decision_json');
  }
  try {
    const st = JSON.parse(row.state) as { run_id?: unknown; seq?: unknown };
    if (st.run_id !== row.run_id || st.seq !== row.seq) out.push('state');
  } catch {
    out.push('state');
  }
  // Every field still matches its fingerprint and its copies: the stored hash itself was edited (or a JSON
  // column was edited keeping its length, which only the hash can tell).
  if (out.length === 0 && sumsAgree) out.push('hash');
  return out;
}

/** The run register: a chain with one entry per run, so that a run deleted whole (all its rows) is noticed. */
async function verifyRegister(ledger: RunReader, issues: VerifyIssue[], only: string | undefined, archived: ReadonlySet<string>, slice: boolean): Promise<void> {
  const entries = await ledger.runRegister();
  let prev = slice ? (entries[0]?.prev_hash ?? GENESIS_HASH) : GENESIS_HASH;
  const registered = new Set<string>();
  for (const e of entries) {
    registered.add(e.run_id);
    const check = only === undefined || only === e.run_id;
    if (e.prev_hash !== prev || e.hash !== registerHash(e.prev_hash, e.run_id, e.first_hash)) {
      if (check || only === undefined) {
        issues.push({ run_id: e.run_id, seq: null, kind: 'register_mismatch', message: `run register entry ${e.ordinal} does not chain to the one before it: an entry was deleted, edited or reordered`, table: 'run_register', field: e.prev_hash !== prev ? 'prev_hash' : 'hash' });
      }
    }
    prev = e.hash;
    if (!check) continue;
    const first = await ledger.routeHash(e.run_id, 1);
    if (first === undefined) {
      if (archived.has(e.run_id)) continue;
      issues.push({ run_id: e.run_id, seq: null, kind: 'run_missing', message: `run ${JSON.stringify(e.run_id)} is in the run register but has no routes: it was deleted`, table: 'routes' });
    } else if (first !== e.first_hash) {
      issues.push({ run_id: e.run_id, seq: 1, kind: 'register_mismatch', message: 'the run register holds another first route for this run', table: 'run_register', field: 'first_hash' });
    }
  }
  for (const run_id of only === undefined ? await ledger.runIds() : [only]) {
    if (!registered.has(run_id) && (await ledger.routeHash(run_id, 1)) !== undefined) {
      issues.push({ run_id, seq: null, kind: 'register_mismatch', message: `run ${JSON.stringify(run_id)} is missing from the run register`, table: 'run_register' });
    }
  }
}

/**
 * Each tombstone's columns against its seal (chained to its register entry's hash): an edit of `archived_to`,
 * `archived_seq`, `archived_hash`, `bundle_sha256` or `archived_ts` is named by column.
 */
async function verifyTombstones(ledger: RunReader, tombstones: readonly Tombstone[], issues: VerifyIssue[], only: string | undefined): Promise<void> {
  const entries = new Map((await ledger.runRegister()).map((e) => [e.run_id, e]));
  for (const t of tombstones) {
    if (only !== undefined && t.run_id !== only) continue;
    const e = entries.get(t.run_id);
    if (!e) continue; // a tombstone without an entry cannot be: the register's own check reports what is missing
    for (const field of unsealedFields(t.seal, e.hash, t.run_id, t)) {
      const what = field === 'archived_seal' ? 'its seal was edited or removed' : `${field} was edited after the run was archived`;
      issues.push({ run_id: t.run_id, seq: null, kind: 'register_mismatch', message: `the tombstone of archived run ${JSON.stringify(t.run_id)} does not match its seal: ${what}`, table: 'run_register', field });
    }
  }
}

/** The queryable columns of an LLM call row repeat its hashed record; the first that disagrees, or null. */
function llmColumnMismatch(c: StoredLlmCall): string | null {
  let r: LlmCallRecord;
  try {
    r = JSON.parse(c.record) as LlmCallRecord;
  } catch {
    return 'record';
  }
  const cols = ['provider', 'model', 'purpose', 'attempt', 'prompt_hash', 'raw_answer', 'outcome', 'input_tokens', 'output_tokens', 'usd', 'latency_ms'] as const;
  for (const k of cols) if ((r as unknown as Record<string, unknown>)[k] !== (c as unknown as Record<string, unknown>)[k]) return k;
  return null;
}

async function verifyJsonl(ledger: RunReader, mirror: DecisionsMirror, run_id: string, issues: VerifyIssue[]): Promise<number> {
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
    let lines: string[];
    try {
      lines = readJsonl(file).lines;
    } catch (err) {
      issues.push({ run_id, seq: null, kind: 'jsonl_mismatch', message: `cannot read the file: ${(err as Error).message}`, file });
      count++;
      continue;
    }
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
