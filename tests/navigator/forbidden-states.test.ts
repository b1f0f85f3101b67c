import { beforeAll, describe, expect, it } from 'vitest';
import { createNavigator, defaultSteps, type LoadResult, type NavigationOutcome, type NavigatorSteps } from '../../src/navigator/index.js';
import { SHOP, tmpDir } from '../repomap/fixture.js';

// Made in beforeAll, not at collection: a filter (-t) that skips every test runs no afterAll to remove it.
let cacheDir: string;
let real: ReturnType<typeof defaultSteps>;
beforeAll(() => {
  cacheDir = tmpDir('nk-cache-');
  real = defaultSteps({ cacheDir });
});
const CAPSULE = { task: 'apply a discount coupon to the cart', repo_root: SHOP };

async function run(steps: Partial<NavigatorSteps>, capsule: unknown = CAPSULE): Promise<NavigationOutcome> {
  return createNavigator({ cacheDir, steps }).navigate(capsule);
}

function expectBlocked(o: NavigationOutcome, state: string): void {
  expect(o.exit).toBe('EXIT_BLOCKED');
  expect(o.violations[0]!.state).toBe(state);
  expect(o.stop_reason.startsWith(`BLOCKED: ${state} (`)).toBe(true);
  expect(o.artifacts.navigation_map.stop_reason).toBe(o.stop_reason);
  expect(o.states[o.states.length - 1]).toBe('EXIT_BLOCKED');
}

describe('forbidden states end in EXIT_BLOCKED naming them', () => {
  it('the unmodified navigator passes on the same capsule (control)', async () => {
    const o = await run({});
    expect(o.exit).toBe('EXIT_PASS');
    expect(o.violations).toEqual([]);
  });

  it('FULL_CORPUS_LOAD: a loader that ignores the magic-word filter', async () => {
    const o = await run({
      loadContext: async (input) => {
        const planned = input.index.files.map((f) => input.planned.find((p) => p.path === f.path) ?? { path: f.path, tier: 3 as const, words: ['cart'], relevance: 0, level: 1 as const });
        return real.loadContext({ ...input, planned, budget: { ...input.budget, max_files: 100, max_tokens: 100_000, max_lines: 100_000, max_tool_calls: 1000 } });
      },
    });
    expectBlocked(o, 'FULL_CORPUS_LOAD');
  });

  it('SKIP_TRUNK: a traversal that goes to a leaf without visiting the trunk', async () => {
    const o = await run({
      traverseTrunk: (input) => {
        const r = real.traverseTrunk(input);
        return { ...r, entries: [{ tier: 'T3', anchor: 'discount', files_loaded: ['src/cart/discount.ts'], justification: 'jumped straight to the file' }, ...r.entries.slice(1)] };
      },
    });
    expectBlocked(o, 'SKIP_TRUNK');
  });

  it('COMPRESSION_BYPASS: a ratio reported without counting tokens', async () => {
    const o = await run({
      validateCompression: (task, load) => {
        const r = real.validateCompression(task, load);
        return { ...r, ratio: 50, report: { ...r.report, compression_ratio: 50, context_loaded_tokens: 10 } };
      },
    });
    expectBlocked(o, 'COMPRESSION_BYPASS');
  });

  it('MAGIC_WORD_INVENTION: a related word added that is neither in the query nor in the hint', async () => {
    const o = await run({
      extractMagicWords: async (intake) => {
        const r = await real.extractMagicWords(intake);
        if (r.kind !== 'found') throw new Error('fixture expects words');
        return { ...r, words: [...r.words, { word: 'stripe', tier: 3, source: 'task', via: 'payment' }] };
      },
    });
    expectBlocked(o, 'MAGIC_WORD_INVENTION');
    expect(o.violations[0]!.detail).toContain('stripe');
    // Nothing was loaded after the violation.
    expect(o.loaded).toEqual([]);
  });

  it('SCOPE_EXPANSION: a loader that adds a file outside the tier path', async () => {
    const o = await run({
      loadContext: (input) => real.loadContext({ ...input, planned: [...input.planned, { path: 'src/auth/session.ts', tier: 3, words: ['cart'], relevance: 0, level: 2 }] }),
    });
    expectBlocked(o, 'SCOPE_EXPANSION');
    expect(o.violations[0]!.detail).toContain('src/auth/session.ts');
  });

  it('NULL_ZERO_CONFUSION: "no magic words found" reported as an empty list', async () => {
    const o = await run(
      {
        extractMagicWords: async (intake) => {
          const r = await real.extractMagicWords(intake);
          return { kind: 'found', words: [], unknown_hint: [], registry: r.registry, index: r.index };
        },
      },
      { task: 'zzz qqq', repo_root: SHOP },
    );
    expectBlocked(o, 'NULL_ZERO_CONFUSION');
  });

  it('CONTEXT_ACCUMULATION: a receipt carried over from the previous query', async () => {
    let carried: LoadResult['receipt']['files_loaded'] = [];
    const steps: Partial<NavigatorSteps> = {
      loadContext: async (input) => {
        const r = await real.loadContext(input);
        const files_loaded = [...carried, ...r.receipt.files_loaded];
        carried = files_loaded;
        return { ...r, receipt: { ...r.receipt, files_loaded } };
      },
    };
    const nav = createNavigator({ cacheDir, steps });
    const first = await nav.navigate({ task: 'where is the stripe charge refund', repo_root: SHOP });
    expect(first.exit).toBe('EXIT_PASS');
    const second = await nav.navigate(CAPSULE);
    expectBlocked(second, 'CONTEXT_ACCUMULATION');
  });
});
