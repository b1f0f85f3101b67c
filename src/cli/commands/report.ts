import type { Command } from 'commander';
import type { CliContext } from '../context.js';
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
    .requiredOption('-o, --output <file>', 'HTML file to write');
  addLedgerOption(addKernelOptions(cmd)).action(async (run: string, opts: LedgerCliOptions & KernelCliOptions & { output: string }) => {
    const flows = await loadCliFlows(opts);
    const ledger = serviceLedger(openCliLedger(opts));
    try {
      const html = await renderRunReport(ledger, flows, run);
      writeOutputFile(opts.output, html, '--output');
      ctx.io.stderr.write(`wrote ${opts.output} (${Math.round(html.length / 1024)} KB)\n`);
    } finally {
      await ledger.close();
    }
  });
}
