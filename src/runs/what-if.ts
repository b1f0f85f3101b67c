// What a candidate flow set would change over the whole ledger (`navkernel flows what-if`, docs/changing-flows.md):
// every recorded run (or a filter) replayed against the candidate with the recorded LLM answers, and the decisions
// that come out differently grouped by flow, step and rule, from → to, with counts and example runs.
import type { Divergence, ReplayedDecision } from '../contracts/ledger.js';
import type { RunReader } from '../contracts/ports.js';
import type { FlowSet } from '../kernel/index.js';
import { replayAll } from './replay-all.js';

/** How many example runs a change lists. */
const EXAMPLES = 3;

/** A decision as the what-if groups it. */
export interface DecisionShape {
  decision: string;
  next_step_id: string | null;
  tier: number;
  rule: string;
}

export interface WhatIfChange {
  flow: string;
  step: string;
  from: DecisionShape;
  /** null: the candidate flows refuse the recorded request (its flow or step is not in them). */
  to: DecisionShape | null;
  /** Recorded decisions that change so. */
  count: number;
  /** Runs with at least one of them. */
  runs: number;
  /** Up to 3 of those runs, with the first seq that changes so. */
  examples: { run_id: string; seq: number }[];
  /** The candidate's error, for `to: null`. */
  error?: string;
}

export interface WhatIfReport {
  flows_hash: string;
  runs: number;
  /** Recorded decisions replayed. */
  decisions: number;
  /** Decisions the candidate decides differently. */
  changed_decisions: number;
  /** Runs with at least one changed decision. */
  changed_runs: number;
  /** changed_decisions / decisions (0 for an empty ledger). */
  changed_share: number;
  /** Most frequent first. */
  changes: WhatIfChange[];
}

export interface WhatIfOptions {
  /** Only runs whose id matches (`*` matches any characters); default every run. */
  run?: string;
  /** Where worker threads open the ledger themselves (see replayAll). */
  open?: string;
  flowsPath?: string;
  threads?: number;
  onProgress?: (runsDone: number, runs: number) => void;
}

const shape = (d: ReplayedDecision): DecisionShape => ({ decision: d.decision, next_step_id: d.next_step_id, tier: d.tier, rule: d.rule });

/** A `*` pattern as an anchored regular expression (every other character literal). */
export function runPattern(filter: string): RegExp {
  return new RegExp(`^${filter.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'su');
}

/** Replays the runs against `candidate` and groups what changes. */
export async function whatIf(ledger: RunReader, candidate: FlowSet, options: WhatIfOptions = {}): Promise<WhatIfReport> {
  let runs = await ledger.runIds();
  if (options.run !== undefined) {
    const re = runPattern(options.run);
    runs = runs.filter((r) => re.test(r));
  }
  const groups = new Map<string, WhatIfChange>();
  const report: WhatIfReport = { flows_hash: candidate.hash, runs: 0, decisions: 0, changed_decisions: 0, changed_runs: 0, changed_share: 0, changes: [] };
  const add = (run_id: string, d: Divergence) => {
    const from = shape(d.recorded);
    const to = d.now ? shape(d.now) : null;
    const key = JSON.stringify([d.flow, d.step, from, to]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { flow: d.flow, step: d.step, from, to, count: 0, runs: 0, examples: [], ...(d.error !== undefined ? { error: d.error } : {}) }));
    g.count++;
    if (g.examples.at(-1)?.run_id !== run_id && !g.examples.some((e) => e.run_id === run_id)) {
      g.runs++;
      if (g.examples.length < EXAMPLES) g.examples.push({ run_id, seq: d.seq });
    }
  };
  await replayAll(ledger, candidate, {
    runs,
    missingFlowDiverges: true,
    compareState: false,
    ...(options.open !== undefined ? { open: options.open } : {}),
    ...(options.flowsPath !== undefined ? { flowsPath: options.flowsPath } : {}),
    ...(options.threads !== undefined ? { threads: options.threads } : {}),
    onReport: (r) => {
      report.runs++;
      report.decisions += r.routes;
      // A state divergence at the end (state.*) is no decision of its own: only decision fields count.
      const changed = r.divergences.filter((d) => d.fields.some((f) => !f.startsWith('state.')));
      report.changed_decisions += changed.length;
      if (changed.length) report.changed_runs++;
      for (const d of changed) add(r.run_id, d);
      options.onProgress?.(report.runs, runs.length);
    },
  });
  report.changed_share = report.decisions === 0 ? 0 : report.changed_decisions / report.decisions;
  report.changes = [...groups.values()].sort((a, b) => b.count - a.count || a.flow.localeCompare(b.flow) || a.step.localeCompare(b.step));
  return report;
}
