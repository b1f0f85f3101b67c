import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { addFormerFlag, sharedOption } from '../shared-options.js';
import { renderRunReport, serviceLedger } from '../../service/index.js';
import { addKernelOptions, loadCliFlows, type KernelCliOptions } from '../kernel-options.js';
import { writeOutputFile } from '../conventions.js';
import { addLedgerOption, openCliLedger, type LedgerCliOptions } from '../ledger-option.js';

/** `navkernel report RUN -o run.html`: the UI's run page as one self-contained HTML file. */
export function registerReportCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('report')
    .description("Write a run's page (flows with the path taken, timeline of decisions, escalations) as one self-contained HTML file")
    .argument('<run>', 'run id')
    .addOption(sharedOption.out('HTML file to write').makeOptionMandatory());
  addFormerFlag(cmd, '--output <file>', 'out');
  addLedgerOption(addKernelOptions(cmd, {}, ctx.io), {}, ctx.io).action(async (run: string, opts: LedgerCliOptions & KernelCliOptions & { out: string }) => {
    const flows = await loadCliFlows(opts, ctx);
    const ledger = serviceLedger(openCliLedger(opts));
    try {
      const html = await renderRunReport(ledger, flows, run);
      writeOutputFile(opts.out, html, '--out');
      ctx.io.stderr.write(`wrote ${opts.out} (${Math.round(html.length / 1024)} KB)\n`);
    } finally {
      await ledger.close();
    }
  });
}
