import { describe, expect, it } from 'vitest';
import { commandLineWords } from '../../src/navigator/retrieval/evidence/c-command-lines.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A version-control tool in C whose subcommands are dispatched through a table (`{ "bundle", cmd_bundle }`), each
// implemented in a file of its own that the report's words do not name. The report pastes the command it ran:
// `$ vcs bundle -o out.pack main`. Every command speaks of output, packs and branches, so the words alone do not
// find the one that the command line runs. Fails with NAVKERNEL_ABLATE=c-command-lines (the switch is read at start).
const command = (name: string) =>
  `#include "cache.h"\n\n/* Writes the output of the ${name} command: the objects of a branch into a pack file. */\nint cmd_${name.replace(/-/g, '_')} (int argc, const char **argv) {\n  const char *output = argc > 1 ? argv[1] : "out.pack";\n  struct pack *pack = open_pack(output);  /* the output pack of the branch */\n  if (!pack)\n    return error("cannot write the output pack %s", output);\n  write_branch(pack, argv[2]);\n  return close_pack(pack);\n}\n`;
const NAMES = ['bundle', 'repack', 'fetch-pack', 'send-pack', 'index-pack', 'pack-objects', 'unpack', 'archive-pack'];
const mainC =
  `#include "cache.h"\n\n${NAMES.map((n) => `int cmd_${n.replace(/-/g, '_')} (int argc, const char **argv);`).join('\n')}\n\nstatic struct cmd_struct commands[] = {\n${NAMES.map((n) => `  { "${n}", cmd_${n.replace(/-/g, '_')}, RUN_SETUP },`).join('\n')}\n};\n\nint main (int argc, const char **argv) {\n  return run_command(commands, argc, argv);\n}\n`;

const REPO: Record<string, string> = {
  'main.c': mainC,
  'cache.h': 'struct pack;\nstruct pack *open_pack (const char *path);\nint error (const char *fmt, ...);\n',
  ...Object.fromEntries(NAMES.map((n) => [`builtin/${n}.c`, command(n)])),
  ...filler('lib', 'c', 6, (i) => `#include "cache.h"\n\n/* Pack helper ${i}: the output of a branch. */\nint pack_part${i} (int n) {\n  return n + ${i};\n}\n`),
};

const TASK =
  'The output file is empty when a branch name is given\n\nRunning\n\n    $ vcs bundle -o out.pack main\n\nwrites an empty pack, while the same command without the branch writes every object.';

describe('C command lines (the c-command-lines evidence)', () => {
  it("reads a prompt line's subcommand, after assignments and `--opt=value` options, when the lines run one subcommand only", () => {
    const seg = (text: string) => [{ kind: 'code' as const, text }];
    expect(commandLineWords(seg('$ vcs bundle -o out.pack main\n'))).toEqual(['bundle']);
    expect(commandLineWords(seg('  $ LANG=C vcs --git-dir=x fetch-pack --all\n'))).toEqual(['fetch-pack']);
    expect(commandLineWords(seg('$ vcs -v\n$ ./configure\nvcs bundle x\n'))).toEqual([]);
    // A session of several subcommands sets a scene; it does not say which one fails.
    expect(commandLineWords(seg('$ vcs init\n$ vcs tag -a v1\n$ vcs show v1\n'))).toEqual([]);
    expect(commandLineWords(seg('$ vcs show v1\n$ vcs --no-pager show v1\n$ vcs show v2\n'))).toEqual(['show']);
  });

  it("a pasted command line finds the subcommand's function through the dispatch table", async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, TASK);
    expect(files.slice(0, 2)).toContain('builtin/bundle.c');
    const why = outcome.artifacts.context_load_receipt.definitions?.find((d) => d.symbol === 'cmd_bundle')?.evidence ?? [];
    expect(why.join(' ')).toContain('"bundle" registered at main.c');
  });
});
