import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileValidator } from '../../src/contracts/index.js';
import { countTokens } from '../../src/repomap/index.js';
import { compareRuns, createNavigator, defaultSteps, navigate, type NavigationOutcome } from '../../src/navigator/index.js';
import { copyShop, SHOP, tmpDir } from '../repomap/fixture.js';

// Made in beforeAll, not at collection: a filter (-t) that skips every test runs no afterAll to remove it.
let cacheDir: string;
beforeAll(() => {
  cacheDir = tmpDir('nk-cache-');
});
const nav = (capsule: unknown, extra: Parameters<typeof navigate>[1] = {}) => navigate(capsule, { cacheDir, ...extra });

function validArtifacts(o: NavigationOutcome): void {
  for (const [schema, doc] of [
    ['navigation-map', o.artifacts.navigation_map],
    ['context-load-receipt', o.artifacts.context_load_receipt],
    ['compression-report', o.artifacts.compression_report],
  ] as const) {
    const r = compileValidator(schema)(doc);
    expect(r.success, JSON.stringify(r)).toBe(true);
  }
}

describe('navigate on a real repository', () => {
  it('passes trunk first, loads the discount code, and writes receipts that add up', async () => {
    const o = await nav({ task: 'apply a discount coupon to the cart', repo_root: SHOP });
    expect(o.exit).toBe('EXIT_PASS');
    expect(o.states).toEqual(['INIT', 'INTAKE_QUERY', 'NULL_CHECK', 'EXTRACT_MAGIC_WORDS', 'MAP_TO_TIERS', 'TRAVERSE_TRUNK', 'BRANCH_IF_NEEDED', 'LOAD_CONTEXT', 'VALIDATE_COMPRESSION', 'BUILD_ARTIFACTS', 'SOCRATIC_REVIEW', 'EXIT_PASS']);
    validArtifacts(o);
    const { navigation_map: map, context_load_receipt: receipt, compression_report: report, context_md } = o.artifacts;
    expect(map.query).toBe('apply a discount coupon to the cart');
    expect(map.magic_words_extracted).toEqual(expect.arrayContaining(['discount', 'coupon', 'cart']));
    expect(map.tier_path_traversed[0]).toMatchObject({ tier: 'T0', anchor: '' });
    expect(map.trunk_first_compliance).toBe(true);
    expect(map.total_files_loaded).toBe(receipt.files_loaded.length);
    expect(receipt.files_loaded.map((f) => f.path)).toContain('src/cart/discount.ts');
    for (const f of receipt.files_loaded) expect(map.magic_words_extracted).toContain(f.magic_word_match);
    expect(receipt.total_lines_loaded).toBe(receipt.files_loaded.reduce((s, f) => s + f.lines_shown, 0));
    expect(receipt.total_lines_read).toBe(receipt.files_loaded.reduce((s, f) => s + f.lines_read, 0));
    expect(receipt.files_loaded.length).toBeLessThanOrEqual(8);
    expect(receipt.total_lines_loaded).toBeLessThanOrEqual(400);
    expect(context_md).toContain('if (subtotal < coupon.minimumSubtotal) return subtotal;');
    expect(context_md).not.toContain('StripeGateway');
    expect(report.context_loaded_tokens).toBe(countTokens(context_md));
    expect(report.context_loaded_tokens).toBeLessThanOrEqual(8000);
    expect(report.context_minimum_tokens).toBeGreaterThan(0);
    expect(report.context_minimum_tokens).toBeLessThanOrEqual(report.context_loaded_tokens);
    expect(report.query_token_count).toBe(countTokens('apply a discount coupon to the cart'));
    expect(report.compression_ratio).toBeGreaterThanOrEqual(2);
    expect(report.compression_gate_passed).toBe(true);
    // Every visited node's files are loaded files.
    const loaded = new Set(receipt.files_loaded.map((f) => f.path));
    for (const e of map.tier_path_traversed) for (const f of e.files_loaded) expect(loaded.has(f)).toBe(true);
    // The plan is a FlightPlan the explorer can start from.
    expect(o.flight_plan!.focus!.symbols.map((s) => s.name)).toEqual(map.magic_words_extracted);
  });

  it('counts every line read at L4, not only the lines that matched', async () => {
    const o = await nav({ task: 'inventory stock reserve', repo_root: SHOP });
    expect(o.exit).toBe('EXIT_PASS');
    const go = o.artifacts.context_load_receipt.files_loaded.find((f) => f.path === 'services/inventory/main.go')!;
    const level = o.loaded.find((f) => f.path === 'services/inventory/main.go')!.level;
    expect(level).toBeGreaterThanOrEqual(3);
    expect(go.lines_read).toBeGreaterThanOrEqual(o.artifacts.context_md.split('\n').filter((l) => /^\d+│/.test(l) && l.includes('Reserve')).length);
  });

  it('gives byte-identical artifacts across runs, cold and warm cache alike, and the warm run parses nothing', async () => {
    const capsule = { task: 'where is the stripe charge refund', repo_root: SHOP };
    const cold = await nav(capsule, { cacheDir: tmpDir('nk-cache-') });
    const dir = tmpDir('nk-cache-');
    await nav(capsule, { cacheDir: dir });
    const warm = await nav(capsule, { cacheDir: dir });
    expect(warm.index_stats!.parsed).toBe(0);
    expect(warm.registry!.origin.startsWith(dir)).toBe(true);
    const check = compareRuns(cold, warm);
    expect(check.problems).toEqual([]);
    expect(check.passed).toBe(true);
  });

  it('goes straight from the trunk to loading when the trunk covers every magic word', async () => {
    const o = await nav({ task: 'what is in the package manifest', repo_root: SHOP });
    expect(o.magic_words.map((w) => w.word)).toEqual(['package']);
    expect(o.states).not.toContain('BRANCH_IF_NEEDED');
    expect(o.states.indexOf('LOAD_CONTEXT')).toBe(o.states.indexOf('TRAVERSE_TRUNK') + 1);
    expect(o.artifacts.context_load_receipt.files_loaded.map((f) => f.path)).toEqual(['package.json']);
  });

  it('respects the capsule budget and scope', async () => {
    const one = await nav({ task: 'apply a discount coupon to the cart', repo_root: SHOP, budget: { max_files: 1 } });
    expect(one.loaded.length).toBe(1);
    const calls = await nav({ task: 'apply a discount coupon to the cart', repo_root: SHOP, budget: { max_tool_calls: 2 } });
    expect(calls.loaded.filter((f) => f.lines_read > 0).length).toBeLessThanOrEqual(1);
    const scoped = await nav({ task: 'cart checkout charge', repo_root: SHOP, constraints: { scope: ['src/payments/**'] } });
    expect(scoped.loaded.length).toBeGreaterThan(0);
    for (const f of scoped.loaded) expect(f.path.startsWith('src/payments/')).toBe(true);
  });
});

describe('magic words and NEED_INFO', () => {
  it('exits NEED_INFO at NULL_CHECK for a missing task or repository, with the reason', async () => {
    const noTask = await nav({ repo_root: SHOP });
    expect(noTask.exit).toBe('EXIT_NEED_INFO');
    expect(noTask.states).toEqual(['INIT', 'INTAKE_QUERY', 'NULL_CHECK', 'EXIT_NEED_INFO']);
    expect(noTask.stop_reason).toBe('NEED_INFO: TASK is missing');
    expect((await nav({ task: 'cart' })).stop_reason).toBe('NEED_INFO: REPO_ROOT is undefined');
    expect((await nav({ task: 'cart', repo_root: path.join(SHOP, 'nope') })).stop_reason).toMatch(/^NEED_INFO: REPO_ROOT .* does not exist$/);
    expect((await nav({ task: '   ', repo_root: SHOP })).stop_reason).toBe('NEED_INFO: TASK is blank');
    validArtifacts(noTask);
  });

  it('tells "no magic words found" apart for an absent, an empty and an unmatched hint — never an empty list', async () => {
    const task = 'zebra quokka';
    const absent = await nav({ task, repo_root: SHOP });
    const empty = await nav({ task, repo_root: SHOP, magic_words_hint: [] });
    const unmatched = await nav({ task, repo_root: SHOP, magic_words_hint: ['narwhal'] });
    for (const o of [absent, empty, unmatched]) {
      expect(o.exit).toBe('EXIT_NEED_INFO');
      expect(o.violations).toEqual([]);
      expect(o.states.slice(-2)).toEqual(['EXTRACT_MAGIC_WORDS', 'EXIT_NEED_INFO']);
    }
    expect(absent.stop_reason).toContain('no hint was given');
    expect(empty.stop_reason).toContain('the hint is empty');
    expect(unmatched.stop_reason).toContain('narwhal');
  });

  it('takes only registry words from the task and the hint, and ignores unknown hint words', async () => {
    const o = await nav({ task: 'Where does the StripeGateway handle a refund?', repo_root: SHOP, magic_words_hint: ['ledger', 'unicorn'] });
    const words = o.magic_words.map((w) => `${w.word}:${w.source}`);
    expect(words).toEqual(expect.arrayContaining(['stripe:task', 'gateway:task', 'refund:task', 'ledger:hint']));
    expect(words.some((w) => w.startsWith('unicorn') || w.startsWith('where') || w.startsWith('the:'))).toBe(false);
    const again = await nav({ task: 'Where does the StripeGateway handle a refund?', repo_root: SHOP, magic_words_hint: ['ledger', 'unicorn'] });
    expect(again.magic_words).toEqual(o.magic_words);
  });

  it('reads a repository\'s own magic-words.jsonl (stillwater shape) with compound words and aliases', async () => {
    const repo = copyShop();
    mkdirSync(path.join(repo, '.navkernel'));
    const records = [
      { id: 'SH-001', word: 'checkout', tier: 0, definition: 'paying for a cart', parent: null, children: ['line_item'], gravity: 1.0, domain: 'universal', project: 'shop', date_added: '2026-01-01', usage_count: 0, last_used: null, related_words: ['payment'], compression_ratio: null, paths: ['src/index.ts'] },
      { id: 'SH-002', word: 'line_item', tier: 1, definition: 'one product line', parent: 'checkout', children: [], related_words: ['cart'], aliases: ['lineitem'], paths: ['src/cart/cart.ts'] },
      { id: 'SH-003', word: 'tax', tier: 2, definition: 'tax owed on an invoice', parent: 'line_item', children: [], related_words: [] },
    ];
    writeFileSync(path.join(repo, '.navkernel', 'magic-words.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const o = await nav({ task: 'how is the tax of a line item computed', repo_root: repo });
    expect(o.registry).toMatchObject({ source: 'repo', origin: '.navkernel/magic-words.jsonl', words: 3 });
    expect(o.magic_words.map((w) => w.word)).toEqual(['tax', 'line_item']);
    expect(o.exit).toBe('EXIT_PASS');
    const loaded = o.artifacts.context_load_receipt.files_loaded.map((f) => f.path);
    expect(loaded).toEqual(expect.arrayContaining(['java/src/main/java/shop/Invoice.java', 'src/cart/cart.ts']));
    // related_words are not aliases: "payment" is not a magic word.
    const related = await nav({ task: 'payment', repo_root: repo });
    expect(related.exit).toBe('EXIT_NEED_INFO');
  });
});

describe('review and gates', () => {
  it('re-navigates once when a magic word is left uncovered with budget to spare', async () => {
    const real = defaultSteps({ cacheDir });
    const o = await createNavigator({
      cacheDir,
      steps: {
        // A first pass that loses the refund files: the review must notice and send the machine back.
        loadContext: (input) => real.loadContext(input.pass === 1 ? { ...input, planned: input.planned.filter((p) => !p.words.includes('refund')) } : input),
      },
    }).navigate({ task: 'where is the stripe charge refund', repo_root: SHOP });
    expect(o.exit).toBe('EXIT_PASS');
    expect(o.passes).toBe(2);
    const i = o.states.indexOf('SOCRATIC_REVIEW');
    expect(o.states[i + 1]).toBe('TRAVERSE_TRUNK');
    expect(o.artifacts.navigation_map.tier_path_traversed.some((e) => e.justification.startsWith('re-navigation: '))).toBe(true);
    expect(o.review!.uncovered).toEqual([]);
    expect(o.artifacts.navigation_map.trunk_first_compliance).toBe(true);
  });

  it('blocks at VALIDATE_COMPRESSION when the ratio is below 2.0 and the load did not fit', async () => {
    const repo = tmpDir('nk-tiny-');
    writeFileSync(path.join(repo, 'widget.ts'), 'export function widgetSize(w: number): number {\n  return w * 2;\n}\n');
    writeFileSync(path.join(repo, 'widget-store.ts'), 'export class WidgetStore {\n  widgets: number[] = [];\n}\n');
    const task = `widget ${'please explain every detail of this thing carefully '.repeat(12)}`;
    const o = await nav({ task, repo_root: repo, budget: { max_tokens: countTokens(`# Context for: ${task}`) + 40 } });
    expect(o.exit).toBe('EXIT_BLOCKED');
    expect(o.states.slice(-2)).toEqual(['VALIDATE_COMPRESSION', 'EXIT_BLOCKED']);
    expect(o.stop_reason).toMatch(/^BLOCKED: COMPRESSION_GATE/);
    expect(o.artifacts.compression_report.compression_ratio).toBeLessThan(2);
    expect(o.artifacts.compression_report.compression_gate_passed).toBe(false);
  });

  it('blocks at SOCRATIC_REVIEW when everything fits but the ratio is below the gate', async () => {
    const repo = tmpDir('nk-tiny-');
    writeFileSync(path.join(repo, 'widget.ts'), 'export function widgetSize(w: number): number {\n  return w * 2;\n}\n');
    const o = await nav({ task: 'widget', repo_root: repo });
    expect(o.exit).toBe('EXIT_BLOCKED');
    expect(o.states.slice(-2)).toEqual(['SOCRATIC_REVIEW', 'EXIT_BLOCKED']);
    expect(o.stop_reason).toMatch(/^BLOCKED: COMPRESSION_GATE/);
  });
});
