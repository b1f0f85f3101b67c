// docs/errors.md documents the closed error set: one row per code, with the HTTP status error-codes.ts gives it, and
// no row for a code outside the set.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_CODE_LIST, httpStatusFor, isErrorCode } from '../../src/contracts/error-codes.js';
import { ROOT } from '../support/kernel-fixtures.js';

const rows = new Map(
  [...readFileSync(path.join(ROOT, 'docs', 'errors.md'), 'utf8').matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| (\d{3}) \| (.+) \|$/gm)].map((m) => [m[1]!, { http: Number(m[2]), sentence: m[3]! }]),
);

describe('docs/errors.md', () => {
  it('has a sentence and the HTTP status of every code in the set', () => {
    const missing = ERROR_CODE_LIST.filter((c) => !rows.has(c));
    expect(missing, 'codes without a row in docs/errors.md').toEqual([]);
    for (const c of ERROR_CODE_LIST) {
      expect(rows.get(c)!.http, c).toBe(ERROR_CODES[c].http);
      expect(rows.get(c)!.sentence.length, c).toBeGreaterThan(10);
    }
  });

  it('documents no code outside the set', () => {
    expect([...rows.keys()].filter((c) => !isErrorCode(c))).toEqual([]);
  });

  it('maps every code to a real HTTP error status (none silently 500 for being unknown)', () => {
    for (const c of ERROR_CODE_LIST) {
      const s = httpStatusFor(c);
      expect(s >= 400 && s <= 599, c).toBe(true);
    }
    // A code outside the set is a type error, and at run time no status at all.
    // @ts-expect-error — 'NOT_A_CODE' is not an ErrorCode
    expect(() => httpStatusFor('NOT_A_CODE')).toThrow();
  });
});
