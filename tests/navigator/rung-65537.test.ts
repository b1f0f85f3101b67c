import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRung65537, createNavigator, paraphrase, RUNG_65537, staleContextLines } from '../../src/navigator/index.js';
import { compileValidator } from '../../src/contracts/index.js';
import { copyShop, tmpDir } from '../repomap/fixture.js';

describe('RUNG_65537: 274177 plus adversarial stability', () => {
  it('holds on the fixture: same artifacts twice, same files for a paraphrase and a shuffled file order, every line still there', async () => {
    const repo = copyShop();
    const options = { cacheDir: tmpDir('nk-cache-') };
    const nav = createNavigator(options);
    const capsule = { task: 'apply a discount coupon to the cart', repo_root: repo };
    const first = await nav.navigate(capsule);
    const r = await checkRung65537(first, capsule, repo, (c, seed) => (seed === undefined ? nav : createNavigator({ ...options, fileOrderSeed: seed })).navigate(c));
    expect(r.checks.map((c) => [c.check, c.passed])).toEqual([
      ['rung_274177', true],
      ['paraphrase', true],
      ['shuffled_file_order', true],
      ['shuffled_file_order', true],
      ['lines_present', true],
    ]);
    expect(r.passed).toBe(true);
    expect(r.checks.every((c) => c.rung === RUNG_65537)).toBe(true);
    // The checks fit the receipt's schema.
    const receipt = { ...first.artifacts.context_load_receipt, rung_checks: r.checks };
    expect(compileValidator('context-load-receipt')(receipt).success).toBe(true);
    expect(paraphrase('Add `replaceOption` helper, for .extend()')).toBe('Please look into: .extend() for helper `replaceOption` Add');
  });

  it('fails when a paraphrase with other words loads other files, and when a loaded line changed in the repository', async () => {
    const repo = copyShop();
    const options = { cacheDir: false as const };
    const nav = createNavigator(options);
    const capsule = { task: 'apply a discount coupon to the cart', repo_root: repo };
    const first = await nav.navigate(capsule);
    const file = path.join(repo, 'src/cart/discount.ts');
    writeFileSync(file, '// rewritten\n');
    expect(staleContextLines(repo, first.artifacts.context_md).some((p) => p.startsWith('src/cart/discount.ts:'))).toBe(true);
    const r = await checkRung65537(first, capsule, repo, (c, seed) => (seed === undefined ? nav : createNavigator({ ...options, fileOrderSeed: seed })).navigate(c), ['stripe refund charge']);
    expect(r.passed).toBe(false);
    expect(r.checks.find((c) => c.check === 'paraphrase')!.passed).toBe(false);
    expect(r.checks.find((c) => c.check === 'lines_present')!.passed).toBe(false);
  });
});
