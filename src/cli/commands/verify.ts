import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { BundleLedger, LedgerNotFoundError, readCheckpoint, verifyArchive, verifyBundle, verifyCheckpoint, verifyLedger } from '../../ledger/index.js';
import type { Ledger } from '../../contracts/ports.js';
import { UsageError } from '../conventions.js';
import { addLedgerOption, openCliLedger, terminalProgress, type LedgerCliOptions } from '../ledger-option.js';
import { inLine } from '../terminal-text.js';

/** `navkernel ledger verify [RUN]`: exit 0 when the chain and the decisions.jsonl files agree with the database, 1 otherwise. */
export function registerVerifyCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('verify')
    .description("Re-compute each run's hash chain and compare decisions.jsonl with the database; exits 1 naming the first bad row")
    .argument('[run]', 'only this run')
    .option('--repair', 'rebuild decisions.jsonl files from the database before checking: append missing lines, cut a torn last line (the default)')
    .option('--no-repair', 'only check: do not touch decisions.jsonl files')
    .option('--archive <dir>', "also check every run bundle in DIR on its own and against the ledger's tombstones (alone when the ledger file does not exist)")
    .option('--checkpoint <file>', 'also prove the ledger still holds everything this signed checkpoint covers (needs --pubkey)')
    .option('--pubkey <pem>', "the checkpoint signer's Ed25519 public key, PEM")
    .option('--json', 'print the report as JSON (schemas/verify-report.schema.json)');
  addLedgerOption(cmd, {}, ctx.io).action(async (run: string | undefined, opts: LedgerCliOptions & { repair?: boolean; json?: boolean; archive?: string; checkpoint?: string; pubkey?: string }) => {
    if ((opts.checkpoint === undefined) !== (opts.pubkey === undefined)) throw new UsageError('--checkpoint and --pubkey go together');
    if (opts.archive !== undefined || opts.checkpoint !== undefined) return verifyExtra(ctx, opts, run);
    const ledger = openCliLedger(opts);
    if (ledger instanceof BundleLedger) {
      // A bundle given as --ledger: its own check (chain, summary, escalations, register entry).
      const issues = await verifyBundle(ledger);
      for (const i of issues) ctx.print(`BAD run ${inLine(i.run_id)}${i.seq !== null ? ` seq ${i.seq}` : ''}: ${i.kind}: ${inLine(i.message)}\n`);
      ctx.print(issues.length === 0 ? `ok: bundle of run ${ledger.bundle.run_id}, ${ledger.bundle.routes.length} routes verified\n` : `FAILED: ${issues.length} problem(s)\n`);
      if (issues.length > 0) ctx.setExitCode(1);
      return;
    }
    const progress = terminalProgress('verify');
    try {
      const report = await verifyLedger(ledger, { ...(run !== undefined ? { run } : {}), repair: opts.repair ?? true, onProgress: progress.update });
      progress.stop();
      if (opts.json) {
        ctx.json(report);
      } else {
        for (const r of report.repairs) {
          ctx.printError(`repaired ${r.file}: ${r.appended} missing line(s) appended${r.torn_line_removed ? ', torn last line removed' : ''}\n`);
        }
        for (const i of report.issues) {
          ctx.print(`BAD run ${inLine(i.run_id)}${i.seq !== null ? ` seq ${i.seq}` : ''}: ${i.kind}: ${inLine(i.message)}${i.file ? ` (${inLine(i.file)})` : ''}\n`);
        }
        ctx.print(
          report.ok
            ? `ok: ${report.runs} run(s), ${report.routes} routes, ${report.jsonl_files} decisions.jsonl file(s) verified\n`
            : `FAILED: ${report.issues.length} problem(s) in ${report.runs} run(s), ${report.routes} routes\n`,
        );
      }
      if (!report.ok) ctx.setExitCode(1);
    } finally {
      progress.stop();
      await ledger.close();
    }
  });
}

/** `verify --archive DIR` and/or `verify --checkpoint FILE --pubkey PEM`, after the ledger's own verify. */
async function verifyExtra(ctx: CliContext, opts: LedgerCliOptions & { repair?: boolean; json?: boolean; archive?: string; checkpoint?: string; pubkey?: string }, run: string | undefined): Promise<void> {
  let ledger: Ledger | undefined;
  try {
    ledger = openCliLedger(opts);
  } catch (err) {
    if (!(err instanceof LedgerNotFoundError) || opts.checkpoint !== undefined) throw err;
  }
  const out: Record<string, unknown> = {};
  let ok = true;
  const say = (line: string) => {
    if (!opts.json) ctx.print(line + '\n');
  };
  try {
    if (ledger) {
      const r = await verifyLedger(ledger, { ...(run !== undefined ? { run } : {}), repair: opts.repair ?? true });
      out.ledger = r;
      ok &&= r.ok;
      for (const i of r.issues) say(`BAD run ${inLine(i.run_id)}${i.seq !== null ? ` seq ${i.seq}` : ''}: ${i.kind}: ${inLine(i.message)}`);
      say(r.ok ? `ok: ${r.runs} run(s), ${r.routes} routes, ${r.archived_runs ?? 0} archived run(s)` : `FAILED: ${r.issues.length} problem(s) in the ledger`);
    } else say(`no ledger at ${opts.ledger}: checking the bundles on their own`);
    if (opts.archive !== undefined) {
      const a = await verifyArchive(opts.archive, ledger);
      out.archive = a;
      ok &&= a.ok;
      for (const i of a.issues) say(`BAD archive${i.run_id ? ` run ${inLine(i.run_id)}` : ''}${i.seq !== null ? ` seq ${i.seq}` : ''}: ${i.kind}: ${inLine(i.message)}${i.file ? ` (${inLine(i.file)})` : ''}`);
      say(a.ok ? `ok: ${a.bundles} bundle(s), ${a.routes} routes verified${ledger ? `, ${a.tombstones} against their tombstone` : ''}` : `FAILED: ${a.issues.length} problem(s) in the archive`);
    }
    if (opts.checkpoint !== undefined && ledger) {
      const c = await verifyCheckpoint(ledger, readCheckpoint(opts.checkpoint), opts.pubkey!, opts.archive !== undefined ? { archiveDir: opts.archive } : {});
      out.checkpoint = c;
      ok &&= c.ok;
      for (const i of c.issues) say(`BAD checkpoint${i.run_id !== undefined ? ` run ${inLine(i.run_id)}` : ''}: ${i.kind}: ${inLine(i.message)}`);
      say(c.ok ? `ok: checkpoint of ${c.ts} (${c.register_size} run(s), ${c.routes} routes) holds: nothing it covers was removed or rewritten` : `FAILED: the ledger no longer holds what the checkpoint of ${c.ts} covers`);
    }
    if (opts.json) ctx.json({ ok, ...out });
    if (!ok) ctx.setExitCode(1);
  } finally {
    await ledger?.close();
  }
}
