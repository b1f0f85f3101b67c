import { describe, expect, it } from 'vitest';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A small scripting language in C. Its string library registers each builtin under the name a script calls it by
// (`{"gmatch", str_iterate}`): the function doing the work is spelt nowhere as `gmatch`. The library has many other
// functions that speak of patterns, matches and captures, so the words alone do not find the iterator.
const helper = (i: number) =>
  `/* Pattern helper ${i}: match a capture of the pattern against the subject string. */\nstatic int pattern_step_${i} (MatchState *ms, const char *s, const char *p) {\n  int level = ms->level + ${i};\n  if (s == ms->src_end) return 0;  /* end of subject: no match */\n  if (*p == '%') return capture_at(ms, level, s);\n  ms->matchdepth--;\n  return level;\n}\n\n`;
const strlib =
  `#include <string.h>\n#include "lstate.h"\n\n` +
  Array.from({ length: 30 }, (_, i) => helper(i)).join('') +
  `/* Iterator over successive matches of a pattern in a string. */\nstatic int iterate_aux (lua_State *L) {\n  GState *gm = (GState *)lua_touserdata(L, lua_upvalueindex(3));\n  const char *src;\n  for (src = gm->src; src <= gm->ms.src_end; src++) {\n    const char *e;\n    reprepstate(&gm->ms);\n    if ((e = do_match(&gm->ms, src, gm->p)) != NULL && e != gm->lastmatch) {\n      gm->src = gm->lastmatch = e;\n      return push_captures(&gm->ms, src, e);\n    }\n  }\n  return 0;  /* not found */\n}\n\n` +
  `static int str_iterate (lua_State *L) {\n  size_t ls, lp;\n  const char *s = luaL_checklstring(L, 1, &ls);\n  const char *p = luaL_checklstring(L, 2, &lp);\n  GState *gm;\n  lua_settop(L, 2);\n  gm = (GState *)lua_newuserdatauv(L, sizeof(GState), 0);\n  prepstate(&gm->ms, L, s, ls, p, lp);\n  gm->src = s; gm->p = p; gm->lastmatch = NULL;\n  lua_pushcclosure(L, iterate_aux, 3);\n  return 1;\n}\n\n` +
  `static int str_find (lua_State *L) {\n  return str_find_aux(L, 1);  /* first match of the pattern in the string */\n}\n\n` +
  `static const luaL_Reg strlib[] = {\n  {"find", str_find},\n  {"gmatch", str_iterate},\n  {NULL, NULL}\n};\n`;

// A command-line tool: getopt's long options pair each spelling with a character that a long switch in main handles.
const cases = Array.from({ length: 26 }, (_, i) => `      case '${String.fromCharCode(65 + i)}':\n        opts.level${i} = atoi(optarg);  /* set the level of option ${i} */\n        if (opts.level${i} < 0)\n          opts.level${i} = 0;\n        opts.changed++;\n        break;\n`).join('');
const mainC =
  `#include <getopt.h>\n#include <stdio.h>\n#include "opts.h"\n\nstatic struct option long_options[] = {\n  {"count", no_argument, NULL, 'c'},\n  {"quiet", no_argument, NULL, 'q'},\n  {"output", required_argument, NULL, 'o'},\n  {NULL, 0, NULL, 0}\n};\n\n` +
  `int main (int argc, char **argv) {\n  struct opts opts = {0};\n  int ch;\n  while ((ch = getopt_long(argc, argv, "cqo:ABCDEFGHIJKLMNOPQRSTUVWXYZ", long_options, NULL)) != -1) {\n    switch (ch) {\n      case 'q':\n        opts.silent = 1;\n        break;\n${cases}      case 'c':\n        opts.count = 1;\n        break;\n      case 'o':\n        opts.output = optarg;\n        break;\n      default:\n        usage();\n    }\n  }\n  return run(&opts);\n}\n`;
const report = `#include <stdio.h>\n#include "opts.h"\n\n/* Prints the report of the matches: nothing is printed when the output should stay quiet. */\nint print_report (struct opts *o, int matches) {\n  if (o->silent) return 0;  /* quiet: no output */\n  printf("%d matches\\n", matches);\n  return 0;\n}\n\n/* Prints a warning on standard error unless quiet. */\nvoid warn (struct opts *o, const char *msg) {\n  if (o->silent) return;\n  fprintf(stderr, "warning: %s\\n", msg);\n}\n`;

const REPO = {
  'src/lstrlib.c': strlib,
  'src/lstate.h': '#ifndef lstate_h\n#define lstate_h\ntypedef struct MatchState { const char *src_end; int level; int matchdepth; } MatchState;\ntypedef struct GState { const char *src; const char *p; const char *lastmatch; MatchState ms; } GState;\n#endif\n',
  'src/lpattern.c': '#include "lstate.h"\n\n/* Matches the pattern against the subject: an empty match at the end of the subject is a match. */\nconst char *do_match (MatchState *ms, const char *s, const char *p) {\n  if (s == ms->src_end) return s;  /* empty match at the end */\n  return match_class(ms, s, p);\n}\n',
  'tools/main.c': mainC,
  'tools/report.c': report,
  'tools/opts.h': 'struct opts { int count; int silent; const char *output; };\n',
  ...filler('lib', 'c', 8, (i) => `#include "lstate.h"\n\n/* Library part ${i}: strings and numbers. */\nint lib_part${i} (int n) {\n  return n + ${i};\n}\n`),
};

const shown = (outcome: Awaited<ReturnType<typeof loadedFiles>>['outcome'], file: string): [number, number][] =>
  outcome.artifacts.context_load_receipt.files_loaded.find((f) => f.path === file)?.ranges ?? [];
const lineOf = (text: string, needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length;
const covers = (ranges: [number, number][], line: number): boolean => ranges.some(([a, b]) => a <= line && line <= b);

describe('C registration tables (the c-tables resolver)', () => {
  it('a builtin the issue calls by its script name (`string.gmatch`) finds the C function registered under that name', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(
      root,
      'string.gmatch never stops after an empty match\n\nIterating over the matches of a pattern that can match the empty string repeats the last match:\n\n```lua\nfor w in string.gmatch("abc", "%a*") do print(w) end\n```\nprints `abc` and then an empty match forever.',
    );
    expect(files[0]).toBe('src/lstrlib.c');
    expect(covers(shown(outcome, 'src/lstrlib.c'), lineOf(strlib, 'static int str_iterate'))).toBe(true);
    const why = outcome.artifacts.context_load_receipt.definitions?.find((d) => d.symbol === 'str_iterate')?.evidence ?? [];
    expect(why.join(' ')).toContain('"gmatch" registered at src/lstrlib.c');
  });

  it('a long option the issue writes (`--quiet`) shows the `case` of its character in the option switch', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, 'Output is still printed with --quiet\n\nRunning the tool with `--quiet` still prints the warnings to standard error.', { max_lines: 120 });
    expect(files).toContain('tools/main.c');
    expect(covers(shown(outcome, 'tools/main.c'), lineOf(mainC, "case 'q':"))).toBe(true);
  });
});
