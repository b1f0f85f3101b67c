import type { Command } from 'commander';
import { verifyLedger } from '../../ledger/index.js';
import { addLedgerOption, openCliLedger, terminalProgress, type LedgerCliOptions } from '../ledger-option.js';

/** `navkernel verify [RUN]`: exit 0 when the chain and the decisions.jsonl files agree with the database, 1 otherwise. */
export function registerVerifyCommand(program: Command): void {
  const cmd = program
    .command('verify')
    .description("Re-compute each run's hash chain and compare decisions.jsonl with the database; exits 1 naming the first bad row")
    .argument('[run]', 'only this run')
    .option('--repair', 'rebuild decisions.jsonl files from the database before checking: append missing lines, cut a torn last line (the default)')
    .option('--no-repair', 'only check: do not touch decisions.jsonl files')
    .option('--json', 'print the report as JSON (schemas/verify-report.schema.json)');
  addLedgerOption(cmd).action(async (run: string | undefined, opts: LedgerCliOptions & { repair?: boolean; json?: boolean }) => {
    const ledger = openCliLedger(opts);
    const progress = terminalProgress('verify');
    try {
      const report = await verifyLedger(ledger, { ...(run !== undefined ? { run } : {}), repair: opts.repair ?? true, onProgress: progress.update });
      progress.stop();
      if (opts.json) {
        process.stdout.write(JSON.stringify(report) + '\n');
      } else {
        for (const r of report.repairs) {
          process.stderr.write(`repaired ${r.file}: ${r.appended} missing line(s) appended${r.torn_line_removed ? ', torn last line removed' : ''}\n`);
        }
        for (const i of report.issues) {
          process.stdout.write(`BAD run ${i.run_id}${i.seq !== null ? ` seq ${i.seq}` : ''}: ${i.kind}: ${i.message}${i.file ? ` (${i.file})` : ''}\n`);
        }
        process.stdout.write(
          report.ok
            ? `ok: ${report.runs} run(s), ${report.routes} routes, ${report.jsonl_files} decisions.jsonl file(s) verified\n`
            : `FAILED: ${report.issues.length} problem(s) in ${report.runs} run(s), ${report.routes} routes\n`,
        );
      }
      if (!report.ok) process.exitCode = 1;
    } finally {
      progress.stop();
      await ledger.close();
    }
  });
}
