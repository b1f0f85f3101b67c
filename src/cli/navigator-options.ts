import { InvalidArgumentError, type Command } from 'commander';
import { sharedOption } from './shared-options.js';

/** The navigator's budget and cache flags, as commander gives them (`navigate`, `mcp`). */
export interface NavigatorCliOptions {
  maxFiles?: number;
  maxLines?: number;
  maxToolCalls?: number;
  budgetTokens?: number;
  registry?: string;
  cacheDir?: string;
  /** False with `--no-cache`. */
  cache: boolean;
}

const positiveInt = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive integer');
  return n;
};

/** Adds `--max-files`, `--max-lines`, `--max-tool-calls`, `--budget-tokens`, `--registry`, `--cache-dir` and `--no-cache`. */
export function addNavigatorOptions(cmd: Command): Command {
  return cmd
    .option('--max-files <n>', 'BUDGET.max_files (default 8)', positiveInt)
    .option('--max-lines <n>', 'BUDGET.max_lines, lines shown in the context (default 400)', positiveInt)
    .option('--max-tool-calls <n>', 'BUDGET.max_tool_calls (default 30)', positiveInt)
    .addOption(sharedOption.budgetTokens('token budget of the loaded context (default 8000)', positiveInt))
    .option('--registry <file>', "a magic-words.jsonl tier registry (default: the repo's own, or one built from the repo)")
    .option('--cache-dir <dir>', 'index/registry cache (default <run-base>/.cache)')
    .option('--no-cache', 'do not read or write the cache');
}
