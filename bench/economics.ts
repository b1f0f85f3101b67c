// Routing economics: how many decisions each tier makes on the demo's simulated runs, and what tier 3 costs
// per 1,000 routes against an "LLM decides every step" baseline, with the scripted model priced as real models.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ArbiterAnswer, ArbiterPort, RouteRequest } from '../src/contracts/index.js';
import { DEMO_SCENARIO, HARSH_SCENARIO, simulate, type Scenario, type SimulationSummary } from '../src/demo/index.js';
import { createKernel, loadFlows, type FlowSet, type Kernel } from '../src/kernel/index.js';
import { DEFAULT_MODELS, createLlmArbiter, createScriptedModel, type ScriptedScriptInput } from '../src/llm/index.js';
import { packageRoot } from '../src/package-root.js';
import { table, type BenchSection } from './stats.js';

/** Counts print as integers. */
const int = (n: number): string => n.toLocaleString('en-US');

/** Per-run budget for both sides: high enough that no call is skipped, so the counts compare whole runs. */
const BUDGET_USD = 1_000;

interface Spend {
  consults: number;
  calls: number;
  usd: number;
}

/** Wraps a tier-3 port to count consultations, model calls (budget refusals excluded) and USD. */
function counting(port: ArbiterPort, spend: Spend): ArbiterPort {
  return async (input) => {
    const a: ArbiterAnswer = await port(input);
    spend.consults++;
    spend.calls += a.calls.filter((c) => c.outcome !== 'budget_exceeded').length;
    spend.usd += a.cost_usd;
    return a;
  };
}

/** The demo's tier-3 script (examples/demo-arbiter.json), priced as `model`. */
function demoScript(model: string): ScriptedScriptInput {
  const doc = JSON.parse(readFileSync(path.join(packageRoot(), 'examples', 'demo-arbiter.json'), 'utf8')) as Exclude<ScriptedScriptInput, unknown[]>;
  return { ...doc, model };
}

/**
 * The baseline: before each route, the same arbiter (same prompt builder, model and pricing) is asked
 * about that step with the legal moves the kernel would offer. Its answers are counted and priced, not
 * followed, so both sides see exactly the same runs.
 */
function withBaseline(kernel: Kernel, flows: FlowSet, port: ArbiterPort): Kernel {
  const spentByRun = new Map<string, number>();
  const ask = async (req: RouteRequest) => {
    const flow = flows.get(req.flow)!;
    const spent = spentByRun.get(req.run_id) ?? 0;
    const a = await port({
      run_id: req.run_id,
      seq: ((await kernel.runState(req.run_id))?.seq ?? 0) + 1,
      flow: req.flow,
      step: req.step_completed,
      request: req,
      charter: flow.charter,
      iteration: { current: req.iteration?.current ?? 1, max: req.iteration?.max ?? null },
      candidates: await kernel.candidates(req),
      inject_nodes: { allowed: flow.def.inject_nodes.allowed, max_nodes: flow.def.inject_nodes.max_nodes, roster: [...flow.roster] },
      run_spent_usd: spent,
      signal: new AbortController().signal,
    });
    spentByRun.set(req.run_id, spent + a.cost_usd);
  };
  return {
    get flows() {
      return kernel.flows;
    },
    setFlows: (f) => kernel.setFlows(f),
    get liveRuns() {
      return kernel.liveRuns;
    },
    runState: (id) => kernel.runState(id),
    candidates: (r) => kernel.candidates(r),
    close: () => kernel.close(),
    route: async (r) => {
      await ask(r as RouteRequest);
      return kernel.route(r);
    },
  };
}

interface Row {
  scenario: string;
  model: string;
  summary: SimulationSummary;
  kernel: Spend;
  baseline: Spend;
}

async function runScenario(flows: FlowSet, scenario: Scenario, model: string): Promise<Row> {
  const kernelSpend: Spend = { consults: 0, calls: 0, usd: 0 };
  const baseSpend: Spend = { consults: 0, calls: 0, usd: 0 };
  const script = demoScript(model);
  const arbiter = counting(createLlmArbiter(createScriptedModel(script), { budgetUsd: BUDGET_USD }), kernelSpend);
  const baseline = counting(createLlmArbiter(createScriptedModel(script), { budgetUsd: BUDGET_USD }), baseSpend);
  const kernel = createKernel({ flows, arbiter, clock: () => 0 });
  const summary = await simulate(withBaseline(kernel, flows, baseline), scenario, { runPrefix: `${scenario.name}-${model}` });
  await kernel.close();
  return { scenario: scenario.name, model, summary, kernel: kernelSpend, baseline: baseSpend };
}

/** The economics section. */
export async function benchEconomics(opts: { quick: boolean }): Promise<BenchSection> {
  const flows = await loadFlows(path.join(packageRoot(), 'charters'));
  const models = [DEFAULT_MODELS.anthropic, DEFAULT_MODELS.gemini];
  // The quick run routes fewer work items; the full run the scenarios as the demo defines them.
  const scenarios = [DEMO_SCENARIO, HARSH_SCENARIO].map((s) => (opts.quick ? { ...s, runs: 1 } : s));
  const rows: Row[] = [];
  for (const s of scenarios) for (const m of models) rows.push(await runScenario(flows, s, m));

  const figures: Record<string, number> = {};
  const tierRows: (string | number)[][] = [];
  const costRows: (string | number)[][] = [];
  const pct = (n: number, of: number) => (100 * n) / of;
  for (const r of rows) {
    const s = r.summary;
    const key = `${r.scenario}_${r.model.replace(/[^a-z0-9]+/gi, '_')}`;
    const per1k = (n: number) => (1000 * n) / s.routes;
    if (r.model === models[0]) {
      tierRows.push([r.scenario, int(s.routes), ...([1, 2, 3, 4, 5] as const).map((t) => pct(s.byTier[t], s.routes)), pct(s.byTier[1] + s.byTier[2], s.routes), int(s.offRoad), int(s.escalations)]);
      figures[`${r.scenario}_routes`] = s.routes;
      for (const t of [1, 2, 3, 4, 5] as const) figures[`${r.scenario}_tier${t}_pct`] = pct(s.byTier[t], s.routes);
      figures[`${r.scenario}_tiers12_pct`] = pct(s.byTier[1] + s.byTier[2], s.routes);
    }
    costRows.push([r.scenario, r.model, per1k(r.kernel.calls), per1k(r.kernel.usd), per1k(r.baseline.calls), per1k(r.baseline.usd), r.kernel.usd > 0 ? r.baseline.usd / r.kernel.usd : NaN]);
    Object.assign(figures, {
      [`${key}_navkernel_calls_per_1k`]: per1k(r.kernel.calls),
      [`${key}_navkernel_usd_per_1k`]: per1k(r.kernel.usd),
      [`${key}_baseline_calls_per_1k`]: per1k(r.baseline.calls),
      [`${key}_baseline_usd_per_1k`]: per1k(r.baseline.usd),
    });
  }
  const body = [
    `How to read this: the demo's seeded simulated runner (\`navkernel demo\`) routes ${scenarios.map((s) => `the ${s.name} scenario (${s.runs} work items through ${s.sequence.length} flows)`).join(' and ')} through the sample charters, ` +
      `with tier 3 on the demo's scripted model (examples/demo-arbiter.json) priced as ${models.join(' and ')}; tokens are counted with js-tiktoken over the real prompts, so USD is what those calls would cost at list prices. ` +
      `Baseline "LLM decides every step": the same arbiter is also asked before every route of the same runs (same prompt, legal moves, model and price); its answers are counted, not followed. ` +
      `A call is one model request (an invalid answer asked again counts twice). Per-run budget $${BUDGET_USD} on both sides, so no call is skipped.`,
    '',
    'Share of decisions per tier (%):',
    '',
    table(['scenario', 'routes', 'tier 1', 'tier 2', 'tier 3 (LLM)', 'tier 4', 'tier 5', 'tiers 1-2', 'off-road (count)', 'escalations (count)'], tierRows),
    '',
    'Tier-3 cost per 1,000 routes:',
    '',
    table(['scenario', 'priced as', 'navkernel LLM calls', 'navkernel USD', 'baseline LLM calls', 'baseline USD', 'baseline ÷ navkernel (USD)'], costRows),
    '',
    'Goal (issue 4): at least 90% of decisions at tiers 1-2 on the demo run.',
  ].join('\n');
  return { title: 'Routing economics: tiers and LLM cost per 1,000 routes', body, figures };
}
