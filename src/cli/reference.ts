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

/** Every visible command of the program that runs something, sorted by name: `route`, `runs replay`, … (a group's
 * own command, `help` and hidden commands left out), with its options (hidden ones left out). */
export function describeCommands(program: Command): CommandInfo[] {
  const leaves = (c: Command, prefix: string): CommandInfo[] =>
    c.commands
      .filter((s) => s.name() !== 'help' && !(s as Command & { _hidden?: boolean })._hidden)
      .flatMap((s) =>
        s.commands.length > 0
          ? leaves(s, `${prefix}${s.name()} `)
          : [{ name: `${prefix}${s.name()}`, usage: `navkernel ${prefix}${s.name()} ${s.usage()}`.trim(), description: s.description(), options: (s.options as Option[]).filter((o) => !o.hidden).map(optionInfo) }],
      );
  return leaves(program, '').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The noun groups of the program and their commands (`runs` → list, replay, …), for completions. */
export function describeGroups(program: Command): { name: string; description: string; commands: string[] }[] {
  return program.commands
    .filter((c) => c.commands.length > 0)
    .map((c) => ({ name: c.name(), description: c.description(), commands: c.commands.filter((s) => s.name() !== 'help').map((s) => s.name()) }));
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** docs/cli.md. */
export function renderCliReference(program: Command, exitCodes: Record<string, number>): string {
  const commands = describeCommands(program);
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
    'shell completion script. Commands about one thing stand under its noun: `navkernel runs …`, `navkernel ledger …`,',
    '`navkernel flows …` (the former one-word spellings, `navkernel replay`, `navkernel verify`, …, still work for a release).',
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
