// Frozen histories (as Temporal replays recorded workflow histories): runs recorded by a navkernel version, with
// the flows they ran on, committed under tests/frozen/histories/. Every later version must replay them to the
// same decisions (tests/frozen/frozen-histories.test.ts). A change that alters one is either a bug or a deliberate
// change of routing: then re-record with `npm run build && npm run freeze` and say why in the commit.
//
// Format: JSONL. Line 1 is the header {format, version, kernel_version, scenario, flows_hash, navigator, flows}; every
// other line is one route {run_id, seq, ts, request, decision, llm_calls}, in the order they were routed.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Decision, Flow, LlmCallRecord, RouteRequest } from '../src/contracts/index.js';
import { DEMO_SCENARIO, HARSH_SCENARIO, simulate, type Scenario } from '../src/demo/index.js';
import { MemoryStore, createKernel, defineFlows, loadFlows } from '../src/kernel/index.js';
import { diffDecisions, recordedArbiter, type RecordedRoute } from '../src/runs/index.js';
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

/** Records a scenario of the demo runner on the sample flows, tier 3 on the demo's scripted model, with a fixed clock. */
export async function recordHistory(scenario: Scenario): Promise<string> {
  const flowSet = await loadFlows(path.join(packageRoot(), 'charters'));
  const store = new MemoryStore({ keepRecords: true });
  const model = createLanguageModel(`scripted:${path.join(packageRoot(), 'examples', 'demo-arbiter.json')}`);
  let tick = Date.UTC(2026, 0, 1);
  const kernel = createKernel({ flows: flowSet, store, arbiter: createLlmArbiter(model), clock: () => (tick += 1000) });
  try {
    await simulate(kernel, scenario, { runPrefix: `frozen-${scenario.name}` });
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
  const lines = store.records.map((r) => ({ run_id: r.run_id, seq: r.seq, ts: r.ts, request: r.request, decision: r.decision, llm_calls: r.llm_calls.map((c) => ({ ...c, latency_ms: 0 })) }));
  return [header, ...lines].map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** Parses a history file. */
export function readHistory(file: string): { header: HistoryHeader; routes: HistoryRoute[] } {
  const [first, ...rest] = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const header = JSON.parse(first!) as HistoryHeader;
  if (header.format !== 'navkernel-history' || header.version !== 1) throw new Error(`${file}: not a navkernel history (version 1)`);
  return { header, routes: rest.map((l) => JSON.parse(l) as HistoryRoute) };
}

/** One route whose replayed decision differs from the recorded one. */
export interface HistoryDivergence {
  run_id: string;
  seq: number;
  step: string;
  fields: string[];
  recorded: Decision;
  now: Decision | { error: string };
}

/**
 * Replays a history with today's kernel on the history's own flows and recorded tier-3 answers (never a model):
 * the decisions must come out the same. Returns every divergence.
 */
export async function replayHistory(history: { header: HistoryHeader; routes: HistoryRoute[] }): Promise<{ routes: number; flowsHashNow: string; divergences: HistoryDivergence[] }> {
  const flows = defineFlows(history.header.flows);
  let current: RecordedRoute = { seq: 0, decision: undefined as unknown as Decision, llm_calls: [] };
  let ts = '';
  const kernel = createKernel({
    flows,
    ...(history.header.navigator ? { arbiter: recordedArbiter(() => current) } : {}),
    clock: () => new Date(ts),
  });
  const divergences: HistoryDivergence[] = [];
  try {
    for (const r of history.routes) {
      current = { seq: r.seq, decision: r.decision, llm_calls: r.llm_calls };
      ts = r.ts;
      try {
        const now = await kernel.route(r.request);
        const fields = diffDecisions(r.decision, now);
        if (now.seq !== r.seq) fields.push('seq');
        if (fields.length) divergences.push({ run_id: r.run_id, seq: r.seq, step: `${r.request.flow}/${r.request.step_completed}`, fields, recorded: r.decision, now });
      } catch (e) {
        divergences.push({ run_id: r.run_id, seq: r.seq, step: `${r.request.flow}/${r.request.step_completed}`, fields: ['error'], recorded: r.decision, now: { error: e instanceof Error ? e.message : String(e) } });
      }
    }
  } finally {
    await kernel.close();
  }
  return { routes: history.routes.length, flowsHashNow: flows.hash, divergences };
}

/** The scenarios frozen, by file name. */
export const FROZEN: Record<string, Scenario> = { 'demo.jsonl': DEMO_SCENARIO, 'harsh.jsonl': HARSH_SCENARIO };

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, scenario] of Object.entries(FROZEN)) {
    const file = path.join(HISTORIES_DIR, name);
    writeFileSync(file, await recordHistory(scenario));
    console.log(`wrote ${file}`);
  }
}
