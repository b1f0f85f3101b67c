// `navkernel flows diff OLD NEW [--ledger PATH] [--json]` (docs/changing-flows.md): what changed between two flow
// versions (folders, or `ledger:HASH`), and with a ledger, what the change does to each run in flight on OLD.
import type { Command } from 'commander';
import type { Ledger } from '../../contracts/ports.js';
import { diffFlows, type FlowDiff } from '../../runs/flow-diff.js';
import { impactOnRuns, type ImpactReport } from '../../runs/flow-impact.js';
import { flowsByRef } from '../../runs/flow-refs.js';
import { addLedgerOption, openCliLedger, type LedgerCliOptions } from '../ledger-option.js';
import { inLine, jsonLine } from '../terminal-text.js';
import type { CliContext } from '../context.js';

export interface FlowsDiffOptions {
  old: string;
  new: string;
  /** A ledger: list the runs in flight the change touches (also where `ledger:HASH` versions are read). */
  ledger?: string;
  json?: boolean;
}

export interface FlowsDiffIo {
  out: (text: string) => void;
  openLedger: (location: string) => Ledger;
}

/** The diff (and impact, with a ledger) as a report; prints a table or one JSON object. Exit code 0. */
export async function flowsDiff(opts: FlowsDiffOptions, io: FlowsDiffIo): Promise<{ diff: FlowDiff; impact?: ImpactReport }> {
  const ledger = opts.ledger !== undefined ? io.openLedger(opts.ledger) : undefined;
  try {
    const a = await flowsByRef(opts.old, ledger);
    const b = await flowsByRef(opts.new, ledger);
    const diff = diffFlows(a, b);
    const impact = ledger ? await impactOnRuns(ledger, a, b, diff) : undefined;
    const result = impact ? { diff, impact } : { diff };
    if (opts.json) io.out(jsonLine(result));
    else io.out(diffText(diff, impact));
    return result;
  } finally {
    await ledger?.close();
  }
}

function diffText(d: FlowDiff, impact: ImpactReport | undefined): string {
  const lines = [`flows ${d.from.slice(0, 12)} → ${d.to.slice(0, 12)}${d.from === d.to ? ' (the same version)' : ''}`];
  for (const f of d.flows_added) lines.push(`  + flow ${f}`);
  for (const f of d.flows_removed) lines.push(`  - flow ${f}`);
  for (const s of d.steps) lines.push(s.change === 'renamed' ? `  ~ step ${s.flow}/${s.step} renamed ${s.to}` : `  ${s.change === 'added' ? '+' : '-'} step ${s.flow}/${s.step}`);
  for (const e of d.edges) lines.push(`  ~ edges of ${e.flow}/${e.step}:${e.added.map((x) => ` +${x}`).join('')}${e.removed.map((x) => ` -${x}`).join('')}`);
  for (const b of d.bounds) lines.push(`  ~ ${b.bound} of ${b.step === null ? `flow ${b.flow}` : `${b.flow}/${b.step}`}: ${b.from ?? 'none'} → ${b.to ?? 'none'}`);
  const other = d.flows_changed.filter((f) => !d.steps.some((s) => s.flow === f) && !d.edges.some((e) => e.flow === f) && !d.bounds.some((b) => b.flow === f));
  for (const f of other) lines.push(`  ~ flow ${f} changed (charter, agents, statuses or signatures: no step, edge or bound)`);
  if (lines.length === 1) lines.push('  no change');
  if (impact) {
    lines.push(`runs in flight on ${d.from.slice(0, 12)}: ${impact.runs_in_flight}, touched by the change: ${impact.touched}`);
    for (const r of impact.runs) {
      if (r.effects.length === 0) continue;
      lines.push(`  ${inLine(r.run_id)} at ${r.at ?? '-'} (${r.lifecycle})`);
      for (const e of r.effects) lines.push(`    ${e.kind}: ${inLine(e.message)}`);
    }
    const free = impact.runs.filter((r) => r.effects.length === 0).length;
    if (free) lines.push(`  ${free} run(s) use nothing the change touches: \`navkernel runs upgrade --from ${d.from.slice(0, 12)} --to ${d.to.slice(0, 12)} --if-unaffected\` moves them`);
  }
  return lines.join('\n') + '\n';
}

/** Registers `navkernel flows diff`. */
export function registerFlowsDiffCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('diff')
    .description('What changed between two flow versions (folders, or ledger:HASH): steps added, removed or renamed, edges and bounds; with --ledger, the runs in flight on OLD the change touches and how')
    .argument('<old>', 'the flows as they are: a folder or file, or ledger:HASH (a version the ledger keeps)')
    .argument('<new>', 'the flows as they would be: a folder or file, or ledger:HASH')
    .option('--json', 'print { diff, impact } as one JSON object');
  addLedgerOption(cmd, {}, ctx.io).action(async (oldRef: string, newRef: string, opts: LedgerCliOptions & { json?: boolean }) => {
    // The ledger is read only when named (its option has a default): a diff of two folders needs none.
    const named = cmd.getOptionValueSource('ledger') === 'cli' || oldRef.startsWith('ledger:') || newRef.startsWith('ledger:');
    await flowsDiff({ old: oldRef, new: newRef, ...(named ? { ledger: opts.ledger } : {}), ...(opts.json ? { json: true } : {}) }, {
      out: (t) => (opts.json ? ctx.write(t) : ctx.print(t)),
      openLedger: (location) => openCliLedger({ ...opts, ledger: location }),
    });
  });
}
