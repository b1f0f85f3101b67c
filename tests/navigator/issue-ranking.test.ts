import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { navigate } from '../../src/navigator/index.js';
import { quotedPhrases } from '../../src/navigator/retrieval/evidence/index.js';
import { classifyPath as classOfPath } from '../../src/repomap/index.js';
import { ISSUE_DF_MAX, queryTerms, substringShares, TITLE_TIMES, titleWeights } from '../../src/navigator/retrieval/ranking.js';
import { openTextIndex } from '../../src/navigator/retrieval/text-index.js';
import { LEX_FIELDS_EXTRAS } from '../../src/navigator/retrieval/lex-fields.js';
import { indexRepo } from '../../src/repomap/index.js';

// The fixture package of the evidence tests (tests/fixtures/repos/issues).
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/repos/issues');
const nav = (task: string) => navigate({ task, repo_root: REPO, budget: { max_files: 2, max_lines: 40 } }, { cacheDir: false });
const ranked = (o: Awaited<ReturnType<typeof nav>>) => o.artifacts.navigation_map.tier_path_traversed.filter((e) => e.tier === 'T3').map((e) => e.files_loaded[0]);

describe('what an issue is about, by its title', () => {
  it('counts the terms of a several-line task\'s first line twice, a one-line task\'s not at all', () => {
    const w = titleWeights('Spool rewinds past the start\n\nthe spool of my build goes back too far', ['spool', 'rewind', 'build', 'start']);
    expect(w.get('spool')).toBe(TITLE_TIMES);
    expect(w.get('rewind')).toBe(TITLE_TIMES);
    expect(w.has('build')).toBe(false);
    expect(titleWeights('Spool rewinds past the start', ['spool', 'rewind']).size).toBe(0);
  });

  it('a report whose body shares many everyday words with a set-up module: the module its title names ranks first', async () => {
    const task = [
      'Spool rewind goes before the start',
      '',
      'Steps to reproduce: install, check the environment and the platform, then build and read the output.',
      '',
      'Expected: the position stays at the start.',
    ].join('\n');
    const o = await nav(task);
    expect(ranked(o)[0]).toBe('gadget/spool.py');
  });
});

describe('phrases the prose quotes', () => {
  it('reads double-quoted phrases of three words or more, straight or typographic, and no single-quoted ones', () => {
    expect(quotedPhrases('It says "Please give a length" and \u201cnothing else happens here\u201d, not \'one two three\' or "two words".')).toEqual([
      'Please give a length',
      'nothing else happens here',
    ]);
  });

  it('a quoted prompt points at the definition printing it', async () => {
    const o = await nav('Spool keeps asking\n\nAfter I type a length it says *"Please give a length in metres (or just Enter to stop)"* again.');
    const d = o.artifacts.context_load_receipt.definitions![0]!;
    expect(d).toMatchObject({ path: 'gadget/spool.py', symbol: 'ask_length' });
    expect(d.evidence[0]).toMatch(/^quoted "Please give a length in metres/);
  });
});

describe('the navigator\'s class of a path', () => {
  it('a library copied in under its release name is vendored; a message catalog ranks last (generated); the code host\'s folders are configuration; sources stay sources', () => {
    expect(classOfPath('app/theme/static/lodash-4.17.21.js')).toBe('vendored');
    expect(classOfPath('app/theme/static/bootstrap-5.3.0.css')).toBe('vendored');
    expect(classOfPath('app/locale/de/LC_MESSAGES/app.po')).toBe('generated');
    expect(classOfPath('app/locale/app.pot')).toBe('generated');
    expect(classOfPath('app/theme/static/search.js')).toBe('source');
    expect(classOfPath('app/http2.py')).toBe('source');
    expect(classOfPath('app/v1.2/handler.js')).toBe('source');
    expect(classOfPath('.github/ISSUE_TEMPLATE/bug_report.md')).toBe('config');
    expect(classOfPath('.gitlab/issue_templates/Bug.md')).toBe('config');
    expect(classOfPath('docs/github.md')).toBe('doc');
  });
});

describe('the text query of an issue', () => {
  it('leaves out terms in more than a tenth of the files when the task has several lines, keeps them in a one-line task', async () => {
    const index = await indexRepo(REPO, { cacheDir: false, extras: LEX_FIELDS_EXTRAS });
    const text = openTextIndex(index, false);
    try {
      // `widget` is in many of the fixture's files, `spool` in one.
      expect(text.docFreq('widget')).toBeGreaterThan(ISSUE_DF_MAX * text.size);
      expect(text.docFreq('spool')).toBeLessThanOrEqual(ISSUE_DF_MAX * text.size);
      expect(queryTerms('spool widget\n\nmore words', ['spool', 'widget'], text)).toEqual(['spool']);
      expect(queryTerms('spool widget', ['spool', 'widget'], text)).toEqual(['spool', 'widget']);
      // Nothing rare: the common terms stay rather than an empty query.
      expect(queryTerms('widget\n\nwidget', ['widget'], text)).toEqual(['widget']);
    } finally {
      text.close();
    }
  });
});


describe('the share of the best word a definition name contains', () => {
  it('is the best share among the words inside the name, short and long, found at any position', () => {
    const shares = new Map([['io', 0.2], ['spool', 0.9], ['rewind', 0.6], ['pool', 0.7], ['ndx', 0.4], ['x', 0.1]]);
    const best = substringShares(shares);
    expect(best('spoolrewinder')).toBe(0.9);
    expect(best('carpool')).toBe(0.7);
    expect(best('rewindratio')).toBe(0.6);
    expect(best('radio')).toBe(0.2);
    expect(best('indxs')).toBe(0.4);
    expect(best('box')).toBe(0.1);
    expect(best('abc')).toBe(0);
    expect(best('')).toBe(0);
  });

  it('agrees with testing every word on every name, on a seeded sample of words and names', () => {
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const word = (len: number) => Array.from({ length: len }, () => 'abcdeé'[Math.floor(next() * 6)]).join('');
    const shares = new Map<string, number>();
    for (let i = 0; i < 60; i++) shares.set(word(1 + Math.floor(next() * 5)), Math.round(next() * 100) / 100);
    const best = substringShares(shares);
    for (let i = 0; i < 500; i++) {
      const name = word(Math.floor(next() * 14));
      const brute = Math.max(0, ...[...shares].filter(([w]) => name.includes(w)).map(([, r]) => r));
      expect(best(name)).toBe(brute);
    }
  });
});
