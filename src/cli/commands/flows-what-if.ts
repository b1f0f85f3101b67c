// `navkernel flows what-if --flows CANDIDATE --ledger PATH [--run FILTER] [--json] [--max-changed-share X]`
// (docs/changing-flows.md): which recorded decisions a candidate flow set would change; exit 1 over the share.
import type { Command } from 'commander';
import { NavkernelError } from '../../contracts/errors.js';
import type { Ledger } from '../../contracts/ports.js';
import { loadFlows } from '../../kernel/index.js';
import { whatIf, type DecisionShape, type WhatIfReport } from '../../runs/what-if.js';
import { addLedgerOption, openCliLedger, terminalProgress, type LedgerCliOptions } from '../ledger-option.js';
import { EXIT, positiveInt } from '../conventions.js';
import { inLine, jsonLine } from '../terminal-text.js';
import type { CliContext } from '../context.js';

export interface FlowsWhatIfOptions {
  flows: string;
  ledger: string;
  run?: string;
  json?: boolean;
  /** Exit 1 when changed_decisions / decisions is above this (0 to 1). */
  maxChangedShare?: number;
  threads?: number;
}

export interface FlowsWhatIfIo {
  out: (text: string) => void;
  openLedger: (location: string) => Ledger;
  progress?: (done: number, total: number) => void;
}

/** The what-if report, printed; `over` says the share was above the limit. */
export async function flowsWhatIf(opts: FlowsWhatIfOptions, io: FlowsWhatIfIo): Promise<{ report: WhatIfReport; over: boolean }> {
  const candidate = await loadFlows(opts.flows);
  const ledger = io.openLedger(opts.ledger);
  let report: WhatIfReport;
  try {
    report = await whatIf(ledger, candidate, {
      open: opts.ledger,
      flowsPath: opts.flows,
      ...(opts.run !== undefined ? { run: opts.run } : {}),
      ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
      ...(io.progress ? { onProgress: io.progress } : {}),
    });
  } finally {
    await ledger.close();
  }
  const over = opts.maxChangedShare !== undefined && report.changed_share > opts.maxChangedShare;
  if (opts.json) io.out(jsonLine({ ...report, ...(opts.maxChangedShare !== undefined ? { max_changed_share: opts.maxChangedShare, over } : {}) }));
  else io.out(whatIfText(report, opts.maxChangedShare, over));
  return { report, over };
}

const show = (d: DecisionShape | null): string => (d ? `${d.decision} ${d.next_step_id ?? '-'} (tier ${d.tier} ${d.rule})` : 'refused');
const pct = (x: number): string => `${(x * 100).toFixed(x > 0 && x < 0.001 ? 3 : 1)}%`;

function whatIfText(r: WhatIfReport, max: number | undefined, over: boolean): string {
  const lines = [
    `what-if ${r.flows_hash.slice(0, 12)}: ${r.runs} run(s), ${r.decisions} recorded decision(s); ${r.changed_decisions} would change (${pct(r.changed_share)}) in ${r.changed_runs} run(s)`,
  ];
  if (r.changes.length) {
    const rows = r.changes.map((c) => [String(c.count), String(c.runs), `${c.flow}/${c.step}`, show(c.from), show(c.to), c.examples.map((e) => `${e.run_id}@${e.seq}`).join(' ')]);
    const head = ['count', 'runs', 'flow/step', 'recorded', 'candidate', 'example runs (run@seq)'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const fmt = (row: string[]) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
    lines.push(fmt(head), ...rows.map((row) => inLine(fmt(row))));
  }
  if (max !== undefined) lines.push(over ? `over the limit: ${pct(r.changed_share)} of recorded decisions change, more than --max-changed-share ${max}` : `within the limit (--max-changed-share ${max})`);
  return lines.join('\n') + '\n';
}

function share(v: string): number {
  const x = Number(v);
  if (!Number.isFinite(x) || x < 0 || x > 1) throw new NavkernelError('INVALID_OPTION', `--max-changed-share takes a number from 0 to 1 (0.05 = 5%), got ${JSON.stringify(v)}`);
  return x;
}

/** Registers `navkernel flows what-if`. */
export function registerFlowsWhatIfCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('what-if')
    .description('Replay every recorded run (or --run FILTER) against candidate flows with the recorded LLM answers; list the decisions that would change by flow, step and rule, with counts and example runs; exit 1 over --max-changed-share')
    .requiredOption('--flows <dir>', 'the candidate flows (a folder or file)')
    .option('--run <filter>', 'only runs whose id matches (* matches any characters)')
    .option('--max-changed-share <x>', 'exit 1 when more than this share (0 to 1) of recorded decisions would change: the CI gate', share)
    .option('--threads <n>', 'worker threads replaying runs side by side (default: the CPU count)', (v) => positiveInt('--threads', v))
    .option('--json', 'print the report as one JSON object');
  addLedgerOption(cmd, {}, ctx.io).action(async (opts: LedgerCliOptions & { flows: string; run?: string; maxChangedShare?: number; threads?: number; json?: boolean }) => {
    const progress = terminalProgress('what-if', 200);
    try {
      const { over } = await flowsWhatIf(
        { flows: opts.flows, ledger: opts.ledger, ...(opts.run !== undefined ? { run: opts.run } : {}), ...(opts.json ? { json: true } : {}), ...(opts.maxChangedShare !== undefined ? { maxChangedShare: opts.maxChangedShare } : {}), ...(opts.threads !== undefined ? { threads: opts.threads } : {}) },
        { out: (t) => (progress.stop(), opts.json ? ctx.write(t) : ctx.print(t)), openLedger: (location) => openCliLedger({ ...opts, ledger: location }), progress: progress.update },
      );
      if (over) ctx.setExitCode(EXIT.FINDING);
    } finally {
      progress.stop();
    }
  });
}
