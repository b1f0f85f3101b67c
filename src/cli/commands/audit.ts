import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { explorerCallsKey, type AuditReport, type DecisionEntry, type WhyReport } from '../../contracts/index.js';
import { explorerCallsOf } from '../../ledger/index.js';
import { auditRun, whyStep } from '../../runs/index.js';
import { UsageError } from '../conventions.js';
import { addKernelOptions, loadCliFlows, type KernelCliOptions } from '../kernel-options.js';
import { alignColumns } from '../table.js';
import { addLedgerOption, openCliLedger, terminalProgress, type LedgerCliOptions } from '../ledger-option.js';
import { inLine } from '../terminal-text.js';

function target(e: DecisionEntry): string {
  if (e.inject_flow) return `flow ${e.inject_flow} → ${e.next_step_id ?? ''}`;
  if (e.detour_target) return `${e.detour_target} (return to ${e.return_to ?? '?'})`;
  return e.next_step_id ?? '';
}

/** The cells of one decision line: seq, step, decision, target, tier and rule, then the reason. */
function cells(e: DecisionEntry): string[] {
  return [`#${e.seq}`, `${e.flow}/${e.step}`, e.decision, target(e), `tier ${e.tier}`, `${e.rule}: ${e.reason}${e.principal !== undefined ? `  (by ${e.principal})` : ''}`];
}

/** A kernel time (µs) for people: µs below a millisecond, ms with one decimal above. */
function micros(us: number): string {
  return us < 1000 ? `${us.toFixed(1)} µs` : `${(us / 1000).toFixed(1)} ms`;
}

function printAudit(ctx: CliContext, r: AuditReport): void {
  const out: string[] = [];
  const run = r.run;
  out.push(`run ${inLine(run.run_id)}: ${run.status}, ${run.steps} routes in ${run.flows.join(', ')}, ${run.offroad} off-road, ${run.llm_calls} LLM calls, $${run.cost_usd.toFixed(4)}, ${run.open_escalations} open escalations`);
  out.push(`  from ${run.first_ts} to ${run.last_ts}; kernel time per route p50 ${micros(r.latency_us.p50)}, p99 ${micros(r.latency_us.p99)}`);
  if (r.routed_by) out.push(`  routed by ${r.routed_by.map((b) => `${b.principal ?? '(no principal recorded)'} (${b.routes} route${b.routes === 1 ? '' : 's'})`).join(', ')}`);
  if (r.flows_hashes.length > 1) out.push(`  routed with ${r.flows_hashes.length} different flow definitions: ${r.flows_hashes.map((h) => h.slice(0, 12)).join(', ')}`);
  out.push('', 'Decisions by tier and rule:');
  out.push(...alignColumns(r.by_tier_rule.map((t) => [`tier ${t.tier}`, t.rule, t.decision, String(t.count)]), { right: [3], indent: '  ' }));
  out.push('', `Off-road decisions (${r.offroad.length}):`);
  out.push(...alignColumns(r.offroad.map(cells), { indent: '  ' }));
  if (r.needs_human?.length) {
    // CONTINUEs with needs_human (the iteration cap, a failure taking a branch default) are not off-road: listed here.
    out.push('', `Routes that need a person (${r.needs_human.length}):`);
    out.push(...alignColumns(r.needs_human.map(cells), { indent: '  ' }));
  }
  out.push('', 'Steps (routes, loops, highest iteration):');
  out.push(...alignColumns(r.steps.map((s) => [`${s.flow}/${s.step}`, `${s.routes} routes`, `${s.loops} loops`, s.max_iteration === null ? '' : `iteration ${s.max_iteration}`]), { right: [1, 2], indent: '  ' }));
  if (r.signatures.length) {
    out.push('', 'Failure signatures (seen, detours):');
    out.push(...alignColumns(r.signatures.map((s) => [s.key, `${s.seen} seen`, `${s.detours} detours`]), { right: [1, 2], indent: '  ' }));
  }
  out.push('', `Cost: $${r.cost.usd.toFixed(4)}, ${r.cost.llm_calls} LLM calls, ${r.cost.input_tokens} input + ${r.cost.output_tokens} output tokens`);
  for (const m of r.cost.by_model) out.push(`  ${m.provider}/${m.model}: ${m.calls} calls, $${m.usd.toFixed(4)}`);
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  out.push(
    `  $${r.cost.usd_per_1000_routes.toFixed(4)} per 1,000 routes; tier 3 consulted ${r.arbiter.consulted}×, decided ${r.arbiter.decided}, fall-through ${pct(r.arbiter.fall_through_rate)}, invalid answers ${pct(r.arbiter.invalid_answer_rate)} of calls, budget skips ${r.arbiter.budget_skips}`,
  );
  if (r.escalations.length) {
    out.push('', 'Escalations:');
    for (const e of r.escalations) {
      const how = e.resolution ? `resolved by ${inLine(e.resolution.by)} at ${e.resolution.ts}: ${e.resolution.decision}${e.resolution.next_step_id ? ` → ${e.resolution.next_step_id}` : ''} (${inLine(e.resolution.reason)})` : 'OPEN';
      out.push(`  ${inLine(e.escalation_id)}  #${e.seq} ${e.flow}/${e.step}: ${inLine(e.reason)}\n    ${how}`);
    }
  }
  ctx.print(out.join('\n') + '\n');
}

function printWhy(ctx: CliContext, r: WhyReport): void {
  const out = [`${r.entries.length} decisions touched ${inLine(r.step)} in run ${inLine(r.run_id)}:`];
  out.push(...alignColumns(r.entries.map((e) => { const c = cells(e); c[c.length - 1] += `  [${e.touched_as.join(', ')}]`; return c; }), { indent: '  ' }));
  // What "seen N times" counted: the routes of the step that carried the signature.
  for (const e of r.entries) if (e.sightings) out.push(`  #${e.seq} ${e.signature ?? 'signature'}: seen at ${e.sightings.map((s) => `#${s}`).join(', ')}`);
  // The tags say how each decision touched the step; only the ones shown are explained.
  const TAGS: Record<string, string> = { completed: 'the step finished here', next: 'routed to the step', detour_target: 'detoured to the step', return_to: 'came back to the step after a detour' };
  const shown = [...new Set(r.entries.flatMap((e) => e.touched_as))];
  if (shown.length) out.push(`  (${shown.map((t) => `[${t}]: ${TAGS[t] ?? t}`).join('; ')})`);
  for (const e of r.escalations) {
    out.push(`  escalation ${inLine(e.escalation_id)} (#${e.seq}): ${e.status}${e.resolution ? `, ${e.resolution.decision} → ${e.resolution.next_step_id ?? '-'} by ${inLine(e.resolution.by)}: ${inLine(e.resolution.reason)}` : ''}`);
  }
  ctx.print(out.join('\n') + '\n');
}

/** `navkernel runs audit RUN [--why STEP]`. */
export function registerAuditCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('audit')
    .description('Explain how a run was routed: decisions by tier and rule, off-road decisions with reasons, loops per step, signatures, cost')
    .argument('<run>', 'run id')
    .option('--why <step>', 'only the decisions that touched this step, and why')
    .option('--json', 'print the report as JSON (schemas/audit-report or why-report)');
  addLedgerOption(addKernelOptions(cmd, {}, ctx.io), {}, ctx.io).action(async (run: string, opts: LedgerCliOptions & KernelCliOptions & { why?: string; json?: boolean }) => {
    const ledger = openCliLedger(opts);
    const progress = terminalProgress('audit');
    try {
      const explored = run.startsWith('explore:') ? explorerCallsOf(ledger) : undefined;
      if (explored) {
        // An explorer session: what its model calls cost (they share the ledger's LLM-call table with tier 3).
        const summary = explored.find((e) => explorerCallsKey(e.session_id) === run);
        if (!summary) throw new UsageError(`no model call of explorer session ${run.slice('explore:'.length)} in ${opts.ledger}`, 'UNKNOWN_RUN');
        if (opts.json) ctx.json(summary);
        else {
          const out = [`explorer session ${summary.session_id}: ${summary.steps} step(s), ${summary.calls} LLM calls, $${summary.usd.toFixed(4)}, ${summary.input_tokens} input + ${summary.output_tokens} output tokens`];
          for (const m of summary.by_model) out.push(`  ${m.provider}/${m.model}${m.persona ? ` (persona ${m.persona})` : ''}: ${m.calls} calls, $${m.usd.toFixed(4)}`);
          ctx.print(out.join('\n') + '\n');
        }
        return;
      }
      if (opts.why !== undefined) {
        // The flows (--flows, the config, ./charters) name steps no decision touched yet; without them, the ledger's.
        const flows = await loadCliFlows(opts, ctx).catch(() => undefined);
        const r = await whyStep(ledger, run, opts.why, flows);
        if (r.unknown_step) {
          const near = r.unknown_step.did_you_mean;
          throw new UsageError(`step ${JSON.stringify(opts.why)} does not exist in the flows of run ${run}${near ? `; did you mean ${JSON.stringify(near)}?` : ''} (steps: ${r.unknown_step.steps.join(', ')})`, 'UNKNOWN_STEP');
        }
        if (r.entries.length === 0 && r.escalations.length === 0) throw new UsageError(`no decision of run ${run} touched step ${JSON.stringify(opts.why)}`, 'UNKNOWN_STEP');
        if (opts.json) ctx.json(r);
        else printWhy(ctx, r);
      } else {
        const r = await auditRun(ledger, run, { onProgress: progress.update });
        progress.stop();
        if (opts.json) ctx.json(r);
        else printAudit(ctx, r);
      }
    } finally {
      progress.stop();
      await ledger.close();
    }
  });
}
