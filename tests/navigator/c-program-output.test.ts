import { describe, expect, it } from 'vitest';
import { programOutputMessages } from '../../src/navigator/retrieval/evidence/c-program-output.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A version-control tool in C. Every command speaks of references, locks and repositories, so the words of a report
// alone do not find the one place that prints the message it pastes: `die("cannot lock ref '%s': %s", …)` in
// refs.c. The report pastes the tool's output line, `fatal: cannot lock ref 'refs/heads/main': File exists`.
// Fails with NAVKERNEL_ABLATE=c-program-output (the `fatal:` line is then read as words only; the switch is read at start).
const command = (i: number) =>
  `#include "cache.h"\n#include "refs.h"\n\n/* Command ${i}: update the references of the repository, taking the lock of each ref first. */\nint cmd_update${i} (int argc, const char **argv) {\n  struct ref_lock *lock = lock_ref(argv[1]);\n  if (!lock)\n    return error("could not update the reference %s of the repository", argv[1]);\n  write_ref(lock, argv[2]);  /* the ref file of the repository */\n  return commit_ref(lock);\n}\n`;
const refsC =
  `#include "cache.h"\n#include "refs.h"\n\n` +
  Array.from({ length: 12 }, (_, i) => `/* Reads part ${i} of a reference. */\nstatic int read_part${i} (const char *name, char *buf) {\n  int n = strlen(name) + ${i};\n  if (n > 255) return -1;\n  memcpy(buf, name, n);\n  return n;\n}\n\n`).join('') +
  `struct ref_lock *lock_ref (const char *name) {\n  struct ref_lock *lock = xcalloc(1, sizeof(*lock));\n  lock->fd = open(mkpath("%s.lock", name), O_CREAT | O_EXCL | O_WRONLY, 0666);\n  if (lock->fd < 0)\n    die("cannot lock ref '%s': %s", name, strerror(errno));\n  return lock;\n}\n`;

const REPO = {
  'refs.c': refsC,
  'refs.h': 'struct ref_lock { int fd; };\nstruct ref_lock *lock_ref (const char *name);\n',
  'cache.h': '#include <string.h>\n#include <errno.h>\nvoid die (const char *fmt, ...);\nint error (const char *fmt, ...);\n',
  'usage.c': '#include "cache.h"\n\n/* Prints a fatal message for the repository and exits. */\nvoid die (const char *fmt, ...) {\n  fputs("fatal: ", stderr);\n  exit(128);\n}\n',
  ...filler('builtin', 'c', 14, command),
};

const TASK =
  'Updating a branch fails after an interrupted run\n\nAfter killing the tool while it updated a branch, every later update of the same branch fails:\n\n    $ tool update main HEAD\n    fatal: cannot lock ref \'refs/heads/main\': File exists\n\nThe repository should be usable again without removing files by hand.';

describe('C program output (the c-program-output evidence)', () => {
  it('reads `fatal:`, `prog: error (context):` and `prog: (N)` lines, and no prose', () => {
    expect(programOutputMessages("    $ tool x\n    fatal: cannot lock ref 'a': File exists\n")).toEqual(["cannot lock ref 'a': File exists"]);
    expect(programOutputMessages('jx: error (at <stdin>:3): Cannot index number with "foo"\ncurlish: (6) Could not resolve host: nowhere\n')).toEqual([
      'Cannot index number with "foo"',
      'Could not resolve host: nowhere',
    ]);
    expect(programOutputMessages('The tool says it is fatal: nothing works at all.\n')).toEqual([]);
  });

  it('a pasted `fatal:` line finds the function that prints it with placeholders, and shows the line', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, TASK, { max_lines: 60 });
    expect(files.slice(0, 2)).toContain('refs.c');
    const why = outcome.artifacts.context_load_receipt.definitions?.find((d) => d.symbol === 'lock_ref')?.evidence ?? [];
    expect(why.join(' ')).toContain('message "cannot lock ref');
    const ranges = outcome.artifacts.context_load_receipt.files_loaded.find((f) => f.path === 'refs.c')?.ranges ?? [];
    const dieLine = refsC.slice(0, refsC.indexOf('die("cannot lock')).split('\n').length;
    expect(ranges.some(([a, b]) => a <= dieLine && dieLine <= b)).toBe(true);
  });
});
