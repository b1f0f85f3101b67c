import { describe, expect, it } from 'vitest';
import { FlightPlan, ValidationError } from '../../src/contracts/index.js';
import { countTokens, indexRepo, renderFlightPlan, type RepoIndex } from '../../src/repomap/index.js';
import { SHOP, tmpDir } from './fixture.js';

let shared: RepoIndex | undefined;
async function shop(): Promise<RepoIndex> {
  shared ??= await indexRepo(SHOP, { cacheDir: tmpDir('nk-cache-') });
  return shared;
}

const levelOf = (r: Awaited<ReturnType<typeof renderFlightPlan>>, p: string) => r.files.find((f) => f.path === p)!.level;

describe('FlightPlan model', () => {
  it('applies the reference defaults and rejects what the reference rejects', () => {
    expect(FlightPlan.parse({})).toEqual({ budget: 20000, verbosity: [], custom_queries: [] });
    expect(FlightPlan.parse({ focus: { paths: [{ pattern: 'src/**' }] } }).focus!.paths[0]!.weight).toBe(10);
    const bad = (doc: unknown) => FlightPlan.safeParse(doc).error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(bad({ budget: 0 })[0]).toMatch(/^budget:/);
    expect(bad({ budget: 1.5 })[0]).toMatch(/^budget:/);
    expect(bad({ verbosity: [{ pattern: 'src/**' }] })[0]).toBe("verbosity.0: Either 'level' or 'sections' must be specified");
    expect(bad({ verbosity: [{ pattern: 'a', level: 5 }] })[0]).toMatch(/^verbosity\.0\.level:/);
    expect(bad({ focus: { paths: [{ pattern: '' }] } })[0]).toMatch(/^focus\.paths\.0\.pattern:/);
    expect(bad({ focus: { symbols: [{ name: 'x', weight: -1 }] } })[0]).toMatch(/^focus\.symbols\.0\.weight:/);
    expect(bad({ unknown_field: 1 })[0]).toMatch(/unknown_field|Unrecognized/);
    expect(bad({ custom_queries: [{ pattern: '**', query: '(call' }] })[0]).toMatch(/not a valid tree-sitter query/);
    expect(bad({ custom_queries: [{ pattern: '**', query: '(call)' }] })[0]).toMatch(/no @capture/);
  });

  it('throws a ValidationError naming the path when rendering an invalid plan', async () => {
    await expect(renderFlightPlan(SHOP, { budget: -1 } as never, { index: await shop() })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('renderFlightPlan', () => {
  it('renders each level: L1 path, L2 definition lines, L3 signatures and docs, L4 full text', async () => {
    const index = await shop();
    const render = (level: number) => renderFlightPlan(SHOP, { budget: 20000, verbosity: [{ pattern: '**', level: 0 }, { pattern: 'src/cart/cart.ts', level }] }, { index });
    const [l1, l2, l3, l4] = await Promise.all([1, 2, 3, 4].map(render));
    expect(l1!.text).toBe('src/cart/cart.ts\n');
    expect(l2!.text).toContain('11│export class Cart {');
    expect(l2!.text).not.toContain('Adds a product');
    expect(l3!.text).toContain('/** Adds a product, merging lines with the same SKU. */');
    expect(l3!.text).toContain('addItem(item: LineItem): void {');
    expect(l3!.text).not.toContain('existing.quantity += item.quantity');
    expect(l4!.text).toContain('existing.quantity += item.quantity');
    const f = (r: typeof l1) => r!.files.find((x) => x.path === 'src/cart/cart.ts')!;
    expect([f(l1).level, f(l2).level, f(l3).level, f(l4).level]).toEqual([1, 2, 3, 4]);
    expect(f(l1).lines_read).toBe(0);
    expect(f(l2).lines_read).toBeLessThan(f(l3).lines_read);
    expect(f(l4).lines_read).toBe(index.files.find((x) => x.path === 'src/cart/cart.ts')!.lines);
    expect(l4!.metadata).toMatchObject({ file_count: 1, focus_areas: ['src/cart/cart.ts'], excluded_count: index.files.length - 1 });
    expect(l4!.metadata.total_tokens).toBe(countTokens(l4!.text));
  });

  it('keeps the token budget as a hard limit by degrading lower-ranked files', async () => {
    const index = await shop();
    for (const budget of [40, 150, 400, 1200]) {
      const r = await renderFlightPlan(SHOP, { budget, verbosity: [{ pattern: '**', level: 4 }] }, { index });
      expect(r.metadata.total_tokens).toBeLessThanOrEqual(budget);
      expect(countTokens(r.text)).toBe(r.metadata.total_tokens);
      expect(r.files.some((f) => f.level < 4 && f.cut === 'budget')).toBe(true);
    }
  });

  it('lets focus path and symbol boosts decide what fits the budget', async () => {
    const index = await shop();
    const base = { budget: 260, verbosity: [{ pattern: '**', level: 4 }] };
    const plain = await renderFlightPlan(SHOP, base, { index });
    const target = 'services/inventory/main.go';
    expect(levelOf(plain, target)).toBeLessThan(4);
    const byPath = await renderFlightPlan(SHOP, { ...base, focus: { paths: [{ pattern: 'services/**', weight: 50 }] } }, { index });
    expect(levelOf(byPath, target)).toBe(4);
    expect(byPath.files.find((f) => f.path === target)!.rank).toBe(1);
    const bySymbol = await renderFlightPlan(SHOP, { ...base, focus: { symbols: [{ name: 'Reserve', weight: 50 }] } }, { index });
    expect(bySymbol.files.find((f) => f.path === target)!.rank).toBe(1);
    expect(levelOf(bySymbol, target)).toBe(4);
  });

  it('applies section rules inside a file (first match wins, specific beats catch-all)', async () => {
    const index = await shop();
    const r = await renderFlightPlan(
      SHOP,
      {
        budget: 5000,
        verbosity: [
          { pattern: '**', level: 0 },
          { pattern: 'src/payments/stripe-gateway.ts', sections: [{ pattern: 'StripeGateway', level: 4 }, { pattern: '*', level: 0 }] },
          { pattern: 'README.md', sections: [{ pattern: 'Installation*', level: 4 }, { pattern: 'API*', level: 3 }, { pattern: '*', level: 0 }] },
        ],
      },
      { index },
    );
    expect(r.text).toContain("if (amount <= 0) return { ok: false, reason: 'amount must be positive' };");
    expect(r.text).not.toContain('export type ChargeResult');
    expect(r.text).toContain('Run `npm install`, then `npm start`.');
    expect(r.text).toContain('## API Reference');
    expect(r.text).toContain('See docs/api.md.');
    expect(r.text).not.toContain('The cart holds line items');
    expect(r.text).not.toContain('# Shop\n');
  });

  it('adds the captures of custom queries and reports a query that does not compile', async () => {
    const index = await shop();
    const plan = {
      budget: 5000,
      verbosity: [{ pattern: '**', level: 0 }, { pattern: 'src/cart/discount.ts', level: 2 }],
      custom_queries: [
        { pattern: 'src/cart/*.ts', query: '(binary_expression operator: "<") @comparison' },
        { pattern: 'src/cart/*.ts', query: '(no_such_node) @x' },
      ],
    };
    const r = await renderFlightPlan(SHOP, plan, { index });
    const without = await renderFlightPlan(SHOP, { ...plan, custom_queries: [] }, { index });
    expect(without.text).not.toContain('if (subtotal < coupon.minimumSubtotal) return subtotal;');
    expect(r.text).toContain('if (subtotal < coupon.minimumSubtotal) return subtotal;');
    expect(r.text).toContain('return expiresAt.getTime() < now.getTime();');
    expect(r.files.find((f) => f.path === 'src/cart/discount.ts')!.captures).toBe(2);
    expect(r.warnings.some((w) => w.startsWith('custom_queries[1] (typescript):'))).toBe(true);
  });

  it('honours max files and max lines read', async () => {
    const index = await shop();
    const r = await renderFlightPlan(SHOP, { budget: 20000, verbosity: [{ pattern: '**', level: 4 }] }, { index, maxFiles: 3, maxLines: 60 });
    const shown = r.files.filter((f) => f.level > 0);
    expect(shown.length).toBe(3);
    expect(shown.reduce((s, f) => s + f.lines_read, 0)).toBeLessThanOrEqual(60);
    expect(r.files.some((f) => f.cut === 'max_files')).toBe(true);
  });

  it('gives the same bytes on every run', async () => {
    const index = await shop();
    const plan = { budget: 900, focus: { symbols: [{ name: 'Cart' }] } };
    const a = await renderFlightPlan(SHOP, plan, { index });
    const b = await renderFlightPlan(SHOP, plan, { cacheDir: false });
    expect(b.text).toBe(a.text);
    expect(b.files).toEqual(a.files);
  });
});

describe('rankFiles with a full-text lookup', () => {
  it('gives a file that merely contains a focus symbol the reference boost, and nothing without the lookup', async () => {
    const { rankFiles } = await import('../../src/repomap/index.js');
    const files = [
      { path: 'a.ts', language: 'typescript' as const, hash: 'a', bytes: 1, lines: 1, tokens: 1, outline: { defs: [], refs: [] } },
      { path: 'b.ts', language: 'typescript' as const, hash: 'b', bytes: 1, lines: 1, tokens: 1, outline: { defs: [], refs: [] } },
    ];
    const focus = { paths: [], symbols: [{ name: 'Zebrafish', weight: 16 }] };
    expect(rankFiles(files, focus).map((s) => s.symbol_factor)).toEqual([1, 1]);
    const ranked = rankFiles(files, focus, (s) => (s === 'Zebrafish' ? ['b.ts'] : []));
    expect(ranked[0]).toMatchObject({ path: 'b.ts', symbol_factor: 4 });
  });
});
