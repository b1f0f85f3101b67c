import type { Command } from 'commander';
import { listRuns } from '../../ledger/index.js';
import { addLedgerOption, openCliLedger, type LedgerCliOptions } from '../ledger-option.js';

/** `navkernel runs`: one line per run in the ledger. */
export function registerRunsCommand(program: Command): void {
  const cmd = program
    .command('runs')
    .description('List the runs in the ledger: flow, steps, off-road decisions, LLM calls, cost, open escalations, status')
    .option('--json', 'one JSON object per line (schemas/run-summary.schema.json)');
  addLedgerOption(cmd).action(async (opts: LedgerCliOptions & { json?: boolean }) => {
    const ledger = openCliLedger(opts);
    try {
      const runs = await listRuns(ledger);
      if (opts.json) {
        for (const r of runs) process.stdout.write(JSON.stringify(r) + '\n');
        return;
      }
      if (runs.length === 0) {
        process.stdout.write(`no runs in ${opts.ledger}\n`);
        return;
      }
      const rows = [
        ['RUN', 'FLOW', 'STEPS', 'OFF-ROAD', 'LLM', 'COST $', 'OPEN ESC', 'STATUS', 'LAST'],
        ...runs.map((r) => [r.run_id, r.flow, String(r.steps), String(r.offroad), String(r.llm_calls), r.cost_usd.toFixed(4), String(r.open_escalations), r.status, r.last_ts]),
      ];
      const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
      for (const row of rows) process.stdout.write(row.map((c, i) => (i >= 2 && i <= 6 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd() + '\n');
    } finally {
      await ledger.close();
    }
  });
}
