import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import pc from 'picocolors';
import type { Decision } from '../../contracts/index.js';
import { DEMO_SCENARIO, HARSH_SCENARIO, simulate, type SimulatedStep, type SimulationSummary } from '../../demo/index.js';
import path from 'node:path';
import { packageRoot, sampleChartersDir } from '../../package-root.js';
import { addRoutingOptions, openRoutingKernel, openRoutingStore, type RoutingCliOptions } from '../kernel-options.js';
import { MemoryStore } from '../../kernel/index.js';
import { resolveEscalation } from '../../runs/index.js';
import { UsageError } from '../conventions.js';
import { runsFolderFor } from '../ledger-option.js';
import { DEFAULT_LEDGER_FILE } from '../../ledger/index.js';

const SCENARIOS = { demo: DEMO_SCENARIO, harsh: HARSH_SCENARIO } as const;

interface DemoOptions extends RoutingCliOptions {
  scenario: keyof typeof SCENARIOS;
  quiet?: boolean;
  json?: boolean;
  runPrefix?: string;
}

/** Where a decision sends the run, as the demo's table shows it. */
const targetOf = (d: Pick<Decision, 'inject_flow' | 'next_step_id'>): string => (d.inject_flow ? `flow ${d.inject_flow} → ${d.next_step_id}` : (d.next_step_id ?? ''));

/** Column widths of the demo's table, from the flows before any step is routed (its lines are streamed). */
interface DemoWidths {
  where: number;
  target: number;
}

function describe(d: Decision, targetWidth: number): string {
  const colour = d.decision === 'CONTINUE' ? pc.green : d.decision === 'ESCALATE' ? pc.red : d.decision === 'TERMINATE' ? pc.blue : pc.yellow;
  return `${colour(d.decision.padEnd(11))} ${targetOf(d).padEnd(targetWidth)} tier ${d.tier} ${pc.dim(d.rule)}`;
}

/** Prints one routed step, its columns as wide as the widest `run flow/step` and target the flows allow. */
function printStep(ctx: CliContext, { request, decision }: SimulatedStep, widths: DemoWidths): void {
  const where = `${request.run_id} ${request.flow}/${request.step_completed}`;
  ctx.write(`${String(decision.seq).padStart(4)} ${where.padEnd(widths.where)} ${request.status.padEnd(11)} ${describe(decision, widths.target)}\n`);
}

function printSummary(ctx: CliContext, s: SimulationSummary, arbiter: string): void {
  const pct = (n: number) => `${((100 * n) / s.routes).toFixed(1)}%`;
  const lines = [
    '',
    pc.bold(`Summary (${s.scenario} scenario): ${s.routes} decisions in ${s.elapsedMs.toFixed(0)} ms`),
    ...([1, 2, 3, 4, 5] as const).map((t) => `  tier ${t} ${['fast-path', 'deterministic', 'the arbiter', 'envelope', 'escalation'][t - 1]!.padEnd(16)} ${String(s.byTier[t]).padStart(5)}  ${pct(s.byTier[t])}`),
    `  off-road (anything but CONTINUE, bar a run's normal end) ${s.offRoad} (${pct(s.offRoad)}), escalations ${s.escalations}, tiers 1-2 ${pct(s.byTier[1] + s.byTier[2])}`,
    `  decisions: ${Object.entries(s.byDecision).sort().map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `  rules:     ${Object.entries(s.byRule).sort().map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `  tier 3, the arbiter: ${arbiter}, $${s.llmCostUsd.toFixed(4)}`,
  ];
  ctx.write(lines.join('\n') + '\n');
}

/** How the summary names tier 3's model: the demo's own is scripted (recorded answers, no call, no key). */
function arbiterWords(llm: string | undefined): string {
  if (!llm) return 'none (--no-llm)';
  if (llm.startsWith('scripted:')) return 'a scripted model (recorded answers, no model called), priced as if it were Claude Haiku';
  return llm;
}

/** `navkernel demo`: routes a simulated run of the sample SDLC flows and prints each decision and a summary. */
export function registerDemoCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('demo')
    .description('Route a simulated run of the sample SDLC flows (failures, microloops, lint detours, a rebase injection) and summarise by tier')
    .option('--scenario <name>', 'demo (default) or harsh (many failures)', 'demo')
    .option('-q, --quiet', 'print only the summary')
    .option('--json', 'print the summary as JSON')
    .option('--run-prefix <prefix>', 'run id prefix (default: demo-<time>, so each demo is a new set of runs)');
  addRoutingOptions(cmd, { flows: sampleChartersDir() }, ctx.io);
  // Tier 3 in the demo is a scripted model priced as Claude Haiku: no key, no network.
  cmd.setOptionValue('llm', `scripted:${path.join(packageRoot(), 'examples', 'demo-arbiter.json')}`);
  cmd.action(async (opts: DemoOptions) => {
    const scenario = SCENARIOS[opts.scenario];
    if (!scenario) throw new UsageError(`unknown scenario "${opts.scenario}" (expected ${Object.keys(SCENARIOS).join(' or ')})`);
    // The demo's person resolves each escalation (navkernel runs resolve would): the run goes on to the step's next, or ends.
    const store = openRoutingStore(opts) ?? new MemoryStore();
    const kernel = await openRoutingKernel(opts, { store }, undefined, ctx);
    const resolve = async (r: { escalation_id: string; decision: string; next?: string }) => {
      await resolveEscalation(store, kernel.flows, { ...r, by: 'demo', reason: 'the simulated person lets the run go on', via: 'cli' });
    };
    try {
      const quiet = opts.quiet || opts.json;
      const runPrefix = opts.runPrefix ?? `${scenario.name}-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}`;
      const flows = [...kernel.flows.flows.values()];
      const longestStep = Math.max(...flows.flatMap((f) => [...f.steps.keys()].map((s) => f.id.length + 1 + s.length)));
      const widths: DemoWidths = {
        where: `${runPrefix}-run-${scenario.runs}-f${scenario.sequence.length}`.length + 1 + longestStep,
        target: Math.max(...flows.flatMap((f) => [...f.steps.keys()].map((s) => s.length)), ...flows.map((f) => targetOf({ inject_flow: f.id, next_step_id: f.firstStep }).length)),
      };
      const summary = await simulate(kernel, scenario, quiet ? { runPrefix, resolve } : { runPrefix, resolve, onStep: (s) => printStep(ctx, s, widths) });
      const ledger = opts.ledger === false ? null : path.resolve(opts.ledger);
      const runsFolder = ledger ? runsFolderFor(ledger) : null;
      if (opts.json) {
        ctx.json({
          scenario: summary.scenario,
          routes: summary.routes,
          elapsed_ms: Math.round(summary.elapsedMs * 1000) / 1000,
          by_tier: summary.byTier,
          by_decision: summary.byDecision,
          by_rule: summary.byRule,
          off_road: summary.offRoad,
          escalations: summary.escalations,
          llm_cost_usd: Math.round(summary.llmCostUsd * 1e10) / 1e10,
          run_ids: summary.runIds,
          ledger,
          runs_folder: runsFolder,
        });
        return;
      }
      printSummary(ctx, summary, arbiterWords(opts.llm));
      const first = summary.runIds[0] ?? '';
      const runs = summary.runIds.length > 1 ? `${first} … ${summary.runIds.at(-1)}` : first;
      const where = ledger
        ? `recorded in ${path.relative(process.cwd(), ledger) || ledger}; every decision but CONTINUE also in ${path.join(path.relative(process.cwd(), runsFolder!) || '.', '<run>', '<flow>', 'routing', 'decisions.jsonl')}`
        : 'nothing recorded (--no-ledger)';
      // A run ends at its flow's terminal step: each work item goes through the sequence as one run per flow.
      const perFlow = scenario.sequence.length > 1 ? ` (${scenario.runs} work items × ${scenario.sequence.length} flows, ${scenario.sequence.join(' → ')}: a run ends at its flow's terminal step, so each flow is a run of its own, -f2 … -f${scenario.sequence.length} after the first)` : '';
      ctx.write(`\n${summary.runIds.length} runs${perFlow}: ${runs}, ${where}\n`);
      // npx: in a clone navkernel is not on PATH; npx finds the package's own bin there and in a project that installed it.
      if (ledger) ctx.write(`next: npx navkernel runs audit ${first}${opts.ledger === DEFAULT_LEDGER_FILE ? '' : ` --ledger ${opts.ledger}`}\n`);
    } finally {
      await kernel.close();
    }
  });
}
