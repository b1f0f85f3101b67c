import { describe, expect, it } from 'vitest';
import { extractOutline } from '../../src/repomap/index.js';
import { selectLines } from '../../src/navigator/retrieval/windows.js';
import { localCallees } from '../../src/navigator/retrieval/local-callees.js';

// A C function shown whole brings the small static helpers of its file that it calls (local-callees): our own fixture.

const filler = Array.from({ length: 30 }, (_, i) => `static int pad_${i} (int v) {\n  return v + ${i};\n}\n`).join('\n');
const SOURCE = `#include <stddef.h>

static void reset_state (struct scanner *sc, const char *src) {
  sc->level = 0;
  sc->depth = 200;
  sc->src = src;
}

static int huge_helper (struct scanner *sc) {
${Array.from({ length: 30 }, (_, i) => `  sc->level += ${i};`).join('\n')}
  return sc->level;
}

${filler}
int tokenize_stream (struct scanner *sc, const char *src) {
  reset_state(sc, src);
  huge_helper(sc);
  return tokenize_next(sc);
}
`;

const WEIGHTS = new Map([
  ['tokenize', 3],
  ['stream', 3],
]);

describe('local callees (C)', () => {
  it('shows a small static helper the chosen function calls, but not a large one', async () => {
    const { defs } = await extractOutline('c', SOURCE);
    const lines = SOURCE.split('\n');
    const caller = defs.find((d) => d.name === 'tokenize_stream')!;
    expect(localCallees(caller, defs, lines, 'c').map((d) => d.name)).toEqual(['reset_state']);
    const sel = selectLines(SOURCE, defs, WEIGHTS, 60, [], 'c');
    for (let l = caller.start; l <= caller.end; l++) expect(sel.lines).toContain(l);
    for (let l = 3; l <= 7; l++) expect(sel.lines).toContain(l); // reset_state, whole
    expect(sel.lines).not.toContain(20); // inside huge_helper
    expect(localCallees(caller, defs, lines, 'go')).toEqual([]);
  });
});
