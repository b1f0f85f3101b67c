// `navkernel runs upgrade RUN --to HASH [--map old=new ...] [--by NAME] [--reason TEXT]`, or a filter
// (`--from HASH [--if-unaffected]`): moves runs to another flow version, each move recorded in the ledger
// (docs/changing-flows.md).
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { NavkernelError } from '../../contracts/errors.js';
import type { Ledger, StoredUpgrade } from '../../contracts/ports.js';
import type { FlowSet } from '../../kernel/index.js';
import { diffFlows } from '../../runs/flow-diff.js';
import { impactOnRuns } from '../../runs/flow-impact.js';
import { flowsByRef, keptVersion } from '../../runs/flow-refs.js';
import { UpgradeRefusedError, parseStepMap, upgradeRun } from '../../runs/upgrade.js';
import { addLedgerOption, openCliLedger, type LedgerCliOptions } from '../ledger-option.js';
import { EXIT, UsageError } from '../conventions.js';
import type { CliContext } from '../context.js';
import { inLine, jsonLine } from '../terminal-text.js';

export interface RunsUpgradeOptions {
  /** One run, or none with `from`. */
  run?: string;
  /** The version to move to: a kept version's hash (prefix), or `ledger:HASH`, or a flows folder (kept on upgrade). */
  to: string;
  /** Every run in flight on this version (a hash prefix) instead of one run. */
  from?: string;
  /** With `from`: only the runs the change does not touch (nothing they use changed): the automatic policy. */
  ifUnaffected?: boolean;
  map: string[];
  by: string;
  reason: string;
  json?: boolean;
}

export interface UpgradeOutcome {
  run_id: string;
  upgraded?: StoredUpgrade;
  refused?: { code: string; message: string };
}

/** Resolves `--to`: a hash (prefix) the ledger keeps, `ledger:HASH`, or a folder or file of flows. */
async function target(ledger: Ledger, to: string): Promise<FlowSet> {
  if (/^[0-9a-f]{6,64}$/i.test(to)) return keptVersion(ledger, to);
  return flowsByRef(to, ledger);
}

/** Upgrades the run (or every run the filter selects); a refusal of one run of a filter is reported, not thrown. */
export async function runsUpgrade(ledger: Ledger, opts: RunsUpgradeOptions, out: (text: string) => void): Promise<UpgradeOutcome[]> {
  if ((opts.run === undefined) === (opts.from === undefined)) throw new UsageError('runs upgrade takes a run id or --from HASH (not both)');
  if (opts.ifUnaffected && opts.from === undefined) throw new UsageError('--if-unaffected goes with --from HASH');
  const to = await target(ledger, opts.to);
  const map = parseStepMap(opts.map);
  let runs: string[];
  if (opts.run !== undefined) runs = [opts.run];
  else {
    const from = await keptVersion(ledger, opts.from!);
    const impact = await impactOnRuns(ledger, from, to, diffFlows(from, to));
    runs = impact.runs.filter((r) => !opts.ifUnaffected || r.effects.length === 0).map((r) => r.run_id);
  }
  const outcomes: UpgradeOutcome[] = [];
  for (const run_id of runs) {
    try {
      const upgraded = await upgradeRun(ledger, { run_id, to, map, by: opts.by, reason: opts.reason });
      outcomes.push({ run_id, upgraded });
      if (!opts.json) out(`upgraded ${inLine(run_id)}: ${upgraded.from_flows.slice(0, 12)} → ${upgraded.to_flows.slice(0, 12)} after seq ${upgraded.seq}${upgraded.map !== '{}' ? ` (map ${inLine(upgraded.map)})` : ''}, by ${inLine(upgraded.by)}\n`);
    } catch (e) {
      // One run refused: alone it is the command's error; in a filter it is reported and the others go on.
      if (opts.run !== undefined || !(e instanceof NavkernelError)) throw e;
      outcomes.push({ run_id, refused: { code: e.code, message: e.message } });
      if (!opts.json) out(`refused ${inLine(run_id)}: ${inLine(e.message)}\n`);
    }
  }
  if (opts.json) for (const o of outcomes) out(jsonLine(o));
  else if (opts.from !== undefined) out(`${outcomes.filter((o) => o.upgraded).length} run(s) upgraded, ${outcomes.filter((o) => o.refused).length} refused\n`);
  return outcomes;
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return '';
  }
}

/** Registers `navkernel runs upgrade` under the `runs` listing (bare `navkernel runs` still lists runs). */
/** Registers `navkernel runs upgrade` (mounted under `runs` by main.ts's GROUPS); a refused run is a finding (exit 1). */
export function registerRunsUpgradeCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('upgrade')
    .description('Move a run in flight (or every run on --from HASH) to another flow version, recorded in the ledger like a resolution; refused when a step the run stands on has no place in the new version')
    .argument('[run]', 'the run to upgrade (or --from HASH)')
    .requiredOption('--to <version>', 'the version: a hash (prefix) the ledger keeps, ledger:HASH, or a flows folder (kept in the ledger on upgrade)')
    .option('--map <old=new>', 'where a step the run names goes in the new version (step=step, or flow/step=flow/step); repeatable', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--from <hash>', 'upgrade every run in flight on this version instead of one run')
    .option('--if-unaffected', 'with --from: only runs that nothing the change touches (the automatic policy)')
    .option('--by <name>', 'who upgrades (default: the OS user)')
    .option('--reason <text>', 'why (recorded)', 'flow change')
    .option('--json', 'one JSON object per run: { run_id, upgraded | refused }');
  addLedgerOption(cmd, {}, ctx.io).action(async (run: string | undefined, opts: LedgerCliOptions & { to: string; map: string[]; from?: string; ifUnaffected?: boolean; by?: string; reason: string; json?: boolean }) => {
    const by = opts.by ?? osUser();
    if (by === '') throw new NavkernelError('INVALID_OPTION', '--by NAME is needed: the system does not say who runs this command');
    // Opened for writing (an upgrade is recorded), never created: a mistyped path is not a new empty ledger.
    const ledger = openCliLedger(opts, { write: true });
    try {
      const outcomes = await runsUpgrade(
        ledger,
        { ...(run !== undefined ? { run } : {}), to: opts.to, ...(opts.from !== undefined ? { from: opts.from } : {}), ...(opts.ifUnaffected ? { ifUnaffected: true } : {}), map: opts.map, by, reason: opts.reason, ...(opts.json ? { json: true } : {}) },
        (t) => (opts.json ? ctx.write(t) : ctx.print(t)),
      );
      if (outcomes.some((o) => o.refused)) ctx.setExitCode(EXIT.FINDING);
    } finally {
      await ledger.close();
    }
  });
}

export { UpgradeRefusedError };
