import type { Command } from 'commander';
import type { CliContext } from '../context.js';
// By module, not the barrels: a replay's wall time includes its start-up.
import { NavkernelError } from '../../contracts/errors.js';
import type { ReplayedDecision, ReplayReport } from '../../contracts/ledger.js';
import { replayAll } from '../../runs/replay-all.js';
import { replayRun } from '../../runs/replay.js';
import { addKernelOptions, loadCliFlows, type KernelCliOptions } from '../kernel-options.js';
import { addLedgerOption, openCliLedger, terminalProgress, type LedgerCliOptions } from '../ledger-option.js';
import { addLlmOptions, arbiterFromFlags, type LlmFlags } from '../llm-options.js';
import { UsageError, positiveInt } from '../conventions.js';
import { inLine } from '../terminal-text.js';

function show(d: ReplayedDecision | null): string {
  if (!d) return '(error)';
  const where = d.inject_flow ? `flow ${d.inject_flow} → ${d.next_step_id}` : d.detour_target ? `${d.detour_target}` : (d.next_step_id ?? '-');
  return `${d.decision} ${where} (tier ${d.tier} ${d.rule})`;
}

/** `navkernel runs replay RUN | --all [--flows DIR]`: exit 0 when every decision is reproduced, 1 when one diverged. */
export function registerReplayCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('replay')
    .description("Re-route a recorded run through a fresh kernel with the flow versions it was recorded with (kept in the ledger: no flows on disk needed), or with --flows DIR to ask what those flows would have done; recorded LLM answers; report each divergence, first one first")
    .argument('[run]', 'run id (or --all)')
    .option('--all', "replay every run of the ledger (the CI check: does a flow change alter any past decision?); --json prints one report per run, one per line")
    .option('--threads <n>', 'with --all: worker threads replaying runs side by side (default: the CPU count)', (v) => positiveInt('--threads', v))
    .option('--max <n>', 'stop after this many divergences', (v) => positiveInt('--max', v))
    .option('--json', 'print the report as JSON (schemas/replay-report.schema.json)')
    .option('--live', 'call the model given by --llm again instead of the recorded answers, and report where the answers differ');
  addLlmOptions(addLedgerOption(addKernelOptions(cmd, {}, ctx.io), {}, ctx.io), ctx.io).action(async (runArg: string | undefined, opts: LedgerCliOptions & KernelCliOptions & LlmFlags & { max?: number; json?: boolean; live?: boolean; all?: boolean; threads?: number }) => {
    if ((runArg === undefined) === !opts.all) throw new UsageError('replay takes a run id or --all (not both)');
    // An explicit --flows asks "what would these flows have done?"; without it each route replays with its recorded version.
    const flows = cmd.getOptionValueSource('flows') === 'cli' ? await loadCliFlows(opts, ctx) : undefined;
    // Recorded answers by default: a replay never calls a model unless asked to with --live.
    const live = opts.live ? await arbiterFromFlags(opts, ctx.io.env) : undefined;
    if (opts.live && !live) throw new NavkernelError('INVALID_OPTION', 'replay --live needs --llm SPEC: the model to ask again');
    const ledger = openCliLedger(opts);
    const progress = terminalProgress('replay');
    try {
      let diverged = 0;
      let routes = 0;
      let runs = 0;
      const print = (report: ReplayReport) => {
        if (opts.json) {
          ctx.json(report);
        } else {
          const changed = report.flows_hashes_recorded.some((h) => h !== report.flows_hash_now);
          const versions = report.flows_hashes_recorded.map((h) => h.slice(0, 12)).join(', ');
          ctx.print(
            flows
              ? `replayed ${report.routes} routes of run ${inLine(report.run_id)} with flows ${report.flows_hash_now.slice(0, 12)} from ${inLine(opts.flows)}${changed ? ` (recorded with ${versions})` : ' (same as recorded)'}\n`
              : `replayed ${report.routes} routes of run ${inLine(report.run_id)} with its recorded flow version(s) ${versions}, kept in the ledger\n`,
          );
          for (const d of report.divergences) {
            const reasons = `\n            ${inLine(d.recorded.reason)}` + (d.now ? `\n  now:      ${show(d.now)}\n            ${inLine(d.now.reason)}` : `\n  now:      ${show(d.now)}`);
            ctx.print(`DIVERGED seq ${d.seq} ${d.flow}/${d.step} [${d.fields.join(', ')}]\n  recorded: ${show(d.recorded)}${reasons}${d.error ? `\n  error:    ${inLine(d.error)}` : ''}\n`);
          }
          const first = report.divergences[0];
          if (first && report.routes > first.seq)
            ctx.print(
              `note: from seq ${first.seq} on, today's flows would have sent the run elsewhere (${show(first.now)}): the recorded requests after seq ${first.seq} would not have happened as recorded; they are replayed as recorded, so later divergences compare today's flows with a path the run would not have taken\n`,
            );
          ctx.print(report.identical ? 'identical: every decision reproduced\n' : `${report.divergences.length} divergence(s)\n`);
        }
        runs++;
        routes += report.routes;
        if (!report.identical) {
          diverged++;
          ctx.setExitCode(1);
        }
      };
      if (opts.all && !live) {
        // Runs are independent: worker threads replay them side by side; reports print in run order as they finish.
        await replayAll(ledger, flows, { open: opts.ledger, ...(flows ? { flowsPath: opts.flows } : {}), onReport: print, ...(opts.max ? { maxDivergences: opts.max } : {}), ...(opts.threads ? { threads: opts.threads } : {}) });
      } else {
        for (const run of opts.all ? await ledger.runIds() : [runArg!]) {
          const report = await replayRun(ledger, run, flows, { onProgress: progress.update, ...(opts.max ? { maxDivergences: opts.max } : {}), ...(live ? { arbiter: () => live } : {}) });
          progress.stop();
          print(report);
        }
      }
      if (opts.all && !opts.json) ctx.print(`${runs} run(s), ${routes} routes replayed: ${diverged === 0 ? 'every decision reproduced' : `${diverged} run(s) diverged`}\n`);
    } finally {
      progress.stop();
      await ledger.close();
    }
  });
}
