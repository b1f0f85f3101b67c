import { describe, expect, it } from 'vitest';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A C library whose changelog and README repeat an issue's words in every entry, beside a long source file where
// the fix goes: the lines shared out by relevance squared went mostly to the prose files ranked beside the source,
// and the long file got too few windows to reach the function the fix changes. Fails with NAVKERNEL_ABLATE=c-line-shares.
const fn = (i: number) =>
  `/* Step ${i} of reading a document. */\nstatic int read_step${i}(reader *r, const char *p) {\n  if (!p) return -${i};\n  r->depth += ${i}; /* nesting depth of the document */\n  return r->depth > ${i * 3} ? 1 : 0;\n}\n`;
const SOURCE =
  '#include "reader.h"\n' +
  Array.from({ length: 40 }, (_, i) => fn(i)).join('') +
  '/* Reads a nested array of a document; the depth of nesting is bounded. */\nstatic int read_nested_array(reader *r, const char *p) {\n  if (r->depth > MAX_NESTING_DEPTH) return ERROR_NESTING;\n  r->depth++;\n  return read_value(r, p);\n}\n' +
  Array.from({ length: 40 }, (_, i) => fn(40 + i)).join('');
const REPO = {
  'src/reader.c': SOURCE,
  'src/reader.h': '#pragma once\n#define MAX_NESTING_DEPTH 1000\ntypedef struct reader { int depth; } reader;\nint read_value(reader *r, const char *p);\n',
  'CHANGELOG.md': Array.from({ length: 300 }, (_, i) => `* 1.${i}: nested array depth of nesting overflow fixed in a document reader (#${100 + i})\n`).join(''),
  'README.md': Array.from({ length: 300 }, (_, i) => `Nested arrays: the depth of nesting of an array in a document is limited, note ${i}.\n`).join(''),
  'docs/limits.md': Array.from({ length: 300 }, (_, i) => `Limit ${i}: a document's nested arrays are read to a nesting depth of at most ${i} levels.\n`).join(''),
  'docs/faq.md': Array.from({ length: 300 }, (_, i) => `Question ${i}: why does reading a document with deeply nested arrays stop at a depth of nesting?\n`).join(''),
  ...filler('src/enc', 'c', 200, (i) => `/* Encoding ${i}: the length of a character, counted from its first byte and checked against the end of the input. */\nint enc${i}_length(const unsigned char *p) { return p[0] > ${i} ? 2 : 1; }\n`),
};

describe('lines of a C project go to its C files (c-line-shares)', () => {
  it('a changelog, a README and two manual pages picked beside the source get their windows, the long source file most of the lines', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, 'Stack overflow on a deeply nested array: the depth of nesting of arrays is not bounded when reading a document');
    const shown = new Map(outcome.artifacts.context_load_receipt.files_loaded.map((f) => [f.path, f.lines_shown ?? 0]));
    expect(files).toContain('src/reader.c');
    const prose = ['CHANGELOG.md', 'README.md', 'docs/limits.md', 'docs/faq.md'].reduce((s, p) => s + (shown.get(p) ?? 0), 0);
    expect(prose).toBeGreaterThan(0);
    // With the switch off the four prose files took 173 lines to the source's 223; with it, 139 to 257.
    expect(shown.get('src/reader.c')!).toBeGreaterThan(1.5 * prose);
  });
});
