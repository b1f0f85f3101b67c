import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { archiveRuns, createCheckpoint, restoreBundle } from '../../ledger/index.js';
import { UsageError, positiveInt, writeOutputFile } from '../conventions.js';
import { addLedgerOption, openCliLedger, terminalProgress, type LedgerCliOptions } from '../ledger-option.js';

/** An ISO date or time (`2026-01-31`, `2026-01-31T12:00:00Z`), or a duration back from now (`90d`, `12h`). */
export function parseBefore(value: string, now: () => Date = () => new Date()): string {
  const ago = /^(\d+)([dhm])$/.exec(value);
  if (ago) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[ago[2] as 'd' | 'h' | 'm'];
    return new Date(now().getTime() - Number(ago[1]) * unit).toISOString();
  }
  const t = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(t)) throw new UsageError(`--before ${JSON.stringify(value)}: give an ISO date or time (2026-01-31, 2026-01-31T12:00:00Z) or an age (90d, 12h)`);
  return new Date(t).toISOString();
}

/** `navkernel ledger archive`. */
export function registerArchiveCommand(program: Command, ctx: CliContext): void {
  const archive = program
    .command('archive')
    .description('Move finished runs out of the ledger into one verifiable gzip bundle per run; the run register keeps a tombstone per run (see docs/ledger-lifetime.md)')
    .argument('[runs...]', 'these runs (else --before)')
    .requiredOption('--to <dir>', 'the folder bundles are written to (created when missing)')
    .option('--before <date>', 'runs last updated before this ISO date or time, or this age (90d, 12h)')
    .option('--include-active', 'also runs not terminated or with an open escalation')
    .option('--limit <n>', 'at most this many runs', (v) => positiveInt('--limit', v))
    .option('--vacuum', 'give all space back afterwards (SQLite: VACUUM, which also turns incremental vacuum on; PostgreSQL: VACUUM FULL, locking each table meanwhile)')
    .option('--no-reclaim', 'do not vacuum afterwards (freed space is reused by new routes)')
    .option('--json', 'print the report as JSON');
  addLedgerOption(archive, {}, ctx.io).action(async (runs: string[], opts: LedgerCliOptions & { to: string; before?: string; includeActive?: boolean; limit?: number; vacuum?: boolean; reclaim?: boolean; json?: boolean }) => {
    if (runs.length === 0 && opts.before === undefined) throw new UsageError('archive takes run ids or --before DATE');
    const ledger = openCliLedger(opts);
    const progress = terminalProgress('archive', 100);
    try {
      const report = await archiveRuns(ledger, {
        to: opts.to,
        ...(opts.before !== undefined ? { before: parseBefore(opts.before) } : {}),
        ...(runs.length > 0 ? { runs } : {}),
        includeActive: opts.includeActive ?? false,
        ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
        reclaim: opts.reclaim === false ? 'none' : opts.vacuum ? 'full' : 'auto',
        onProgress: progress.update,
      });
      progress.stop();
      if (opts.json) {
        ctx.json(report);
        return;
      }
      const routes = report.archived.reduce((n, a) => n + a.routes, 0);
      ctx.print(`archived ${report.archived.length} run(s), ${routes} routes, into ${opts.to} (${report.bundle_bytes} bytes of bundles)\n`);
      if (report.skipped.length > 0) ctx.print(`left ${report.skipped.length} run(s) that changed while archiving: ${report.skipped.join(', ')}\n`);
      const r = report.reclaim;
      if (r) ctx.print(`space: ${r.bytes_before} -> ${r.bytes_after} bytes (${r.mode})\n`);
    } finally {
      progress.stop();
      await ledger.close();
    }
  });
}

/** `navkernel ledger restore`. */
export function registerRestoreCommand(program: Command, ctx: CliContext): void {
  const restore = program
    .command('restore')
    .description('Bring archived runs back into the ledger from their bundles, row for row, after checking each bundle and its tombstone')
    .argument('<bundles...>', 'bundle files (*.nkrun.gz)')
    .option('--json', 'print one line per restored run as JSON');
  addLedgerOption(restore, {}, ctx.io).action(async (bundles: string[], opts: LedgerCliOptions & { json?: boolean }) => {
    const ledger = openCliLedger(opts);
    try {
      for (const file of bundles) {
        const r = await restoreBundle(ledger, file);
        if (opts.json) ctx.json(r);
        else ctx.print(`restored run ${r.run_id} (${r.routes} routes) from ${file}\n`);
      }
    } finally {
      await ledger.close();
    }
  });
}

/** `navkernel ledger checkpoint`. */
export function registerCheckpointCommand(program: Command, ctx: CliContext): void {
  const checkpoint = program
    .command('checkpoint')
    .description("Write a signed statement of the ledger's state (run register size and head, every run's head, the time), to keep outside the ledger")
    .requiredOption('--key <pem>', 'Ed25519 private key, PEM (openssl genpkey -algorithm ed25519 -out key.pem)')
    .option('-o, --out <file>', 'write the checkpoint to this file (default: stdout)');
  addLedgerOption(checkpoint, {}, ctx.io).action(async (opts: LedgerCliOptions & { key: string; out?: string }) => {
    const ledger = openCliLedger(opts);
    try {
      const cp = await createCheckpoint(ledger, opts.key);
      const text = JSON.stringify(cp) + '\n';
      if (opts.out !== undefined) {
        writeOutputFile(opts.out, text, '--out');
        ctx.printError(`checkpoint of ${cp.statement.register_size} run(s), ${cp.statement.routes} routes, written to ${opts.out}\n`);
      } else ctx.json(cp);
    } finally {
      await ledger.close();
    }
  });
}
