import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { countTokens, tokenPieces } from '../../src/repomap/index.js';
import { SHOP } from './fixture.js';

const reference = new Tiktoken(o200k);

/** The cut as first written (regexes over 16 KiB chunks cut after a newline): the fast cut must equal it. */
function regexPieces(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    let end = Math.min(text.length, i + 16_384);
    if (end < text.length) {
      const ws = text.lastIndexOf('\n', end);
      if (ws > i) end = ws + 1;
    }
    const piece = text.slice(i, end);
    i = end;
    const re = /\S{65,}/g;
    let last = 0;
    for (let m = re.exec(piece); m; m = re.exec(piece)) {
      if (m.index > last) out.push(piece.slice(last, m.index));
      for (let j = 0; j < m[0].length; j += 64) out.push(m[0].slice(j, j + 64));
      last = m.index + m[0].length;
    }
    if (last < piece.length) out.push(piece.slice(last));
  }
  return out;
}

const referencePieceCounts = new Map<string, number>();
/** js-tiktoken's count of the same pieces (memoised per piece: repetitive inputs repeat pieces): what countTokens promises to equal. */
function referenceCount(text: string): number {
  let n = 0;
  for (const p of regexPieces(text)) {
    let c = referencePieceCounts.get(p);
    if (c === undefined) {
      c = reference.encode(p, [], []).length;
      referencePieceCounts.set(p, c);
    }
    n += c;
  }
  return n;
}

/** Deterministic strings mixing code, every kind of JS whitespace, CJK, emoji, lone surrogates and long runs. */
function fuzzStrings(count: number, maxLen: number): string[] {
  const atoms = ['a', 'Z', '0', '9', ' ', '\n', '\t', '\r', '\v', '\f', '\u00a0', '\u1680', '\u2003', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\u200b', 'é', 'ß', 'İ', '\u0301', '中文', '😀', '👍🏽', '\ud800', '\udc00', '<|endoftext|>', '//', '{', '}', '=>', "'s", "'LL", '0123456789', '    ', '\n\n', '='.repeat(70), 'x'.repeat(66), 'QUJD'.repeat(20)];
  let seed = 7;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  return Array.from({ length: count }, () => {
    let s = '';
    for (let i = rnd(maxLen); i > 0; i--) s += atoms[rnd(atoms.length)];
    return s;
  });
}

describe('countTokens', () => {
  it('matches js-tiktoken o200k_base on ordinary source text, special-token strings included', () => {
    const text = 'export function hello(world: string): number {\n  return world.length; // <|endoftext|>\n}\n'.repeat(50);
    expect(countTokens(text)).toBe(reference.encode(text, [], []).length);
  });

  it('equals a plain js-tiktoken encode on every real source file of the fixture and of this module', () => {
    const dirs = [path.join(SHOP, 'src'), path.resolve(import.meta.dirname, '../../src/repomap')];
    const files = dirs.flatMap((d) => readdirSync(d, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name)));
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      // Under one chunk and without long runs, the cut is the whole text: the count is js-tiktoken's own.
      if (text.length < 16_384 && !/\S{65}/.test(text)) expect(countTokens(text), f).toBe(reference.encode(text, [], []).length);
      else expect(countTokens(text), f).toBe(referenceCount(text));
    }
  });

  it('differs from js-tiktoken on one known character: U+FEFF counts as 2 tokens with gpt-tokenizer, 1 with js-tiktoken', () => {
    // Kept visible on purpose: a file with a byte-order mark or a stray U+FEFF counts one token more per mark.
    expect(reference.encode('\ufeff', [], []).length).toBe(1);
    expect(countTokens('\ufeff')).toBe(2);
  });

  it('cuts exactly where the regex cut does, and counts exactly what js-tiktoken counts on those pieces', () => {
    const texts = [...fuzzStrings(400, 120), ...fuzzStrings(6, 3000)];
    texts.push('a'.repeat(65), 'a'.repeat(64), `${'b'.repeat(16_380)}\n${'c'.repeat(200)}`, `${'😀'.repeat(40)} x`, `${'x'.repeat(63)}😀`);
    for (const text of texts) {
      expect(tokenPieces(text)).toEqual(regexPieces(text));
      expect(countTokens(text)).toBe(referenceCount(text));
    }
  });

  it('counts long whitespace runs like js-tiktoken (its merge is quadratic there, this one is not)', () => {
    for (const text of [' '.repeat(1500), '\n'.repeat(1200), `${' \t'.repeat(700)}x`, '\u3000'.repeat(600), `${' '.repeat(900)}\n${'\t'.repeat(300)}`]) {
      expect(countTokens(text)).toBe(reference.encode(text, [], []).length);
    }
  });

  it('finishes on 100 KB of base64, minified code, emoji and whitespace, with the same counts as js-tiktoken on the pieces', () => {
    const base64 = Buffer.from(Array.from({ length: 75_000 }, (_, i) => (i * 7919 + 13) % 256)).toString('base64');
    const minified = 'var a=function(b){return b+1};'.repeat(3400);
    const emoji = '😀'.repeat(50_000);
    for (const text of [base64, minified, emoji]) {
      expect(text.length).toBeGreaterThanOrEqual(100_000);
      const pieces = tokenPieces(text);
      expect(pieces.join('')).toBe(text);
      expect(pieces.every((p) => !/\S{65}/.test(p))).toBe(true);
      expect(countTokens(text)).toBe(referenceCount(text));
    }
    // One 100,000-space pre-token per chunk: js-tiktoken would not finish; the count is one token per
    // longest space token plus the remainder, so it stays well under the length.
    const spaces = ' '.repeat(100_000);
    const n = countTokens(spaces);
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(spaces.length / 10);
    expect(countTokens(spaces.slice(0, 2_000))).toBe(reference.encode(spaces.slice(0, 2_000), [], []).length);
  });

  it('keeps cut counts close to an uncut encoding', () => {
    const base64 = Buffer.from(Array.from({ length: 3_000 }, (_, i) => (i * 7919 + 13) % 256)).toString('base64');
    const sample = base64.slice(0, 2048);
    // Each cut can split a token in two: the count is within one token per cut of a whole-run encoding.
    expect(Math.abs(countTokens(sample) - reference.encode(sample, [], []).length)).toBeLessThanOrEqual(Math.ceil(sample.length / 64));
  });

  it('returns 0 for empty text and the same count from the cache', () => {
    expect(countTokens('')).toBe(0);
    const t = 'cached text '.repeat(100);
    expect(countTokens(t)).toBe(countTokens(t));
  });
});
