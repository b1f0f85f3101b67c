import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LINE_TERMS_MAX_CHARS, lineTerms, textLineTerms } from '../../src/navigator/terms.js';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('the terms of every line of a text, worked out once (textLineTerms)', () => {
  it('filtered by a task\'s words, gives each line\'s lineTerms filtered by them, in order and with repeats, on real files', () => {
    for (const rel of ['../../src/navigator/windows.ts', '../../src/repomap/python-outline.ts', '../../README.md']) {
      const text = readFileSync(path.join(here, rel), 'utf8') + `\n${'x_'.repeat(LINE_TERMS_MAX_CHARS)}\n`;
      const lines = text.split('\n');
      const per = textLineTerms(text, lines);
      const all = lines.flatMap((l) => lineTerms(l));
      // Every third distinct term is "wanted", as a task's weights would be.
      const wanted = new Set([...new Set(all)].filter((_, i) => i % 3 === 0));
      lines.forEach((line, i) => {
        const expected = line.length > LINE_TERMS_MAX_CHARS ? [] : lineTerms(line).filter((t) => wanted.has(t));
        expect((per[i] ?? []).filter((t) => wanted.has(t))).toEqual(expected);
      });
      // The second call on the same text answers from the memo.
      expect(textLineTerms(text, lines)).toBe(per);
    }
  });
});
