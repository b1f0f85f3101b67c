import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { UsageError } from '../conventions.js';
import { describeCommands, describeGroups, type CommandInfo } from '../reference.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

const words = (c: CommandInfo) => c.options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f)).join(' ');
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The words typed at the top level: top-level commands and the noun groups. */
function topWords(commands: CommandInfo[]): string[] {
  return [...new Set(commands.map((c) => c.name.split(' ')[0]!))];
}

/** The commands under each noun group (`runs` → list replay audit resolve). */
function groupsOf(commands: CommandInfo[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const c of commands) {
    const [group, sub] = c.name.split(' ');
    if (sub !== undefined) groups.set(group!, [...(groups.get(group!) ?? []), sub]);
  }
  return groups;
}

function bash(commands: CommandInfo[]): string {
  const groups = groupsOf(commands);
  return [
    '# navkernel completion for bash: eval "$(navkernel completion bash)" (or save it under bash-completion/completions)',
    '_navkernel() {',
    '  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} opts=""',
    '  if [ "$COMP_CWORD" -eq 1 ]; then',
    `    COMPREPLY=($(compgen -W ${quote(['--help', '--version', ...topWords(commands)].join(' '))} -- "$cur"))`,
    '    return',
    '  fi',
    // A noun group: its commands as the second word, then the command is both words.
    '  case "$cmd" in',
    ...[...groups].map(([g, subs]) => `    ${g}) if [ "$COMP_CWORD" -eq 2 ]; then COMPREPLY=($(compgen -W ${quote(subs.join(' '))} -- "$cur")); return; fi; cmd="$cmd ${'${COMP_WORDS[2]}'}" ;;`),
    '  esac',
    '  case "$cmd" in',
    ...commands.map((c) => `    ${quote(c.name)}) opts=${quote(`${words(c)} --help`)} ;;`),
    '  esac',
    '  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi',
    '}',
    'complete -o filenames -F _navkernel navkernel',
    '',
  ].join('\n');
}

function zsh(commands: CommandInfo[]): string {
  return ['#compdef navkernel', '# navkernel completion for zsh: eval "$(navkernel completion zsh)"', 'autoload -U +X bashcompinit && bashcompinit', bash(commands)].join('\n');
}

/**
 * The first sentence of a description, whole: up to the first `.` or `;` that ends a clause (followed by a space or
 * the end, outside parentheses), so `decisions.jsonl`, `demo (default) | harsh` and `'full' (also a power loss; an
 * fsync per route)` are kept as written.
 */
export function firstSentence(description: string): string {
  let depth = 0;
  for (let i = 0; i < description.length; i++) {
    const ch = description[i]!;
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if ((ch === '.' || ch === ';') && depth === 0 && (i + 1 === description.length || /\s/.test(description[i + 1]!))) return description.slice(0, i).trim();
  }
  return description.trim();
}

/** A fish single-quoted string: inside one, fish reads `\\` and `\'` as escapes, nothing else. */
export const fishQuote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function fish(commands: CommandInfo[], groups: { name: string; description: string }[]): string {
  const out = ['# navkernel completion for fish: navkernel completion fish > ~/.config/fish/completions/navkernel.fish', 'complete -c navkernel -f'];
  const groupNames = new Set(groups.map((g) => g.name));
  for (const g of groups) out.push(`complete -c navkernel -n __fish_use_subcommand -a ${g.name} -d ${fishQuote(firstSentence(g.description))}`);
  for (const c of commands) {
    const [first, sub] = c.name.split(' ');
    if (sub === undefined) out.push(`complete -c navkernel -n __fish_use_subcommand -a ${c.name} -d ${fishQuote(firstSentence(c.description))}`);
    else out.push(`complete -c navkernel -n ${fishQuote(`__fish_seen_subcommand_from ${first}; and not __fish_seen_subcommand_from ${[...groupsOf(commands).get(first!)!].join(' ')}`)} -a ${sub} -d ${fishQuote(firstSentence(c.description))}`);
  }
  for (const c of commands) {
    const [first, sub] = c.name.split(' ');
    const seen = sub === undefined || !groupNames.has(first!) ? `__fish_seen_subcommand_from ${c.name}` : `__fish_seen_subcommand_from ${first}; and __fish_seen_subcommand_from ${sub}`;
    for (const o of c.options) {
      const flags = [o.long ? `-l ${o.long.replace(/^--/, '')}` : '', o.short ? `-s ${o.short.replace(/^-/, '')}` : ''].filter(Boolean).join(' ');
      const value = o.choices ? ` -x -a ${fishQuote(o.choices.join(' '))}` : o.takesValue ? ' -r -F' : '';
      out.push(`complete -c navkernel -n ${fishQuote(seen)} ${flags}${value} -d ${fishQuote(firstSentence(o.description))}`);
    }
  }
  return out.join('\n') + '\n';
}

/**
 * `navkernel completion bash|zsh|fish`: a completion script built from the command definitions. `fullProgram` builds
 * the program with every command loaded (the CLI's entry passes it, so this module never imports the entry).
 */
export function registerCompletionCommand(program: Command, ctx: CliContext, fullProgram: () => Promise<Command>): void {
  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh or fish) for every command and option')
    .argument('<shell>', 'bash, zsh or fish')
    .option('--json', 'print the commands and options the script completes, as JSON')
    .addHelpText('after', '\nExamples:\n  eval "$(navkernel completion bash)"\n  navkernel completion fish > ~/.config/fish/completions/navkernel.fish')
    .action(async (shell: string, opts: { json?: boolean }) => {
      if (!SHELLS.includes(shell as Shell)) throw new UsageError(`unknown shell ${JSON.stringify(shell)} (expected bash, zsh or fish)`);
      // The full program, every command loaded: the script must know them all.
      const program = await fullProgram();
      const commands = describeCommands(program);
      if (opts.json) {
        ctx.write(JSON.stringify({ shell, commands: commands.map((c) => ({ name: c.name, options: c.options.map((o) => o.long ?? o.short) })) }) + '\n');
        return;
      }
      ctx.write(shell === 'bash' ? bash(commands) : shell === 'zsh' ? zsh(commands) : fish(commands, describeGroups(program)));
    });
}
