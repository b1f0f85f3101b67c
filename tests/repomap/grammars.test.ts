import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODE_LANGUAGES, extractOutline, grammarPath, languageOf, loadLanguage } from '../../src/repomap/index.js';
import { SHOP } from './fixture.js';

/** The committed C and C++ fixture repositories. */
const CXX_ROOT = path.resolve(SHOP, '..');

const SAMPLES: Record<string, { file: string; defs: string[]; root?: string }> = {
  typescript: { file: 'src/cart/cart.ts', defs: ['LineItem', 'Cart', 'addItem', 'removeItem', 'subtotal', 'describe'] },
  tsx: { file: 'web/checkout-button.tsx', defs: ['CheckoutButtonProps', 'CheckoutButton'] },
  javascript: { file: 'web/analytics.js', defs: ['trackCheckout', 'EventQueue', 'push'] },
  python: { file: 'scripts/sales_report.py', defs: ['SalesReport', '__init__', 'monthly_totals', 'write_report'] },
  go: { file: 'services/inventory/main.go', defs: ['Stock', 'Reserve', 'main'] },
  rust: { file: 'native/src/lib.rs', defs: ['checksum', 'Ledger', 'record'] },
  java: { file: 'java/src/main/java/shop/Invoice.java', defs: ['Invoice', 'taxCents'] },
  c: { root: CXX_ROOT, file: 'kvstore/src/kv.c', defs: ['kv_store', 'kv_hash', 'kv_put', 'kv_legacy_count', 'kv_strerror'] },
  cpp: { root: CXX_ROOT, file: 'tinyfmt/src/format.cc', defs: ['tinyfmt', 'parse_spec', 'vformat'] },
};

describe('grammars', () => {
  for (const lang of CODE_LANGUAGES) {
    it(`loads the ${lang} grammar (${path.basename(grammarPath(lang))}) and outlines real code`, async () => {
      const language = await loadLanguage(lang);
      expect(language.abiVersion).toBeGreaterThanOrEqual(13);
      const sample = SAMPLES[lang]!;
      expect(languageOf(sample.file)).toBe(lang);
      const outline = await extractOutline(lang, readFileSync(path.join(sample.root ?? SHOP, sample.file), 'utf8'));
      expect(outline.parse_error).toBeUndefined();
      const names = outline.defs.map((d) => d.name);
      for (const d of sample.defs) expect(names).toContain(d);
    });
  }

  it('records nesting, signatures spanning lines and doc comments', async () => {
    const outline = await extractOutline('typescript', readFileSync(path.join(SHOP, 'src/cart/cart.ts'), 'utf8'));
    const cart = outline.defs.findIndex((d) => d.name === 'Cart');
    const addItem = outline.defs.find((d) => d.name === 'addItem')!;
    expect(addItem.parent).toBe(cart);
    expect(addItem.doc).not.toBeNull();
    const py = await extractOutline('python', readFileSync(path.join(SHOP, 'scripts/sales_report.py'), 'utf8'));
    const monthly = py.defs.find((d) => d.name === 'monthly_totals')!;
    // A Python docstring is the doc; the header is the `def` line only.
    expect(monthly.doc![0]).toBe(monthly.start + 1);
    expect(monthly.header_end).toBe(monthly.start);
    expect(outline.refs.map(([r]) => r)).toContain('formatPrice');
  });

  it('outlines functions assigned to a property or a variable (JavaScript and TypeScript), nested where they are assigned', async () => {
    const src = [
      'const make = (defaults) => {',
      '  const api = (input) => input;',
      '  api.extend = (more) => make({ ...defaults, ...more });',
      '  api.count = 3;',
      '  return api;',
      '};',
      'let handler;',
      'handler = function (event) { return event; };',
      'module.exports.helper = function helper() {};',
    ].join('\n');
    for (const lang of ['javascript', 'typescript'] as const) {
      const outline = await extractOutline(lang, src);
      const byName = new Map(outline.defs.map((d, i) => [d.name, { ...d, i }]));
      expect(byName.get('extend')).toMatchObject({ kind: 'function', start: 3, end: 3, parent: byName.get('make')!.i });
      expect(byName.get('handler')).toMatchObject({ kind: 'function', start: 8 });
      expect(byName.get('helper')).toMatchObject({ kind: 'function', start: 9 });
      // A property given a value that is not a function is no definition.
      expect(byName.has('count')).toBe(false);
    }
  });

  it('outlines Markdown headings as nested sections', async () => {
    const md = await extractOutline('markdown', readFileSync(path.join(SHOP, 'README.md'), 'utf8'));
    expect(md.defs.map((d) => d.name)).toEqual(['Shop', 'Installation', 'Architecture', 'API Reference']);
    expect(md.defs[1]!.parent).toBe(0);
  });
});
