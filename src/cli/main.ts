import { Command, CommanderError } from 'commander';
import { NavkernelError } from '../contracts/index.js';
import { VERSION } from '../version.js';
import { registerRouteCommand } from './commands/route.js';
import { registerValidateCommand } from './commands/validate.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerLedgerCommands } from './commands/ledger-commands.js';
import { registerNavigateCommand } from './commands/navigate.js';
import { registerExploreCommand } from './commands/explore.js';

/** Builds the `navkernel` program with every command registered. */
export function buildProgram(): Command {
  const program = new Command('navkernel')
    .description('A deterministic 5-tier routing kernel for agent flow runners, and a context navigator.')
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError();
  // Commands (one file each in ./commands):
  registerRouteCommand(program);
  registerValidateCommand(program);
  registerDemoCommand(program);
  registerLedgerCommands(program);
  registerNavigateCommand(program);
  registerExploreCommand(program);
  return program;
}

/** Runs the CLI with `argv` (as process.argv) and resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof NavkernelError) {
      process.stderr.write(`navkernel: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
