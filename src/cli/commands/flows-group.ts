import type { Command } from 'commander';

/**
 * The `flows` noun group (`navkernel flows diff|what-if`), created by the first module that adds to it. The cli
 * helper's noun groups replace this at merge; the subcommands themselves are plain functions in their own modules.
 */
export function flowsGroup(program: Command): Command {
  // Positional options: a flag after `flows diff` belongs to diff, not to the group (which takes --json too).
  return (
    program.commands.find((c) => c.name() === 'flows') ??
    program.command('flows').description('Change flows safely: see what a change does to runs in flight (diff) and to every recorded decision (what-if)').enablePositionalOptions()
  );
}
