import type { Command } from 'commander';
import { registerArchiveCommands } from './archive.js';
import { registerAuditCommand } from './audit.js';
import { registerExportCommand } from './export.js';
import { registerMigrateCommand } from './migrate.js';
import { registerReplayCommand } from './replay.js';
import { registerResolveCommand } from './resolve.js';
import { registerRunsCommand } from './runs.js';
import { registerVerifyCommand } from './verify.js';

/** The ledger's commands: runs, audit, verify, replay, resolve, export, migrate, archive, restore, checkpoint. */
export function registerLedgerCommands(program: Command): void {
  registerRunsCommand(program);
  registerAuditCommand(program);
  registerVerifyCommand(program);
  registerReplayCommand(program);
  registerResolveCommand(program);
  registerExportCommand(program);
  registerMigrateCommand(program);
  registerArchiveCommands(program);
}
