import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { LedgerNotFoundError, copyLedger, openLedgerAt, verifyLedger } from '../../ledger/index.js';
import { PostgresLedger } from '../../ledger/index.js';
import { UsageError } from '../conventions.js';

/**
 * `navkernel ledger migrate --from LEDGER --to LEDGER`: copies every route, LLM call and escalation (hashes as stored) into
 * an empty ledger, SQLite or PostgreSQL either way, then verifies the copy's chains. Exit 1 if the copy fails verify.
 */
export function registerMigrateCommand(program: Command, ctx: CliContext): void {
  program
    .command('migrate')
    .description('Copy a ledger into an empty one (SQLite file or postgres:// URL, either way) and verify the copy')
    .requiredOption('--from <file|url>', 'the ledger to copy (read only)')
    .requiredOption('--to <file|url>', 'the empty ledger to copy into (created, or migrated to the current schema)')
    .option('--json', 'print the copy and verify reports as JSON')
    .action(async (opts: { from: string; to: string; json?: boolean }) => {
      if (opts.from === opts.to) throw new UsageError('--from and --to name the same ledger');
      let from: ReturnType<typeof openLedgerAt>;
      try {
        from = openLedgerAt(opts.from, { create: false, readOnly: true, jsonl: false });
      } catch (e) {
        // The ledger's own message names --ledger; here the ledger is the one --from names.
        if (e instanceof LedgerNotFoundError) throw new UsageError(`no ledger at ${opts.from} (--from names the ledger to copy: a SQLite file or a postgres:// URL)`, e.code);
        throw e;
      }
      let to: ReturnType<typeof openLedgerAt>;
      try {
        to = openLedgerAt(opts.to, { create: true });
      } catch (e) {
        await from.close();
        throw e;
      }
      try {
        if (to instanceof PostgresLedger) await to.ready();
        const copied = await copyLedger(from, to);
        await to.mirror?.repair();
        const verified = await verifyLedger(to);
        if (opts.json) ctx.write(JSON.stringify({ copied, verify: verified }) + '\n');
        else {
          ctx.write(`copied ${copied.runs} run(s), ${copied.routes} routes, ${copied.llm_calls} LLM calls, ${copied.escalations} escalations (${copied.resolutions} resolved) from ${from.location} to ${to.location}\n`);
          for (const i of verified.issues) ctx.write(`BAD run ${i.run_id}${i.seq !== null ? ` seq ${i.seq}` : ''}: ${i.kind}: ${i.message}\n`);
          ctx.write(verified.ok ? `verify: ok, ${verified.routes} routes in ${verified.runs} run(s)\n` : `verify: FAILED, ${verified.issues.length} problem(s)\n`);
        }
        if (!verified.ok) ctx.setExitCode(1);
      } finally {
        await from.close();
        await to.close();
      }
    });
}
