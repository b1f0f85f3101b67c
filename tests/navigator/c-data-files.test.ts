import { describe, expect, it } from 'vitest';
import { cDataFileClass } from '../../src/navigator/retrieval/c-data-files.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A C regular-expression library with what grows around such a project: a fuzzer's dictionary of pattern tokens,
// a static analyser's settings per test program, and a manual in a typesetting source. Each repeats the words of
// an issue about a pattern's escapes (the dictionary lists every escape; the manual explains each one) far more
// often than the parser, where such a fix goes.
const ESCAPES = ['\\\\x', '\\\\u', '\\\\p', '\\\\d', '\\\\w', '\\\\s', '\\\\b'];
const REPO = {
  'src/regparse.c':
    '#include "regint.h"\n/* Reads a pattern escape sequence: hex escapes and unicode escapes of a pattern. */\n' +
    'static int fetch_escape(const char *p, const char *end, int *code) {\n  if (p >= end) return ERR_END_PATTERN_AT_ESCAPE;\n  switch (*p) {\n  case \'x\': return read_hex(p + 1, end, code);\n  case \'u\': return read_unicode(p + 1, end, code);\n  }\n  return 0;\n}\n',
  'src/regexec.c': '#include "regint.h"\n/* Runs a compiled program over the subject string. */\nint match_at(const char *s, const char *end) { return run_ops(s, end); }\n',
  'src/regint.h': '#pragma once\n#define ERR_END_PATTERN_AT_ESCAPE -104\nint read_hex(const char *p, const char *end, int *code);\nint read_unicode(const char *p, const char *end, int *code);\n',
  'harnesses/pattern.dict': Array.from({ length: 20 }, (_, i) => `"${ESCAPES[i % ESCAPES.length]}" # escape token of a pattern: hex escape, unicode escape at the end of a pattern\n`).join(''),
  'tis-ci/escape_pattern.config': '{ "name": "escape pattern at end", "files": ["src/regparse.c"], "comment": "pattern escape hex unicode escape terminating a pattern" }\n',
  'manual/manual.of': Array.from({ length: 10 }, () => '@sect{Escapes in a pattern} A hex escape or a unicode escape at the end of a pattern is an error; a terminating escape\n').join(''),
  ...filler('src/enc', 'c', 80, (i) => `/* Encoding ${i}: the length of a character. */\nint enc${i}_length(const unsigned char *p) { return p[0] > ${i} ? 2 : 1; }\n`),
};

describe('files of no code in a C or C++ repository (the c-data-files class)', () => {
  it('classes a file with an extension no language knows, or none, as config', () => {
    expect(cDataFileClass('harnesses/pattern.dict')).toBe('config');
    expect(cDataFileClass('tis.config')).toBe('config');
    expect(cDataFileClass('manual/manual.of')).toBe('config');
    expect(cDataFileClass('fuzz/inputs/test4')).toBe('config');
    expect(cDataFileClass('Doxyfile')).toBe('config');
    // Code of any language, and the C world's code kinds without a family, stay as they are.
    expect(cDataFileClass('src/regparse.c')).toBeUndefined();
    expect(cDataFileClass('include/x/detail/lexer.hpp')).toBeUndefined();
    expect(cDataFileClass('src/opcodes.def')).toBeUndefined();
    expect(cDataFileClass('src/parse.y')).toBeUndefined();
    expect(cDataFileClass('scripts/gen.py')).toBeUndefined();
  });

  it('an issue about an escape at the end of a pattern: the parser and its header before the dictionary, the analyser settings and the manual', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, 'fix: a hex escape or a unicode escape terminating a pattern shall be an error\n\nA pattern ending in an escape such as a hex escape or a unicode escape is accepted instead of giving an error.');
    const first = (p: string) => (files.includes(p) ? files.indexOf(p) : 99);
    expect(files.slice(0, 2)).toContain('src/regparse.c');
    for (const p of ['harnesses/pattern.dict', 'tis-ci/escape_pattern.config', 'manual/manual.of']) expect(first(p)).toBeGreaterThan(first('src/regparse.c'));
  });

  it('a Python package with a few C extension modules keeps its path classes (its code is mostly not C)', async () => {
    const root = writeRepo({ ...REPO, ...filler('pkg/mods', 'py', 120, (i) => `# Module ${i} of the package.\ndef part${i}(n):\n    return n + ${i}\n`) });
    const { files } = await loadedFiles(root, 'fix: a hex escape or a unicode escape terminating a pattern shall be an error\n\nA pattern ending in an escape such as a hex escape or a unicode escape is accepted instead of giving an error.');
    expect(files[0]).toBe('manual/manual.of');
  });
});
