import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { CliContext, processIo, type CliIo } from './context.js';
import { jsonRequested, prefixSuggestion, reportError } from './conventions.js';
import { inLine } from './terminal-text.js';

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

/** Adds one command (named as its module names it) to `parent`; it reads its IO from `ctx`. */
export type Register = (parent: Command, ctx: CliContext) => void;
type Loader = () => Promise<Register>;

/**
 * Command modules, loaded only when their command runs (or for the full help): `navkernel route` should not pay
 * for tree-sitter, the explorer or the provider SDKs. These stand at the top level.
 */
const COMMANDS: Record<string, Loader> = {
  demo: async () => (await import('./commands/demo.js')).registerDemoCommand,
  route: async () => (await import('./commands/route.js')).registerRouteCommand,
  serve: async () => (await import('./commands/serve.js')).registerServeCommand,
  mcp: async () => (await import('./commands/mcp.js')).registerMcpCommand,
  navigate: async () => (await import('./commands/navigate.js')).registerNavigateCommand,
  explore: async () => (await import('./commands/explore.js')).registerExploreCommand,
  forensics: async () => (await import('./commands/forensics.js')).registerForensicsCommand,
  report: async () => (await import('./commands/report.js')).registerReportCommand,
  token: async () => (await import('./commands/token.js')).registerTokenCommand,
  // The script must know every command: it gets the full program from here (completion.ts never imports this module).
  completion: async () => {
    const { registerCompletionCommand } = await import('./commands/completion.js');
    return (program, ctx) => registerCompletionCommand(program, ctx, () => buildProgram());
  },
};

/** A noun and the commands under it: `navkernel GROUP COMMAND`. */
interface Group {
  description: string;
  /** The command a bare `navkernel GROUP` runs (`navkernel runs` lists runs). */
  default?: string;
  commands: Record<string, Loader>;
}

/**
 * The noun groups: the one table a command joins a group in (its module registers it under the name given here).
 * Each module stays lazy: `navkernel runs replay` loads replay's module alone.
 */
export const GROUPS: Record<string, Group> = {
  runs: {
    description: 'The runs of the ledger: list them, replay, audit, resolve an escalation, upgrade to another flow version',
    default: 'list',
    commands: {
      list: async () => (await import('./commands/runs.js')).registerRunsCommand,
      // A replay's wall time includes its start-up (issue 27): its module loads nothing the others need.
      replay: async () => (await import('./commands/replay.js')).registerReplayCommand,
      audit: async () => (await import('./commands/audit.js')).registerAuditCommand,
      resolve: async () => (await import('./commands/resolve.js')).registerResolveCommand,
      upgrade: async () => (await import('./commands/runs-upgrade.js')).registerRunsUpgradeCommand,
    },
  },
  ledger: {
    description: "The ledger itself: verify its hash chains, archive and restore runs, migrate its schema, sign a checkpoint, export it",
    commands: {
      verify: async () => (await import('./commands/verify.js')).registerVerifyCommand,
      archive: async () => (await import('./commands/archive.js')).registerArchiveCommand,
      restore: async () => (await import('./commands/archive.js')).registerRestoreCommand,
      migrate: async () => (await import('./commands/migrate.js')).registerMigrateCommand,
      checkpoint: async () => (await import('./commands/archive.js')).registerCheckpointCommand,
      export: async () => (await import('./commands/export.js')).registerExportCommand,
    },
  },
  flows: {
    description: 'Flow definitions: validate them, draw one as a Mermaid diagram, see what a change does to runs in flight (diff) and to every recorded decision (what-if)',
    commands: {
      validate: async () => (await import('./commands/validate.js')).registerValidateCommand,
      diagram: async () => (await import('./commands/diagram.js')).registerDiagramCommand,
      diff: async () => (await import('./commands/flows-diff.js')).registerFlowsDiffCommand,
      'what-if': async () => (await import('./commands/flows-what-if.js')).registerFlowsWhatIfCommand,
    },
  },
};

/** The former top-level spellings (before the noun groups), still read for a release, hidden from help: old word → group. */
export const FORMER_SPELLINGS: Record<string, string> = Object.fromEntries(
  Object.entries(GROUPS).flatMap(([group, g]) => Object.keys(g.commands).filter((c) => c !== g.default).map((c) => [c, group])),
);

/** Index of the command word in `argv` (as process.argv), if any: the root takes no option with a value. */
function commandIndex(argv: readonly string[]): number {
  const i = argv.findIndex((a, n) => n >= 2 && !a.startsWith('-'));
  return i;
}

/** The command's words in `argv`: [`route`], [`runs`, `replay`], [] (none). */
function commandWords(argv: readonly string[]): string[] {
  const i = commandIndex(argv);
  if (i < 0) return [];
  const first = argv[i]!;
  const group = GROUPS[first];
  const sub = argv[i + 1];
  return group && sub !== undefined && sub in group.commands ? [first, sub] : [first];
}

/**
 * `argv` with the group spellings: a former top-level word (`navkernel replay RUN`) becomes its group's
 * (`navkernel runs replay RUN`), also after `help`; a bare group with a default (`navkernel runs --json`) runs it.
 * `former` is the old word, when one was rewritten.
 */
export function canonicalArgv(argv: readonly string[]): { argv: string[]; former?: string } {
  let out = [...argv];
  let i = commandIndex(out);
  if (i < 0) return { argv: out };
  // `help WORD…` is `WORD… --help`: commander's help command reads one word, a grouped command has two.
  if (out[i] === 'help' && i + 1 < out.length) {
    const words = out.slice(i + 1).filter((a) => !a.startsWith('-'));
    out = [...out.slice(0, i), ...words, '--help'];
  }
  const word = out[i]!;
  const group = FORMER_SPELLINGS[word];
  if (group) {
    out.splice(i, 0, group);
    return { argv: out, former: word };
  }
  const g = GROUPS[word];
  const next = out[i + 1];
  const helpOnly = out.slice(i + 1).every((a) => a === '-h' || a === '--help') && out.length > i + 1;
  if (g?.default && !(next !== undefined && (next in g.commands || next === 'help')) && !helpOnly) out.splice(i + 1, 0, g.default);
  return { argv: out };
}

/** Builds the `navkernel` program with the commands `argv` needs (every command when unsure). */
export async function buildProgram(argv: string[] = [], ctx: CliContext = new CliContext(processIo())): Promise<Command> {
  const program = new NavkernelCommand('navkernel')
    .description('A deterministic 5-tier routing kernel for agent flow runners, and a context navigator.')
    .version(VERSION)
    .exitOverride()
    // Commander's complaints are reported by main() in one line (or as JSON with --json), not followed by the usage.
    .configureOutput({ outputError: () => {}, writeOut: (t) => ctx.write(t), writeErr: (t) => ctx.io.stderr.write(t) })
    .showSuggestionAfterError(true);
  const words = argv.slice(2).filter((a) => !a.startsWith('-'));
  // `navkernel help CMD` needs only CMD; `navkernel --version` needs no command at all.
  const [first, second] = words[0] === 'help' ? words.slice(1) : words;
  const versionOnly = !first && argv.slice(2).some((a) => a === '-V' || a === '--version');
  const all = !versionOnly && !(first && (first in COMMANDS || first in GROUPS));
  const loads: Promise<void>[] = [];
  for (const [name, load] of Object.entries(COMMANDS)) {
    if (all || first === name) loads.push(load().then((register) => register(program, ctx)));
  }
  for (const [name, group] of Object.entries(GROUPS)) {
    if (!all && first !== name) continue;
    const parent = program.command(name).description(group.description);
    const only = second !== undefined && second in group.commands ? second : undefined;
    for (const [sub, load] of Object.entries(group.commands)) {
      if (only === undefined || only === sub) loads.push(load().then((register) => mount(parent, sub, register, ctx)));
    }
  }
  await Promise.all(loads);
  // Help lists commands in one order whatever order the modules loaded in.
  sortCommands(program);
  // The convention: every command takes --json. Where a command's output has no JSON form of its own (a Mermaid
  // diagram, an HTML file, a server), --json still makes its errors the JSON error line (docs/cli-conventions.md).
  for (const c of leafCommands(program)) {
    if (!c.options.some((o) => o.long === '--json')) c.option('--json', 'report errors as the JSON error line on stdout (the output itself has no JSON form)');
  }
  return program;
}

/** Registers one command under its group, named as the group table says. */
function mount(parent: Command, name: string, register: Register, ctx: CliContext): void {
  const before = parent.commands.length;
  register(parent, ctx);
  const added = parent.commands.slice(before);
  if (added.length !== 1) throw new Error(`the module of ${parent.name()} ${name} registered ${added.length} commands, not one`);
  added[0]!.name(name);
}

const ORDER = [...Object.keys(COMMANDS), ...Object.keys(GROUPS)];

function sortCommands(program: Command): void {
  const rank = (c: Command) => ORDER.indexOf(c.name());
  (program.commands as Command[]).sort((a, b) => rank(a) - rank(b));
  for (const [name, group] of Object.entries(GROUPS)) {
    const parent = program.commands.find((c) => c.name() === name);
    const subs = Object.keys(group.commands);
    if (parent) (parent.commands as Command[]).sort((a, b) => subs.indexOf(a.name()) - subs.indexOf(b.name()));
  }
}

/** The commands that run something (a group's own command only lists its subcommands). */
export function leafCommands(program: Command): Command[] {
  return program.commands.flatMap((c) => (c.commands.length > 0 ? c.commands.filter((s) => s.name() !== 'help') : [c]));
}

/** Whether `argv` asks for quiet output (no notice on stderr). */
function quietRequested(argv: readonly string[]): boolean {
  const i = argv.indexOf('--');
  return (i < 0 ? argv : argv.slice(0, i)).some((a) => a === '-q' || a === '--quiet');
}

/** Runs the CLI with `argv` (as process.argv) and resolves to the exit code; `io` is where it prints (default: the process's). */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const ctx = new CliContext(io);
  const json = jsonRequested(argv);
  const canonical = canonicalArgv(argv);
  // For a person at a terminal only: a script's stderr (and a test's) stays byte for byte what it was.
  if (canonical.former && io.stderr.isTTY && !json && !quietRequested(argv)) {
    ctx.printError(`navkernel: "navkernel ${inLine(canonical.former)}" is now "navkernel ${FORMER_SPELLINGS[canonical.former]} ${inLine(canonical.former)}"; the old spelling goes in a later release\n`);
  }
  try {
    const program = await buildProgram(canonical.argv, ctx);
    await program.parseAsync(canonical.argv);
    return ctx.exitCode ?? 0;
  } catch (err) {
    const words = commandWords(canonical.argv);
    const known = words.length > 0 && (words[0]! in COMMANDS || words[0]! in GROUPS);
    const hint = err instanceof CommanderError ? `see navkernel ${known ? `${words.join(' ')} ` : ''}--help` : undefined;
    return reportError(err, { json, ctx, ...(hint ? { hint } : {}) });
  }
}
