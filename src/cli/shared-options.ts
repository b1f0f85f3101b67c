// The options that mean one thing on every command that takes them, defined here once so a concept has one flag
// everywhere (docs/cli-conventions.md, "One flag per concept"):
//
//   --llm SPEC          the model (tier 3's arbiter, or the explorer's)
//   --budget-usd USD    a budget in US dollars
//   --budget-tokens N   a budget in tokens
//   --llm-timeout-ms MS a model call's time limit
//   --token TOKEN       a bearer token, and nothing else
//   --principals FILE   the principals file (names, scopes, token hashes)
//   --task TEXT         the task a navigation or an exploration is for
//   -o, --out PATH      where a command writes its output instead of stdout
//   --json              print the output as JSON (where it has no JSON form: errors as the JSON error line)
//
// A flag renamed to one of these keeps its former name for a release, hidden from help: `addFormerFlag`.
import { Option, type Command } from 'commander';

/** What `--llm` takes (every command that asks a model). */
export const LLM_SPEC_HELP = 'anthropic[:MODEL] | gemini[:MODEL] | a model name (claude-…, gemini-…: the provider is inferred) | scripted:FILE (keys from ANTHROPIC_API_KEY / GEMINI_API_KEY)';

export const sharedOption = {
  llm: (what: string, defaultValue?: string) => withDefault(new Option('--llm <spec>', `${what}: ${LLM_SPEC_HELP}`), defaultValue),
  budgetUsd: (what: string, defaultValue?: string) => withDefault(new Option('--budget-usd <usd>', what), defaultValue),
  budgetTokens: (what: string, parse?: (v: string) => number) => (parse ? new Option('--budget-tokens <n>', what).argParser(parse) : new Option('--budget-tokens <n>', what)),
  llmTimeoutMs: (what: string, defaultValue?: string) => withDefault(new Option('--llm-timeout-ms <ms>', what), defaultValue),
  token: (what: string, defaultValue?: string) => withDefault(new Option('--token <token>', what), defaultValue),
  principals: (what: string) => new Option('--principals <file>', what),
  task: (what: string) => new Option('--task <text>', what),
  out: (what: string, value = '<file>') => new Option(`-o, --out ${value}`, what),
  json: (what = 'print the output as JSON') => new Option('--json', what),
};

function withDefault(o: Option, value: string | undefined): Option {
  return value === undefined ? o : o.default(value);
}

/**
 * Adds `flags` (a former name, e.g. `--cost-limit <usd>`) to `cmd`, hidden from help and completion, setting the
 * value of the option whose attribute is `to` (`budgetUsd`): the old spelling works for a release, one concept
 * keeps one flag in the docs. Given both, the one written last wins, as with any repeated option.
 */
export function addFormerFlag(cmd: Command, flags: string, to: string): Command {
  const former = new Option(flags, `the former name of the option whose value is ${to}`).hideHelp();
  cmd.addOption(former);
  cmd.on(`option:${former.name()}`, (value: unknown) => {
    // A negation given on the line (`--no-llm`) wins over the former name, as when they were separate options.
    if (cmd.getOptionValue(to) === false && cmd.getOptionValueSource(to) === 'cli') return;
    cmd.setOptionValueWithSource(to, value, 'cli');
  });
  return cmd;
}
