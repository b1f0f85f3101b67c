// The HTTP fuzz of scripts/fuzz (issue 35) at a few hundred cases: URL paths and headers against a real
// `navkernel serve`; `npm run fuzz` runs more.
import { describe, expect, it } from 'vitest';
import { fuzzServe } from '../../scripts/fuzz/http.js';

describe('fuzz of serve (URL paths and headers, real child)', () => {
  it('no 5xx, only problem documents with stable codes, no answer beyond the credential, loopback Hosts only; still serving', async () => {
    const f = await fuzzServe(400, 35);
    expect(f.hangs).toBe(0);
    expect(f.outcomes.alive).toBe(1);
    // The fuzz reached the kinds of answer it is there to check.
    expect(f.outcomes['200'] ?? 0).toBeGreaterThan(10);
    expect(f.outcomes.UNAUTHORIZED ?? 0).toBeGreaterThan(10);
    expect(f.outcomes.NON_CANONICAL_PATH ?? 0).toBeGreaterThan(10);
    expect(f.outcomes.HOST_NOT_ALLOWED ?? 0).toBeGreaterThan(5);
  }, 300_000);
});
