import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { jsonRequested, prefixSuggestion, reportError } from './conventions.js';

/**
 * Commander's Command, with a better guess for a mistyped option: an option the typed name is the start of
 * (`--budget` → `--budget-tokens`) wins over commander's edit distance (which would say `--quiet`).
 */
class NavkernelCommand extends Command {
  override createCommand(name?: string): Command {
    return new NavkernelCommand(name);
  }

  unknownOption(flag: string): never {
    const longs: string[] = [];
    for (let c: Command | null = this; c; c = c.parent) {
      longs.push(...c.createHelp().visibleOptions(c).flatMap((o) => (o.long ? [o.long] : [])));
    }
    const guess = prefixSuggestion(flag, longs);
    if (guess) this.error(`error: unknown option '${flag}'\n(Did you mean ${guess}?)`, { code: 'commander.unknownOption' });
    // Commander's own message (with its edit-distance suggestion, if any).
    return (Command.prototype as unknown as { unknownOption(flag: string): never }).unknownOption.call(this, flag);
  }
}

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
  // Apart from the other ledger commands: a replay's wall time includes its start-up (issue 27).
  replay: async () => (await import('./commands/replay.js')).registerReplayCommand,
  navigate: async () => (await import('./commands/navigate.js')).registerNavigateCommand,
  explore: async () => (await import('./commands/explore.js')).registerExploreCommand,
  serve: async () => (await import('./commands/serve.js')).registerServeCommand,
  mcp: async () => (await import('./commands/mcp.js')).registerMcpCommand,
  report: async () => (await import('./commands/report.js')).registerReportCommand,
  diagram: async () => (await import('./commands/diagram.js')).registerDiagramCommand,
  forensics: async () => (await import('./commands/forensics.js')).registerForensicsCommand,
  // The script must know every command: it gets the full program from here (completion.ts never imports this module).
  completion: async () => {
    const { registerCompletionCommand } = await import('./commands/completion.js');
    return (program) => registerCompletionCommand(program, () => buildProgram());
  },
  token: async () => (await import('./commands/token.js')).registerTokenCommand,
  flows: async () => {
    const [{ registerFlowsDiffCommand }, { registerFlowsWhatIfCommand }] = await Promise.all([import('./commands/flows-diff.js'), import('./commands/flows-what-if.js')]);
    return (program) => {
      registerFlowsDiffCommand(program);
      registerFlowsWhatIfCommand(program);
    };
  },
};
const LEDGER_COMMANDS = new Set(['runs', 'audit', 'verify', 'resolve', 'export', 'migrate', 'archive', 'restore', 'checkpoint']);

/** The command word of `argv` (as process.argv), if any. */
function commandName(argv: string[]): string | undefined {
  return argv.slice(2).find((a) => !a.startsWith('-'));
}

/** Builds the `navkernel` program with the commands `argv` needs (every command when unsure). */
export async function buildProgram(argv: string[] = []): Promise<Command> {
  const program = new NavkernelCommand('navkernel')
    .description('A deterministic 5-tier routing kernel for agent flow runners, and a context navigator.')
    .version(VERSION)
    .exitOverride()
    // Commander's complaints are reported by main() in one line (or as JSON with --json), not followed by the usage.
    .configureOutput({ outputError: () => {} })
    .showSuggestionAfterError(true)
    // Positional options, so that a noun group's subcommand gets the flags written after it (`runs upgrade … --ledger X`
    // to upgrade, not to the `runs` listing); every flag is written after its command already.
    .enablePositionalOptions();
  const words = argv.slice(2).filter((a) => !a.startsWith('-'));
  // `navkernel help CMD` needs only CMD; `navkernel --version` needs no command at all.
  const first = words[0] === 'help' ? words[1] : words[0];
  const name = first && LEDGER_COMMANDS.has(first) ? 'ledger' : first;
  const versionOnly = !first && argv.slice(2).some((a) => a === '-V' || a === '--version');
  const wanted = versionOnly ? [] : name && COMMANDS[name] ? [name] : Object.keys(COMMANDS);
  for (const register of await Promise.all(wanted.map((n) => COMMANDS[n]!()))) register(program);
  // The convention: every command takes --json. Where a command's output has no JSON form of its own (a Mermaid
  // diagram, an HTML file, a server), --json still makes its errors the JSON error line.
  for (const c of program.commands) {
    if (!c.options.some((o) => o.long === '--json')) c.option('--json', 'report errors as the JSON error line on stdout (the output itself is unchanged)');
  }
  return program;
}

/** Runs the CLI with `argv` (as process.argv) and resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const json = jsonRequested(argv);
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    const name = commandName(argv);
    const hint = err instanceof CommanderError ? `see navkernel ${name && name in COMMANDS || LEDGER_COMMANDS.has(name ?? '') ? `${name} ` : ''}--help` : undefined;
    return reportError(err, { json, ...(hint ? { hint } : {}) });
  }
}
