import { describe, expect, it } from 'vitest';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A URL library in C. The report quotes the one statement it blames, `u->query = copy_bytes(query, qlen + 1);`, in
// backticks; the parser is long and every part of it speaks of URLs, queries and lengths, so the words alone land on
// other windows. Fails with NAVKERNEL_ABLATE=c-code-lines (the switch is read at start).
const step = (i: number) => `  /* step ${i}: check the length of the url part and the query */\n  if (len > ${i * 10} && url[${i}] == '?')\n    qlen += ${i};\n`;
const parseC =
  `#include "url.h"\n\n/* Parses a url into its parts: scheme, host, path and query. */\nint parse_url (struct url *u, const char *url, size_t len) {\n  const char *query = url;\n  size_t qlen = 0;\n` +
  Array.from({ length: 40 }, (_, i) => step(i)).join('') +
  `  u->query = copy_bytes(query, qlen + 1);\n  if (!u->query)\n    return URL_OUT_OF_MEMORY;\n` +
  Array.from({ length: 40 }, (_, i) => step(i + 40)).join('') +
  `  return URL_OK;\n}\n`;
const REPO = {
  'lib/parse.c': parseC,
  'lib/url.h': 'struct url { char *query; char *path; };\nchar *copy_bytes (const char *p, size_t n);\n',
  'lib/copy.c': '#include "url.h"\n\n/* Copies n bytes of a url part. */\nchar *copy_bytes (const char *p, size_t n) {\n  char *q = malloc(n);\n  if (q) memcpy(q, p, n);\n  return q;\n}\n',
  ...filler('lib', 'c', 8, (i) => `#include "url.h"\n\n/* Url part ${i}: the length of the query of a url. */\nint url_part${i} (struct url *u, size_t len) {\n  return (int)len + ${i};\n}\n`),
};
const TASK = 'Heap overflow when parsing a URL with a query\n\n`u->query = copy_bytes(query, qlen + 1);` reads one byte past the end of the url when the query is the last part of it.';

describe('C code lines (the c-code-lines evidence)', () => {
  it('a statement the report quotes shows the line where the code has it', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, TASK, { max_lines: 40 });
    expect(files[0]).toBe('lib/parse.c');
    const ranges = outcome.artifacts.context_load_receipt.files_loaded.find((f) => f.path === 'lib/parse.c')?.ranges ?? [];
    const at = parseC.slice(0, parseC.indexOf('u->query = copy_bytes')).split('\n').length;
    expect(ranges.some(([a, b]) => a <= at && at <= b)).toBe(true);
    const why = outcome.artifacts.context_load_receipt.definitions?.find((d) => d.symbol === 'parse_url')?.evidence ?? [];
    expect(why.join(' ')).toContain(`code "u->query = copy_bytes(query, qlen + 1);" at line ${at}`);
  });
});
