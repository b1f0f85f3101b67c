import { describe, expect, it } from 'vitest';
import { buildSupportClass } from '../../src/navigator/retrieval/build-support.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A C tool in the GNU layout: its manual page (a template beside its source), release notes (NEWS), the
// autoconf macros and a release signature hold the words of a prose issue about an option as much as the code does,
// but the fix is in the code.
const MAN = `.TH "RIVET" "1" "" "" ""\n.SH NAME\nrivet \\- joins sheets\n.SH OPTIONS\n.TP\n--overlap N\nJoin sheets with an overlap of N columns; a negative overlap is rejected.\n.TP\n--seam STYLE\nThe seam style of joined sheets (overlap, butt).\n.SH EXAMPLES\nrivet --overlap 3 a.sheet b.sheet\nrivet --overlap 2 --seam butt a.sheet\n`;
const REPO = {
  'configure.ac': 'AC_INIT([rivet], [1.2])\nAC_ARG_ENABLE([overlap-check], [check the overlap of joined sheets])\nAC_OUTPUT\n',
  'm4/ax_overlap.m4': 'dnl Checks the overlap of sheets at build time\nAC_DEFUN([AX_OVERLAP], [overlap sheets seam])\n',
  'Makefile.am': 'bin_PROGRAMS = rivet\nrivet_SOURCES = src/main.c src/join.c src/seam.c\n',
  'rivet.1.in': MAN,
  'doc/rivet.1': MAN,
  NEWS: '# 1.2\n- `--overlap` joins sheets with an overlap of N columns.\n- the seam of joined sheets with a negative overlap is rejected.\n',
  'rivet-1.2.tar.gz.asc': '-----BEGIN PGP SIGNATURE-----\noverlap sheets seam\n-----END PGP SIGNATURE-----\n',
  'src/main.c': '#include "join.h"\n\nint main(int argc, char **argv) {\n  struct options o = parse_options(argc, argv);\n  return join_sheets(&o);\n}\n',
  'src/join.h': '#ifndef JOIN_H\n#define JOIN_H\nstruct options { int overlap; int seam; };\nstruct options parse_options(int argc, char **argv);\nint join_sheets(const struct options *o);\n#endif\n',
  'src/join.c':
    '#include <stdlib.h>\n#include <string.h>\n#include "join.h"\n\nstruct options parse_options(int argc, char **argv) {\n  struct options o = {0, 0};\n  for (int i = 1; i + 1 < argc; i++) {\n    if (!strcmp(argv[i], "--overlap")) o.overlap = atoi(argv[++i]);\n  }\n  return o;\n}\n\nint join_sheets(const struct options *o) {\n  return o->overlap;\n}\n',
  'src/seam.c': '#include "join.h"\n\nint seam_width(const struct options *o) {\n  return o->seam;\n}\n',
  ...filler('src/sheets', 'c', 8, (i) => `#include "../join.h"\n\nint sheet${i}_columns(int n) {\n  return n + ${i};\n}\n`),
};

describe('build support and release files of a C project (the build-support class)', () => {
  it('classes manual pages, autotools inputs, release notes and signatures by their path', () => {
    expect(buildSupportClass('jot.1')).toBe('doc');
    expect(buildSupportClass('doc/jot.8.in')).toBe('doc');
    expect(buildSupportClass('NEWS')).toBe('doc');
    expect(buildSupportClass('m4/ax_pthread.m4')).toBe('config');
    expect(buildSupportClass('configure.ac')).toBe('config');
    expect(buildSupportClass('Makefile.am')).toBe('config');
    expect(buildSupportClass('jot-1.2.tar.gz.asc')).toBe('asset');
    // A copy of a source kept under another suffix is no source of its own.
    expect(buildSupportClass('src/lexer.c.orig')).toBe('generated');
    expect(buildSupportClass('src/parser.y')).toBeUndefined();
    expect(buildSupportClass('src/join.c')).toBeUndefined();
    expect(buildSupportClass('src/builtin.jq')).toBeUndefined();
    expect(buildSupportClass('lib/v1.2/news.go')).toBeUndefined();
  });

  it('a prose issue about an option: the code that parses it first, no manual page, notes or macros above it', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, 'A negative --overlap is accepted\n\nRunning rivet --overlap -2 a.sheet b.sheet joins the sheets with a negative overlap instead of rejecting the option; the manual says a negative overlap is rejected.');
    expect(files[0]).toBe('src/join.c');
    const firstNonSource = files.findIndex((f) => !/\.[ch]$/.test(f));
    if (firstNonSource >= 0) expect(files.slice(0, firstNonSource).some((f) => f === 'src/join.c')).toBe(true);
    for (const f of ['rivet.1.in', 'doc/rivet.1', 'NEWS', 'm4/ax_overlap.m4', 'configure.ac', 'rivet-1.2.tar.gz.asc']) {
      const at = files.indexOf(f);
      if (at >= 0) expect(at).toBeGreaterThan(files.indexOf('src/join.c'));
    }
  });
});
