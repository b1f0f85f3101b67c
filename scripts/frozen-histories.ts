// Frozen histories (as Temporal replays recorded workflow histories): runs recorded by a navkernel version, with
// the flows they ran on, committed under tests/frozen/histories/. Every later version must replay them to the
// same decisions (tests/frozen/frozen-histories.test.ts). A change that alters one is either a bug or a deliberate
// change of routing: then re-record with `npm run build && npm run freeze` and say why in the commit.
//
// Format: JSONL. Line 1 is the header {format, version, kernel_version, scenario, flows_hash, navigator, flows}; every
// other line is one route {run_id, seq, ts, request, decision, llm_calls}, in the order they were routed, or (since
// navkernel 0.2, whose runs await a person after ESCALATE) a person's resolution {resolve: {escalation_id, decision,
// next}} between the ESCALATE and the run's next route.
//
// demo.jsonl and harsh.jsonl were frozen before the kernel held whole runs (docs/run-states.md): their runner routed
// on after ESCALATE without a person, and routed the next flow of its sequence in the same run after TERMINATE. Today's
// kernel refuses those routes (ESCALATION_OPEN, RUN_ENDED), on purpose. They stay as recorded; the test checks that
// they replay unchanged up to each run's first refused route, and that every later difference is such a refusal or
// follows one. demo-2.jsonl and harsh-2.jsonl are the same scenarios recorded by a runner that asks a person (each
// escalation resolved) and starts a run per flow: they must replay unchanged.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Decision, Flow, LlmCallRecord, RouteRequest } from '../src/contracts/index.js';
import { DEMO_SCENARIO, HARSH_SCENARIO, simulate, type Scenario } from '../src/demo/index.js';
import { MemoryStore, createKernel, defineFlows, loadFlows } from '../src/kernel/index.js';
import { diffDecisions, recordedArbiter, resolveEscalation, type RecordedRoute } from '../src/runs/index.js';
import { createLanguageModel, createLlmArbiter } from '../src/llm/index.js';
import { packageRoot } from '../src/package-root.js';
import { VERSION } from '../src/version.js';

export const HISTORIES_DIR = path.join(packageRoot(), 'tests', 'frozen', 'histories');

export interface HistoryHeader {
  format: 'navkernel-history';
  version: 1;
  kernel_version: string;
  scenario: string;
  flows_hash: string;
  /**
   * Whether tier 3 (the arbiter) was wired in when recording (its answers are in llm_calls and the decisions). The
   * key keeps the name tier 3 had when format version 1 was frozen.
   */
  navigator: boolean;
  flows: Flow[];
}

export interface HistoryRoute {
  run_id: string;
  seq: number;
  ts: string;
  request: RouteRequest;
  decision: Decision;
  llm_calls: LlmCallRecord[];
}

/** A person's resolution of an escalation, in order between the routes. */
export interface HistoryResolution {
  resolve: { escalation_id: string; decision: 'CONTINUE' | 'TERMINATE'; next?: string };
}

export type HistoryLine = HistoryRoute | HistoryResolution;
const isResolution = (l: HistoryLine): l is HistoryResolution => 'resolve' in l;

/** Records a scenario of the demo runner on the sample flows, tier 3 on the demo's scripted model, with a fixed clock. */
export async function recordHistory(scenario: Scenario): Promise<string> {
  const flowSet = await loadFlows(path.join(packageRoot(), 'charters'));
  const store = new MemoryStore({ keepRecords: true });
  const model = createLanguageModel(`scripted:${path.join(packageRoot(), 'examples', 'demo-arbiter.json')}`);
  let tick = Date.UTC(2026, 0, 1);
  const kernel = createKernel({ flows: flowSet, store, arbiter: createLlmArbiter(model), clock: () => (tick += 1000) });
  // Resolutions in order among the routes: after the route count they follow.
  const resolutions: { after: number; line: HistoryResolution }[] = [];
  try {
    await simulate(kernel, scenario, {
      runPrefix: `frozen-${scenario.name}`,
      resolve: async (r) => {
        resolutions.push({ after: store.records.length, line: { resolve: r } });
        await resolveEscalation(store, flowSet, { ...r, by: 'frozen-history', reason: 'the simulated person lets the run go on' }, () => new Date(tick));
      },
    });
  } finally {
    await kernel.close();
  }
  const header: HistoryHeader = {
    format: 'navkernel-history',
    version: 1,
    kernel_version: VERSION,
    scenario: scenario.name,
    flows_hash: flowSet.hash,
    navigator: true,
    flows: [...flowSet.flows.values()].map((f) => f.def),
  };
  // Latency is how long the machine took, not what was decided: zeroed so a re-record is byte-stable.
  const lines: HistoryLine[] = [];
  for (const [i, r] of store.records.entries()) {
    lines.push({ run_id: r.run_id, seq: r.seq, ts: r.ts, request: r.request, decision: r.decision, llm_calls: r.llm_calls.map((c) => ({ ...c, latency_ms: 0 })) });
    for (const res of resolutions) if (res.after === i + 1) lines.push(res.line);
  }
  return [header, ...lines].map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** Parses a history file. */
export function readHistory(file: string): { header: HistoryHeader; routes: HistoryRoute[]; lines: HistoryLine[] } {
  const [first, ...rest] = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const header = JSON.parse(first!) as HistoryHeader;
  if (header.format !== 'navkernel-history' || header.version !== 1) throw new Error(`${file}: not a navkernel history (version 1)`);
  const lines = rest.map((l) => JSON.parse(l) as HistoryLine);
  return { header, routes: lines.filter((l): l is HistoryRoute => !isResolution(l)), lines };
}

/** One route whose replayed decision differs from the recorded one. */
export interface HistoryDivergence {
  run_id: string;
  seq: number;
  step: string;
  fields: string[];
  recorded: Decision;
  now: Decision | { error: string; code?: string };
}

/**
 * Replays a history with today's kernel on the history's own flows and recorded tier-3 answers (never a model):
 * the decisions must come out the same. Returns every divergence.
 */
export async function replayHistory(history: { header: HistoryHeader; routes: HistoryRoute[]; lines?: HistoryLine[] }): Promise<{ routes: number; flowsHashNow: string; divergences: HistoryDivergence[] }> {
  const flows = defineFlows(history.header.flows);
  let current: RecordedRoute = { seq: 0, decision: undefined as unknown as Decision, llm_calls: [] };
  let ts = '';
  const store = new MemoryStore();
  const kernel = createKernel({
    flows,
    store,
    ...(history.header.navigator ? { arbiter: recordedArbiter(() => current) } : {}),
    clock: () => new Date(ts),
  });
  const divergences: HistoryDivergence[] = [];
  try {
    for (const r of history.lines ?? history.routes) {
      if (isResolution(r)) {
        await resolveEscalation(store, flows, { ...r.resolve, by: 'frozen-history', reason: 'the simulated person lets the run go on' });
        continue;
      }
      current = { seq: r.seq, decision: r.decision, llm_calls: r.llm_calls };
      ts = r.ts;
      try {
        const now = await kernel.route(r.request);
        const fields = diffDecisions(r.decision, now);
        if (now.seq !== r.seq) fields.push('seq');
        if (fields.length) divergences.push({ run_id: r.run_id, seq: r.seq, step: `${r.request.flow}/${r.request.step_completed}`, fields, recorded: r.decision, now });
      } catch (e) {
        const code = (e as { code?: string }).code;
        divergences.push({ run_id: r.run_id, seq: r.seq, step: `${r.request.flow}/${r.request.step_completed}`, fields: ['error'], recorded: r.decision, now: { error: e instanceof Error ? e.message : String(e), ...(code ? { code } : {}) } });
      }
    }
  } finally {
    await kernel.close();
  }
  return { routes: history.routes.length, flowsHashNow: flows.hash, divergences };
}

/**
 * The scenarios `npm run freeze` records, by file name. demo.jsonl and harsh.jsonl (frozen before the kernel held
 * whole runs) are kept as they were recorded and never re-recorded: see the note at the top.
 */
export const FROZEN: Record<string, Scenario> = { 'demo-2.jsonl': DEMO_SCENARIO, 'harsh-2.jsonl': HARSH_SCENARIO };

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, scenario] of Object.entries(FROZEN)) {
    const file = path.join(HISTORIES_DIR, name);
    writeFileSync(file, await recordHistory(scenario));
    console.log(`wrote ${file}`);
  }
}
