import { userInfo } from 'node:os';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { resolveEscalation } from '../../runs/index.js';
import { addKernelOptions, loadCliFlows, type KernelCliOptions } from '../kernel-options.js';
import { addLedgerOption, openCliLedger, type LedgerCliOptions } from '../ledger-option.js';
import { inLine } from '../terminal-text.js';

interface ResolveOptions extends LedgerCliOptions, KernelCliOptions {
  decision: string;
  next?: string;
  by?: string;
  reason: string;
  json?: boolean;
}

/** `navkernel runs resolve ESCALATION --decision D [--next STEP] --by NAME --reason TEXT`. */
export function registerResolveCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('resolve')
    .description("Record a person's decision on an open escalation, checked against the flow graph")
    .argument('<escalation>', 'escalation id (from `navkernel runs audit RUN`)')
    .requiredOption('--decision <decision>', 'CONTINUE, LOOP, DETOUR, INJECT_FLOW or TERMINATE')
    .option('--next <step>', 'step to go on with (CONTINUE, DETOUR; LOOP checks it), or the flow to inject (INJECT_FLOW)')
    .option('--by <name>', 'who decides (default: the OS user); recorded as unauthenticated, since the command line proves no identity')
    .requiredOption('--reason <text>', 'why')
    .option('--json', 'print the resolved escalation as JSON (schemas/escalation.schema.json)');
  addLedgerOption(addKernelOptions(cmd, {}, ctx.io), {}, ctx.io).action(async (id: string, opts: ResolveOptions) => {
    const flows = await loadCliFlows(opts, ctx);
    const ledger = openCliLedger(opts);
    try {
      const by = opts.by ?? osUser();
      const e = await resolveEscalation(ledger, flows, {
        escalation_id: id,
        decision: opts.decision,
        ...(opts.next !== undefined ? { next: opts.next } : {}),
        by,
        reason: opts.reason,
        authenticated: false,
        via: 'cli',
      });
      if (opts.json) ctx.json(e);
      else {
        const r = e.resolution!;
        // Without --next the step is chosen from the flow: say which and why.
        const chosen = opts.next === undefined && r.next_step_id ? ` (no --next given: ${r.decision === 'LOOP' ? "the step's loop target" : "the step's default next"})` : '';
        ctx.print(`resolved ${inLine(e.escalation_id)} (run ${inLine(e.run_id)}, #${e.seq} ${e.flow}/${e.step}): ${r.decision}${r.next_step_id ? ` → ${r.next_step_id}${chosen}` : ''} by ${inLine(r.by)} (unauthenticated${opts.by === undefined ? ', the OS user' : ''})\n`);
      }
    } finally {
      await ledger.close();
    }
  });
}

/** The OS user running the command, or '' when the system cannot say (then --by is required). */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return '';
  }
}
