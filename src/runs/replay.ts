import { ARBITER_ERROR, withCurrentRuleNames } from '../contracts/arbiter-rules.js';
import { decisionTargets } from '../contracts/decision-targets.js';
import type { Decision } from '../contracts/decision.js';
import type { Divergence, ReplayReport, ReplayedDecision } from '../contracts/ledger.js';
import type { LlmCallRecord } from '../contracts/llm-call.js';
import type { ArbiterAnswer, ArbiterPort } from '../contracts/ports.js';
import type { RouteRequest } from '../contracts/route-request.js';
import { createRecordedRouter, resolutionOf, type FlowSet, type ResolvedEscalation } from '../kernel/index.js';
import type { EscalationReader, KernelStore, RunReader, RunState, VersionStore } from '../contracts/ports.js';
import { FlowVersionUnknownError, flowSetFromDefinition } from '../kernel/flows/flow-version.js';
import { requireRun } from '../ledger/stored-rows.js';
import { candidateId } from '../contracts/candidate-id.js';
import { NavkernelError } from '../contracts/errors.js';
import { didYouMean } from '../contracts/nearest-name.js';

/** A run re-routed with flows that do not define its flow (code FLOW_NOT_LOADED): the flows it was routed with are needed. */
export class FlowNotLoadedError extends NavkernelError {
  constructor(
    readonly run_id: string,
    readonly flow: string,
    loaded: string[],
  ) {
    super(
      'FLOW_NOT_LOADED',
      `run ${JSON.stringify(run_id)} was routed with flow ${JSON.stringify(flow)}, which is not among the loaded flows (${loaded.join(', ') || 'none'})${didYouMean(flow, loaded)}: pass --flows DIR with the folder that defines it (from the library: loadFlows(DIR))`,
    );
    this.name = 'FlowNotLoadedError';
  }
}

/** What a replay knows about one recorded route when tier 3 is asked about it. */
export interface RecordedRoute {
  seq: number;
  decision: Decision;
  llm_calls: LlmCallRecord[];
}

/** Options of replayRun: the arbiter to replay with, and when to stop. */
export interface ReplayOptions {
  /** Stop after this many divergences (default: report all). */
  maxDivergences?: number;
  /** Called now and then with routes replayed so far and the total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Tier 3 for the replay. Default: `recordedArbiter`, which answers with what tier 3 answered in the
   * recording (from the recorded decision and LLM calls of the same seq) and never calls a model. A caller
   * may instead pass an LLM arbiter over a model that serves the recorded raw answers by prompt hash,
   * which also notices when today's prompt differs from the recorded one.
   */
  arbiter?: (current: () => RecordedRoute) => ArbiterPort;
  /** Without `flows`: where each recorded version's flow set comes from (default `keptVersions(ledger)`; a what-if over many runs shares one). */
  versions?: (hash: string) => Promise<FlowSet>;
  /** Compare where the run stands after the replay with where the recording left it (default true; a what-if counts decisions only). */
  compareState?: boolean;
  /** A run whose flow `flows` lacks replays anyway, every route a divergence (a what-if of removing the flow), instead of FLOW_NOT_LOADED. */
  missingFlowDiverges?: boolean;
}

/** The router's default flows when every route names its own version. */
const EMPTY_FLOWS: FlowSet = { flows: new Map(), hash: '', get: () => undefined };

const PAGE = 4096;

/** The fields replay compares, taken from a decision. */
export function replayedDecision(d: Decision): ReplayedDecision {
  return { decision: d.decision, next_step_id: d.next_step_id, needs_human: d.needs_human, tier: d.tier, rule: d.rule, reason: d.reason, ...decisionTargets(d) };
}

const COMPARED = ['decision', 'next_step_id', 'next_flow', 'detour_target', 'inject_flow', 'return_to', 'signature', 'needs_human', 'tier', 'rule'] as const;

/** Compared fields that differ between a recorded and a replayed decision ([] when they agree). */
export function diffDecisions(recorded: Decision, now: Decision): string[] {
  // A decision recorded before tier 3 was the arbiter names its rules "navigator…": the same rules.
  recorded = withCurrentRuleNames(recorded);
  const out: string[] = COMPARED.filter((k) => recorded[k] !== now[k]);
  if (JSON.stringify(recorded.inject_nodes ?? null) !== JSON.stringify(now.inject_nodes ?? null)) out.push('inject_nodes');
  return out;
}

/** The candidate id that leads to a decision (the inverse of the kernel's candidate list). */
export function candidateIdFor(d: Decision): string {
  return candidateId(d.decision, d.decision === 'DETOUR' ? (d.detour_target ?? d.next_step_id) : d.decision === 'INJECT_FLOW' ? d.inject_flow : d.next_step_id);
}

/**
 * Tier 3 from a recording: answers at each seq exactly what tier 3 answered then (its proposal, the answers it
 * refused, why it skipped, its LLM calls and cost), without any model. Where tier 3 was not consulted in the
 * recording it skips with rule `replay_no_recording`, so the replayed decision shows the divergence.
 */
export function recordedArbiter(current: () => RecordedRoute): ArbiterPort {
  return async () => {
    const { decision: d, llm_calls } = current();
    const cost_usd = llm_calls.reduce((n, c) => n + c.usd, 0);
    const rejected = d.rejected.filter((r) => r.tier === 3).map(({ tier: _tier, ...r }) => r);
    const skipped = d.skipped?.find((s) => s.tier === 3);
    if (skipped?.rule === ARBITER_ERROR) throw new Error(skipped.reason);
    const answer: ArbiterAnswer = { rejected, calls: llm_calls, cost_usd };
    if (d.tier === 3) {
      answer.proposal = { candidate_id: candidateIdFor(d), reason: d.reason, confidence: d.confidence };
      if (d.inject_nodes) answer.proposal.inject_nodes = d.inject_nodes.map((n) => ({ ...n }));
    } else if (skipped) {
      answer.skipped = { rule: skipped.rule, reason: skipped.reason };
    } else if (rejected.length === 0 && llm_calls.length === 0) {
      answer.skipped = { rule: 'replay_no_recording', reason: `tier 3 was not consulted at seq ${current().seq} in the recording` };
    }
    return answer;
  };
}

/**
 * The flow versions a ledger keeps, each compiled once (docs/changing-flows.md): what a replay from the ledger alone
 * routes each recorded request with. FLOW_VERSION_UNKNOWN for a version the ledger does not keep (recorded before
 * navkernel kept versions): such a run replays with `--flows DIR` only.
 */
export function keptVersions(ledger: object): (hash: string) => Promise<FlowSet> {
  const cache = new Map<string, FlowSet>();
  const read = (ledger as Partial<VersionStore>).flowVersion;
  return async (hash) => {
    let set = cache.get(hash);
    if (set) return set;
    const definition = read ? await read.call(ledger, hash) : undefined;
    if (definition === undefined) throw new FlowVersionUnknownError(hash, 'in the ledger, so the run cannot replay from the ledger alone');
    cache.set(hash, (set = flowSetFromDefinition(hash, definition)));
    return set;
  };
}

/**
 * Re-routes the recorded requests of a run, in order, through the kernel's machine (`createRecordedRouter`), using
 * recorded LLM answers, and reports every decision that differs (first one first). Nothing is written.
 * `flows`: the flow set to ask ("what would these flows have done?"); undefined: each route's own recorded version,
 * read from the ledger (a replay needing no flows on disk), with the run's recorded upgrades applied.
 */
export async function replayRun(ledger: RunReader, run_id: string, flows: FlowSet | undefined, options: ReplayOptions = {}): Promise<ReplayReport> {
  const run = await requireRun(ledger, run_id);
  // Without the run's flow every route would "diverge" (an unknown flow is an error): say what is missing instead.
  if (flows && !flows.get(run.flow) && !options.missingFlowDiverges) throw new FlowNotLoadedError(run_id, run.flow, [...flows.flows.keys()]);
  const version = flows ? undefined : (options.versions ?? keptVersions(ledger));
  // Recorded upgrades: where a person moved the run, it goes on from there (with either flows).
  const upgradeStates = new Map<number, RunState>();
  const upgradesOf = (ledger as Partial<VersionStore>).runUpgrades;
  if (upgradesOf) for (const u of await upgradesOf.call(ledger, run_id)) upgradeStates.set(Number(u.seq), JSON.parse(u.state) as RunState);
  // The recorded route tier 3 is asked about, built (and its decision parsed) only when tier 3 asks.
  let seq = 0;
  let recordedJson = '';
  let recordedCalls: LlmCallRecord[] = [];
  let current: RecordedRoute | undefined;
  const currentRoute = (): RecordedRoute => (current ??= { seq, decision: withCurrentRuleNames(JSON.parse(recordedJson) as Decision), llm_calls: recordedCalls });
  // A run recorded without tier 3 replays without it too: the same skips, and no asynchronous tier-3 path.
  const withArbiter = options.arbiter !== undefined || (await ledger.arbiterFootprint(run_id));
  // The kernel's routing without a live kernel's bookkeeping (records, store, per-route promises): the same machine
  // and rules as route(). The stored requests are as they left route()'s guard (validated, redacted), and are
  // routed at their recorded time.
  // A person's resolutions of the run's escalations: a run that awaited one goes on where it said, as it did live.
  const resolutions = new Map<string, ResolvedEscalation>();
  const escalations = (ledger as Partial<EscalationReader>).runEscalations;
  if (escalations) for (const e of await escalations.call(ledger, run_id)) {
    const r = resolutionOf(e);
    if (r) resolutions.set(e.escalation_id, r);
  }
  let routeFlows = flows;
  const router = createRecordedRouter({
    flows: flows ?? EMPTY_FLOWS,
    resolution: (id) => resolutions.get(id),
    ...(upgradeStates.size ? { upgradeAfter: (_run: string, seq: number) => upgradeStates.get(seq) } : {}),
    ...(withArbiter ? { arbiter: (options.arbiter ?? recordedArbiter)(currentRoute) } : {}),
  });
  const divergences: Divergence[] = [];
  const max = options.maxDivergences ?? Infinity;
  const none: LlmCallRecord[] = [];
  // The run's flow definitions, in order of first use, learnt from the rows as they are read (the same list as
  // `runFlowsHashes` when every row is read; a replay stopped early asks the ledger instead).
  const flowsHashes: string[] = [];
  let lastFlowsHash: string | undefined;
  let done = 0;
  let lastRecorded: { seq: number; flow: string; step: string; json: string } | undefined;
  try {
    chunks: for await (const rows of ledger.replayChunks(run_id, 0, PAGE)) {
      const calls = new Map<number, LlmCallRecord[]>();
      if (rows.some((r) => r[4] > 0)) {
        for (const c of await ledger.llmCalls(run_id, rows[0]![0], rows[rows.length - 1]![0])) {
          let list = calls.get(c.seq);
          if (!list) calls.set(c.seq, (list = []));
          list.push(JSON.parse(c.record) as LlmCallRecord);
        }
      }
      for (const row of rows) {
        if (row[5] !== lastFlowsHash) {
          lastFlowsHash = row[5];
          if (!flowsHashes.includes(lastFlowsHash)) flowsHashes.push(lastFlowsHash);
          if (version) routeFlows = await version(lastFlowsHash);
        }
        seq = row[0];
        recordedJson = row[2];
        recordedCalls = row[4] > 0 ? (calls.get(seq) ?? none) : none;
        current = undefined;
        const request = JSON.parse(row[1]) as RouteRequest;
        let now: Decision | undefined;
        let error: string | undefined;
        try {
          const routed = router.route(request, row[3], routeFlows);
          now = routed instanceof Promise ? await routed : routed;
        } catch (err) {
          error = err instanceof Error ? err.message : String(err);
        }
        // Cheap first: the ledger stores JSON.stringify of the decision, so the same text is the same decision.
        // Only a differing text is parsed and compared field by field (it may still agree on every compared field).
        if (now === undefined || JSON.stringify(now) !== recordedJson) {
          const recorded = currentRoute().decision;
          const fields = now ? diffDecisions(recorded, now) : ['error'];
          if (fields.length > 0) {
            const d: Divergence = { seq, flow: request.flow, step: request.step_completed, fields, recorded: replayedDecision(recorded), now: now ? replayedDecision(now) : null };
            if (error !== undefined) d.error = error;
            divergences.push(d);
            if (divergences.length >= max) break chunks;
          }
        }
        lastRecorded = { seq, flow: request.flow, step: request.step_completed, json: recordedJson };
        if (++done % PAGE === 0) options.onProgress?.(done, run.last_seq);
      }
    }
    // Where the run stands after the replay (its return points, the step it was sent to, its lifecycle) against
    // where the recording left it: a divergence here, even with every decision the same, is one of the run's state.
    const loadRun = (ledger as Partial<KernelStore>).loadRun;
    if ((options.compareState ?? true) && divergences.length < max && done === run.last_seq && loadRun && lastRecorded) {
      const recordedState = await loadRun.call(ledger, run_id);
      // A person's upgrade after the last route moved the recorded run on: compare with where it left it.
      const nowState = upgradeStates.get(lastRecorded.seq) ?? router.state(run_id);
      if (recordedState?.lifecycle !== undefined && nowState) {
        const fields = (['returns', 'at', 'lifecycle'] as const).filter((k) => JSON.stringify(recordedState[k] ?? null) !== JSON.stringify(nowState[k] ?? null));
        if (fields.length) {
          const d = replayedDecision(withCurrentRuleNames(JSON.parse(lastRecorded.json) as Decision));
          divergences.push({ seq: lastRecorded.seq, flow: lastRecorded.flow, step: lastRecorded.step, fields: fields.map((f) => `state.${f}`), recorded: d, now: d });
        }
      }
    }
  } finally {
    router.close();
  }
  options.onProgress?.(done, run.last_seq);
  return { run_id, routes: done, identical: divergences.length === 0, flows_hash_now: flows?.hash ?? lastFlowsHash ?? '', flows_hashes_recorded: divergences.length >= max ? await ledger.runFlowsHashes(run_id) : flowsHashes, divergences };
}

/**
 * A run replayed with the versions it was recorded with (`replayRun(ledger, run, undefined)`), or, for a run recorded
 * before navkernel kept versions (FLOW_VERSION_UNKNOWN), with `fallback`: what `serve`'s replay endpoint answers.
 */
export async function replayRecorded(ledger: RunReader, run_id: string, fallback: FlowSet, options: ReplayOptions = {}): Promise<ReplayReport> {
  try {
    return await replayRun(ledger, run_id, undefined, options);
  } catch (e) {
    if (!(e instanceof FlowVersionUnknownError)) throw e;
    return replayRun(ledger, run_id, fallback, options);
  }
}
