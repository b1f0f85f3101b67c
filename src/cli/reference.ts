// The CLI described from its own command definitions: the reference in docs/cli.md and the shell completions
// are both generated from the commander program, so neither can drift from what the commands accept.
import type { Command, Option } from 'commander';
import { packageRoot } from '../package-root.js';

/** One option as the docs and completions show it. */
export interface OptionInfo {
  flags: string;
  long?: string;
  short?: string;
  description: string;
  default?: string;
  choices?: readonly string[];
  takesValue: boolean;
}

/** One command as the docs and completions show it. */
export interface CommandInfo {
  name: string;
  usage: string;
  description: string;
  options: OptionInfo[];
}

/** A default as it reads in docs: the package's own folder shown as `<navkernel>`, so docs do not depend on the machine. */
function shownDefault(v: unknown): string | undefined {
  if (v === undefined || v === false) return undefined;
  const text = Array.isArray(v) ? v.join(', ') : String(v);
  return text.split(packageRoot()).join('<navkernel>');
}

function optionInfo(o: Option): OptionInfo {
  const d = o.negate ? undefined : shownDefault(o.defaultValue);
  return {
    flags: o.flags,
    ...(o.long ? { long: o.long } : {}),
    ...(o.short ? { short: o.short } : {}),
    description: o.description,
    ...(d !== undefined ? { default: d } : {}),
    ...(o.argChoices ? { choices: o.argChoices } : {}),
    takesValue: o.required || o.optional,
  };
}

/** Every visible command of the program, sorted by name, with its options (help and hidden ones left out). */
export function describeCommands(program: Command): CommandInfo[] {
  return program.commands
    .filter((c) => c.name() !== 'help')
    .map((c) => ({
      name: c.name(),
      usage: `navkernel ${c.name()} ${c.usage()}`.trim(),
      description: c.description(),
      options: (c.options as Option[]).filter((o) => !o.hidden).map(optionInfo),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A command's subcommands (`flows diff`, `runs upgrade`), named with their parent, for the reference. */
export function describeSubcommands(program: Command, parent: string): CommandInfo[] {
  const c = program.commands.find((x) => x.name() === parent);
  return (c?.commands ?? [])
    .filter((sub) => sub.name() !== 'help')
    .map((sub) => ({
      name: `${parent} ${sub.name()}`,
      usage: `navkernel ${parent} ${sub.name()} ${sub.usage()}`.trim(),
      description: sub.description(),
      options: (sub.options as Option[]).filter((o) => !o.hidden).map(optionInfo),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** docs/cli.md. */
export function renderCliReference(program: Command, exitCodes: Record<string, number>): string {
  const commands = describeCommands(program).flatMap((c) => [c, ...describeSubcommands(program, c.name)]);
  const out = [
    '# navkernel CLI reference',
    '',
    '<!-- Generated from the command definitions by `npm run docs`; a test fails when it drifts. Do not edit by hand. -->',
    '',
    'Every command takes `--help`. Conventions (`src/cli/conventions.ts`):',
    '',
    '| exit | meaning |',
    '|---|---|',
    `| ${exitCodes.OK} | success |`,
    `| ${exitCodes.FINDING} | a finding: the command worked and found something wrong (a divergence, a broken chain, invalid files) |`,
    `| ${exitCodes.USAGE} | a usage or input error: an unknown option (one line, with a suggestion), a bad value, an unreadable or invalid input, an unknown run |`,
    '| 3+ | only where a command says so (`navigate`, `explore`) |',
    '',
    'With `--json`, everything a command prints on stdout is JSON, errors included: `{"error":{"code":"…","message":"…"}}`.',
    'Defaults come from the flag, else the environment variable named, else `navkernel.config.{json,yaml}` (or the',
    '`navkernel` key of package.json), else the built-in default shown. `navkernel completion bash|zsh|fish` prints a',
    'shell completion script.',
    '',
    '| command | what it does |',
    '|---|---|',
    ...commands.map((c) => `| [\`${c.name}\`](#navkernel-${c.name.replace(/ /g, '-')}) | ${cell(c.description)} |`),
  ];
  for (const c of commands) {
    out.push('', `## navkernel ${c.name}`, '', cell(c.description), '', '```', c.usage, '```');
    if (c.options.length) {
      out.push('', '| option | meaning | default |', '|---|---|---|');
      for (const o of c.options) {
        const choices = o.choices ? ` (one of: ${o.choices.join(', ')})` : '';
        out.push(`| \`${cell(o.flags)}\` | ${cell(o.description)}${choices} | ${o.default !== undefined ? `\`${cell(o.default)}\`` : ''} |`);
      }
    }
  }
  return out.join('\n') + '\n';
}
