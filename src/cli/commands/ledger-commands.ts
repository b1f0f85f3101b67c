import type { Command } from 'commander';
import { registerArchiveCommands } from './archive.js';
import { registerAuditCommand } from './audit.js';
import { registerExportCommand } from './export.js';
import { registerMigrateCommand } from './migrate.js';
import { registerResolveCommand } from './resolve.js';
import { registerRunsCommand } from './runs.js';
import { registerRunsUpgradeCommand } from './runs-upgrade.js';
import { registerVerifyCommand } from './verify.js';

/** The ledger's commands (replay has its own entry in main.ts): runs, audit, verify, resolve, export, migrate, archive, restore, checkpoint. */
export function registerLedgerCommands(program: Command): void {
  registerRunsCommand(program);
  registerRunsUpgradeCommand(program);
  registerAuditCommand(program);
  registerVerifyCommand(program);
  registerResolveCommand(program);
  registerExportCommand(program);
  registerMigrateCommand(program);
  registerArchiveCommands(program);
}
