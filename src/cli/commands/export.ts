import path from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { decisionsJsonlPath, exportJsonl } from '../../ledger/index.js';
import { UsageError, writeOutputFile } from '../conventions.js';
import { addLedgerOption, openCliLedger, type LedgerCliOptions } from '../ledger-option.js';

/**
 * `navkernel ledger export RUN --jsonl [--flow FLOW] [--out DIR]`: a run's seed-shaped decisions.jsonl from either store.
 * Without --out, the lines go to stdout (every flow's, in seq order; --flow for one file's exact bytes); with it,
 * each flow's file is written as DIR/<run>/<flow>/routing/decisions.jsonl.
 */
export function registerExportCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('export')
    .description("Print or write a run's decisions.jsonl (seed shape), byte for byte what the SQLite ledger writes, from either store")
    .argument('<run>', 'the run')
    .option('--jsonl', 'the seed-shaped off-road decisions (the one format export writes)')
    .option('--flow <flow>', 'only this flow (exactly the bytes of its decisions.jsonl)')
    .option('--out <dir>', 'write DIR/<run>/<flow>/routing/decisions.jsonl instead of printing');
  addLedgerOption(cmd, {}, ctx.io).action(async (run: string, opts: LedgerCliOptions & { jsonl?: boolean; flow?: string; out?: string }) => {
    if (!opts.jsonl) throw new UsageError('navkernel ledger export needs --jsonl (the one format it writes)');
    const ledger = openCliLedger(opts);
    try {
      const byFlow = await exportJsonl(ledger, run);
      if (opts.flow !== undefined && !byFlow.has(opts.flow)) {
        // A flow of the run without off-road decisions exports as an empty file; a flow the run never routed in is an error.
        const runFlows = await ledger.runFlows(run);
        if (!runFlows.includes(opts.flow)) throw new UsageError(`run ${run} has no flow ${JSON.stringify(opts.flow)} (its flows: ${runFlows.join(', ')})`, 'UNKNOWN_FLOW');
        byFlow.set(opts.flow, []);
      }
      const flows = opts.flow !== undefined ? [opts.flow] : [...byFlow.keys()].sort();
      if (opts.out !== undefined) {
        for (const flow of flows) {
          const file = decisionsJsonlPath(path.resolve(opts.out), run, flow);
          writeOutputFile(file, byFlow.get(flow)!.join(''), '--out', { mkdir: true });
          ctx.io.stderr.write(`wrote ${file} (${byFlow.get(flow)!.length} lines)\n`);
        }
      } else {
        const lines = flows.flatMap((f) => byFlow.get(f)!);
        // One flow: the file's order. Several: all lines by seq (each line carries its seq).
        if (flows.length > 1) lines.sort((a, b) => seqOf(a) - seqOf(b));
        ctx.write(lines.join(''));
      }
    } finally {
      await ledger.close();
    }
  });
}

function seqOf(line: string): number {
  return (JSON.parse(line) as { seq: number }).seq;
}
