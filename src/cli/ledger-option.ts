import { Option, type Command } from 'commander';
import { createRequire } from 'node:module';
import type cliProgress from 'cli-progress';
import type { Ledger } from '../contracts/ports.js';
// By module, not the ledger's barrel (which loads the explorer's zod schemas): every ledger command starts with this.
import { BUNDLE_SUFFIX } from '../ledger/archive/bundle.js';
import { BundleLedger } from '../ledger/archive/bundle-ledger.js';
import { openLedgerAt } from '../ledger/open-ledger.js';
import { runFoldersBeside } from '../ledger/paths.js';
import { isPostgresUrl } from '../ledger/postgres/url.js';
import type { Durability } from '../ledger/sql.js';
import { DEFAULT_LEDGER_FILE } from '../ledger/sqlite-ledger.js';
import { cliConfig } from './config.js';
import { processIo, type CliIo } from './context.js';
import { UsageError } from './conventions.js';

/** Options of every ledger-backed command. */
export interface LedgerCliOptions {
  ledger: string;
  durability?: Durability;
}

/**
 * Adds `--ledger FILE|URL` (default `$NAVKERNEL_LEDGER`, else the config file's `ledger`, else `runs/ledger.sqlite`):
 * a `postgres://` URL selects the PostgreSQL ledger.
 */
export function addLedgerOption(cmd: Command, options: { durability?: boolean } = {}, io: CliIo = processIo()): Command {
  const config = cliConfig(io.cwd);
  cmd.option('--ledger <file|url>', 'the ledger: a SQLite file or a postgres:// URL (env NAVKERNEL_LEDGER, config "ledger")', io.env.NAVKERNEL_LEDGER || config.ledger || DEFAULT_LEDGER_FILE);
  if (options.durability) {
    cmd.addOption(
      new Option('--durability <mode>', "'normal' (survives a process crash) or 'full' (also a power loss; an fsync per route)").choices(['normal', 'full']).default(config.durability ?? 'normal'),
    );
  }
  return cmd;
}

/**
 * Opens the ledger a command names. Only commands that start a ledger pass `create: true` (which also opens it for
 * writing); a command that records into an existing ledger passes `write: true`; the others read. Without `create`, a
 * mistyped path is LEDGER_NOT_FOUND instead of a new empty ledger.
 */
export function openCliLedger(opts: LedgerCliOptions, { create = false, write = create }: { create?: boolean; write?: boolean } = {}): Ledger {
  const durability = opts.durability ?? 'normal';
  if (durability !== 'normal' && durability !== 'full') throw new UsageError(`--durability must be normal or full (got ${durability})`);
  if (isPostgresUrl(opts.ledger)) return openLedgerAt(opts.ledger, { create, readOnly: !write });
  // An archived run's bundle reads as a ledger of one run (audit, replay, verify, export); writing to it is refused.
  if (opts.ledger.endsWith(BUNDLE_SUFFIX)) return new BundleLedger(opts.ledger);
  return openLedgerAt(opts.ledger, { create, durability });
}

/** Where the CLI keeps run folders: the library's rule (`runFoldersBeside`, docs/ledger.md "Run folders"). */
export const runsFolderFor = runFoldersBeside;

/** A progress bar on stderr for long jobs, shown only on a terminal and only once a job turns out long. */
export function terminalProgress(label: string, minTotal = 20_000): { update: (done: number, total: number) => void; stop: () => void } {
  let bar: cliProgress.SingleBar | undefined;
  return {
    update(done, total) {
      if (!process.stderr.isTTY || total < minTotal) return;
      if (!bar) {
        // Loaded only when a bar is shown: the commands that never draw one do not pay for it at start-up.
        const progress = createRequire(import.meta.url)('cli-progress') as typeof cliProgress;
        bar = new progress.SingleBar(
          { format: `${label} [{bar}] {value}/{total} routes`, stream: process.stderr, clearOnComplete: true, hideCursor: true },
          progress.Presets.shades_classic,
        );
        bar.start(total, done);
      }
      bar.update(done);
    },
    stop() {
      bar?.stop();
    },
  };
}
