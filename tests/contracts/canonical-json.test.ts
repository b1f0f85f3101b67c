// The ledger's hash chain hashes canonicalJson(). Measured against the RFC 8785 (JSON Canonicalization Scheme)
// reference package `canonicalize`: the bytes agree on every JSON value except objects with integer-like keys
// ("0", "17"), which JavaScript objects always enumerate first, so canonicalJson puts them before the other keys
// where RFC 8785 sorts them with the rest. Both are deterministic; moving the chain to RFC 8785 needs a ledger
// migration that keeps old chains verifiable (a per-row encoding version), so the encoding stays as it is and this
// test pins both the agreement and the one difference.
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/contracts/canonical-json.js';

const INTEGER_KEY = /^(0|[1-9]\d*)$/;
function hasIntegerKey(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasIntegerKey);
  if (v !== null && typeof v === 'object') return Object.entries(v).some(([k, x]) => INTEGER_KEY.test(k) || hasIntegerKey(x));
  return false;
}

describe('canonicalJson and RFC 8785', () => {
  it('gives the bytes of the RFC 8785 reference on random JSON values without integer-like keys', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
        fc.pre(!hasIntegerKey(v));
        expect(canonicalJson(v)).toBe(canonicalize(v));
      }),
      { numRuns: 2000, seed: 8785 },
    );
  });

  it('numbers as ECMAScript writes them, keys by UTF-16 code units, as the RFC examples', () => {
    const v = { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '\ud83d\ude00': 'Emoji', '\u0080': 'Control', '\u00f6': 'o' };
    expect(canonicalJson(v)).toBe(canonicalize(v));
    expect(canonicalJson([333333333.33333329, 1e30, 4.5, 2e-3, 0.000001, 1e-7, -0])).toBe('[333333333.3333333,1e+30,4.5,0.002,0.000001,1e-7,0]');
  });

  it('keeps a __proto__ key of parsed JSON (it was dropped, so two different requests hashed alike)', () => {
    const v = JSON.parse('{"a":1,"__proto__":{"x":2}}') as unknown;
    expect(canonicalJson(v)).toBe('{"__proto__":{"x":2},"a":1}');
    expect(canonicalJson(v)).not.toBe(canonicalJson({ a: 1 }));
  });

  it('the one difference: integer-like keys come first (deterministic, kept for existing chains)', () => {
    const v = { b: 1, '10': 2, a: 3, '2': 4 };
    expect(canonicalJson(v)).toBe('{"2":4,"10":2,"a":3,"b":1}');
    expect(canonicalize(v)).toBe('{"10":2,"2":4,"a":3,"b":1}');
  });
});
