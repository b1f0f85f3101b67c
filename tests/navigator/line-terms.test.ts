import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { LINE_TERMS_MAX_CHARS, lineTerms, textLineTerms } from '../../src/navigator/retrieval/terms.js';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('the terms of every line of a text, worked out once (textLineTerms)', () => {
  it('filtered by a task\'s words, gives each line\'s lineTerms filtered by them, in order and with repeats, on real files', () => {
    for (const rel of ['../../src/navigator/retrieval/windows.ts', '../../src/repomap/python-outline.ts', '../../README.md']) {
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

describe('what a long-lived process keeps between tasks (line terms, definition name forms)', () => {
  it('ranks and shows a task the same after another task ran in the process as in a fresh one', async () => {
    const repo = path.resolve(here, '../fixtures/repos/issues');
    const tasks = ['Spool rewind goes before the start\n\nthe position should stay at the start', 'a length prompt keeps asking for the length in metres'];
    const run = async (order: string[]) => {
      vi.resetModules();
      const { navigate } = await import('../../src/navigator/index.js');
      const out = [];
      for (const task of order) {
        const o = await navigate({ task, repo_root: repo, budget: { max_files: 4, max_lines: 120 } }, { cacheDir: false });
        out.push(JSON.stringify({ map: o.artifacts.navigation_map.tier_path_traversed, files: o.artifacts.context_load_receipt.files_loaded }));
      }
      return out;
    };
    const fresh = await run([tasks[1]!]);
    const after = await run([tasks[0]!, tasks[1]!]);
    expect(after[1]).toBe(fresh[0]);
  });
});
