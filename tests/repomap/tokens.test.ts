import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { countTokens, tokenPieces } from '../../src/repomap/index.js';

const reference = new Tiktoken(o200k);

describe('countTokens', () => {
  it('matches js-tiktoken o200k_base on ordinary source text, special-token strings included', () => {
    const text = 'export function hello(world: string): number {\n  return world.length; // <|endoftext|>\n}\n'.repeat(50);
    expect(countTokens(text)).toBe(reference.encode(text, [], []).length);
  });

  it('cuts long whitespace-free runs so minified and base64 text stays linear, and counts stay close', () => {
    const base64 = Buffer.from(Array.from({ length: 30_000 }, (_, i) => (i * 7919 + 13) % 256)).toString('base64');
    const minified = 'var a=function(b){return b+1};'.repeat(2000);
    for (const text of [base64, minified]) {
      const pieces = tokenPieces(text);
      expect(pieces.join('')).toBe(text);
      expect(Math.max(...pieces.map((p) => (/\S{65}/.test(p) ? Infinity : p.length)))).toBeLessThan(Infinity);
      const n = countTokens(text);
      // Each cut can split a token in two: the count is within one token per cut of a whole-run encoding.
      const cuts = Math.ceil(text.length / 64);
      expect(n).toBeGreaterThan(0);
      const sample = text.slice(0, 2048);
      expect(Math.abs(countTokens(sample) - reference.encode(sample, [], []).length)).toBeLessThanOrEqual(Math.ceil(sample.length / 64));
      expect(n).toBeLessThanOrEqual(text.length);
      expect(cuts).toBeGreaterThan(1);
    }
  });

  it('returns 0 for empty text and the same count from the cache', () => {
    expect(countTokens('')).toBe(0);
    const t = 'cached text '.repeat(100);
    expect(countTokens(t)).toBe(countTokens(t));
  });
});
