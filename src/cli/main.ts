import { Command, CommanderError } from 'commander';
import { NavkernelError } from '../contracts/index.js';
import { VERSION } from '../version.js';

type Register = (program: Command) => void;

/**
 * Command modules, loaded only when their command runs (or for the full help): `navkernel route` should not pay
 * for tree-sitter, the explorer or the provider SDKs.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  route: async () => (await import('./commands/route.js')).registerRouteCommand,
  validate: async () => (await import('./commands/validate.js')).registerValidateCommand,
  demo: async () => (await import('./commands/demo.js')).registerDemoCommand,
  ledger: async () => (await import('./commands/ledger-commands.js')).registerLedgerCommands,
  navigate: async () => (await import('./commands/navigate.js')).registerNavigateCommand,
  explore: async () => (await import('./commands/explore.js')).registerExploreCommand,
  serve: async () => (await import('./commands/serve.js')).registerServeCommand,
};
const LEDGER_COMMANDS = new Set(['runs', 'audit', 'verify', 'replay', 'resolve']);

/** Builds the `navkernel` program with the commands `argv` needs (every command when unsure). */
export async function buildProgram(argv: string[] = []): Promise<Command> {
  const program = new Command('navkernel')
    .description('A deterministic 5-tier routing kernel for agent flow runners, and a context navigator.')
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError();
  const first = argv.slice(2).find((a) => !a.startsWith('-'));
  const name = first && LEDGER_COMMANDS.has(first) ? 'ledger' : first;
  const wanted = name && COMMANDS[name] ? [name] : Object.keys(COMMANDS);
  for (const register of await Promise.all(wanted.map((n) => COMMANDS[n]!()))) register(program);
  return program;
}

/** Runs the CLI with `argv` (as process.argv) and resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = await buildProgram(argv);
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
