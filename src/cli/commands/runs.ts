import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { explorerCallsOf } from '../../ledger/index.js';
import { listRuns } from '../../runs/index.js';
import { addLedgerOption, openCliLedger, type LedgerCliOptions } from '../ledger-option.js';
import { inLine } from '../terminal-text.js';

/** `navkernel runs`: one line per run in the ledger. */
export function registerRunsCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('runs')
    .description('List the runs in the ledger: flow, steps, off-road decisions, LLM calls, cost, open escalations, status')
    .option('--json', 'one JSON object per line (schemas/run-summary.schema.json)');
  addLedgerOption(cmd, {}, ctx.io).action(async (opts: LedgerCliOptions & { json?: boolean }) => {
    const ledger = openCliLedger(opts);
    try {
      const runs = await listRuns(ledger);
      if (opts.json) {
        for (const r of runs) ctx.json(r);
        return;
      }
      // The explorer's model calls are in the same LLM-call table (SQLite ledgers, where explorer sessions live).
      const explored = explorerCallsOf(ledger) ?? [];
      if (runs.length === 0 && explored.length === 0) {
        ctx.print(`no runs in ${opts.ledger}\n`);
        return;
      }
      const tables: string[] = [];
      if (runs.length)
        tables.push(
          table(
            ['RUN', 'FLOW', 'STEPS', 'OFF-ROAD', 'LLM', 'COST $', 'OPEN ESC', 'NEEDS HUMAN', 'STATUS', 'LAST'],
            runs.map((r) => [r.run_id, r.flow, String(r.steps), String(r.offroad), String(r.llm_calls), r.cost_usd.toFixed(4), String(r.open_escalations), String(r.needs_human ?? 0), r.status, r.last_ts]),
            [2, 7],
          ),
        );
      if (explored.length)
        tables.push(
          table(
            ['EXPLORE SESSION', 'STEPS', 'LLM', 'COST $', 'TOKENS IN', 'TOKENS OUT', 'MODEL'],
            explored.map((e) => [`explore:${e.session_id}`, String(e.steps), String(e.calls), e.usd.toFixed(4), String(e.input_tokens), String(e.output_tokens), e.by_model.map((m) => `${m.provider}:${m.model}`).join(', ')]),
            [1, 5],
          ),
        );
      ctx.print(tables.join('\n'));
    } finally {
      await ledger.close();
    }
  });
}

/** A text table: columns padded, those from `right[0]` to `right[1]` right-aligned. */
function table(head: string[], rows: string[][], right: [number, number]): string {
  const all = [head, ...rows.map((row) => row.map(inLine))];
  const widths = head.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  return all.map((row) => row.map((c, i) => (i >= right[0] && i <= right[1] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd() + '\n').join('');
}
