import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { compareRuns, createNavigator, loadRegistry, navigate, openTextIndex, rankForTask } from '../../src/navigator/index.js';
import { taskAbout } from '../../src/navigator/retrieval/ranking.js';
import { extractMagicWords } from '../../src/navigator/pipeline/magic-words.js';
import { classifyPath, indexRepo, resetTokenCache, tokenCounterStats } from '../../src/repomap/index.js';
import { tmpDir } from '../repomap/fixture.js';

// A small repository of our own (not the eval sets), one file per rule.
const FILES: Record<string, string> = {
  'package.json': '{ "name": "fetchy", "version": "1.0.0" }\n',
  'README.md': '# fetchy\n\nA tiny HTTP client with retries and custom fetch support.\n',
  'src/index.ts': "export { request } from './client.js';\nexport { merge } from './merge.js';\n",
  // A word used only inside a body (an option property), and a header only in a string.
  'src/retry.ts': [
    'export interface RetryOptions {',
    '  limit: number;',
    '}',
    '',
    'export function computeDelay(options: RetryOptions, attempt: number, headers: Headers): number {',
    '  const base = 2 ** attempt * 100;',
    '  const capped = Math.min(base, options.backoffLimit ?? Infinity);',
    "  const ip = headers.get('CF-Connecting-IP');",
    '  return ip ? capped : base;',
    '}',
    '',
  ].join('\n'),
  // Exact definition `merge` vs a name that merely contains it.
  'src/merge.ts': 'export function merge<T extends object>(a: T, b: Partial<T>): T {\n  return { ...a, ...b };\n}\n',
  'src/merge-headers.ts': 'export function mergeHeaderValues(a: Headers, b: Headers): Headers {\n  const out = new Headers(a);\n  b.forEach((v, k) => out.set(k, v));\n  return out;\n}\n',
  // The source that *uses* fetch; the test file *defines* the matching names.
  'src/client.ts': [
    "import { merge } from './merge.js';",
    '',
    'export interface ClientOptions {',
    '  fetch?: typeof globalThis.fetch;',
    '}',
    '',
    'export async function request(url: string, options: ClientOptions = {}): Promise<Response> {',
    '  const settings = merge({ fetch: globalThis.fetch }, options);',
    '  const customFetch = settings.fetch!;',
    '  return customFetch(url);',
    '}',
    '',
  ].join('\n'),
  'test/fetch.test.ts': [
    "import { request } from '../src/client.js';",
    'function customFetch(url: string) { return fetchStub(url); }',
    'function fetchStub(url: string) { return new Response(url); }',
    'function customFetchWithHeaders(url: string) { return customFetch(url); }',
    "test('custom fetch', async () => { await request('x', { fetch: customFetch }); });",
    "test('custom fetch with headers', async () => { await request('x', { fetch: customFetchWithHeaders }); });",
    '',
  ].join('\n'),
  // Build output next to a manifest, with no .gitignore to exclude it.
  'dist/client.js': 'export async function request(url, options = {}) {\n  const customFetch = options.fetch ?? globalThis.fetch;\n  return customFetch(url);\n}\n',
  // A long file: the matched words sit deep inside it.
  'src/long.ts': [
    ...Array.from({ length: 120 }, (_, i) => `export function filler${i}(x: number): number {\n  return x + ${i};\n}`),
    'export function parseRetryAfter(value: string): number {',
    '  const seconds = Number(value);',
    '  return Number.isNaN(seconds) ? Date.parse(value) - Date.now() : seconds * 1000;',
    '}',
    '',
  ].join('\n'),
};

function makeRepo(): string {
  const root = path.join(tmpDir('nk-fetchy-'), 'fetchy');
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

// Made in beforeAll, not at collection: a filter (-t) that skips every test runs no afterAll to remove them.
let REPO: string;
let cacheDir: string;
beforeAll(() => {
  REPO = makeRepo();
  cacheDir = tmpDir('nk-cache-');
});
const nav = (task: string, extra: Record<string, unknown> = {}) => navigate({ task, repo_root: REPO, ...extra }, { cacheDir });
const loadedPaths = (o: Awaited<ReturnType<typeof nav>>) => o.artifacts.context_load_receipt.files_loaded.map((f) => f.path);

async function ranking(task: string) {
  const index = await indexRepo(REPO, { cacheDir: false });
  const registry = loadRegistry(index, { cacheDir: false });
  const { words } = extractMagicWords(task, undefined, registry);
  const r = rankForTask(task, words, index, registry.text, () => true);
  registry.text.close();
  return r;
}

describe('full-text retrieval rules (fixture repository "fetchy")', () => {
  it('finds a word that occurs only in a code body or a string (no NEED_INFO), and loads the lines where it is', async () => {
    const o = await nav('honour backoffLimit when computing the delay');
    expect(o.exit).toBe('EXIT_PASS');
    expect(o.magic_words.map((w) => w.word)).toContain('backofflimit');
    expect(loadedPaths(o)[0]).toBe('src/retry.ts');
    expect(o.artifacts.context_md).toContain('options.backoffLimit ?? Infinity');
    const header = await nav('read the CF-Connecting-IP header');
    expect(header.exit).toBe('EXIT_PASS');
    expect(loadedPaths(header)).toContain('src/retry.ts');
    expect(header.artifacts.context_md).toContain("headers.get('CF-Connecting-IP')");
  });

  it('ranks an exact definition above a name that merely contains the word', async () => {
    const r = await ranking('merge two objects');
    const exact = r.files.find((f) => f.path === 'src/merge.ts')!;
    const partial = r.files.find((f) => f.path === 'src/merge-headers.ts')!;
    expect(exact.definition).toBeGreaterThan(0);
    expect(partial.definition).toBeCloseTo(exact.definition / 2, 5);
    expect(r.files.indexOf(exact)).toBeLessThan(r.files.indexOf(partial));
  });

  it('reaches a file through a stemmed word ("merging" → merge.ts)', async () => {
    const o = await nav('stop merging options twice');
    expect(o.magic_words.map((w) => w.word)).toContain('merging');
    expect(loadedPaths(o)).toContain('src/merge.ts');
  });

  it('puts the source that uses a name before the test file that defines it, unless the task is about tests', async () => {
    const r = await ranking('support a custom fetch');
    const src = r.files.findIndex((f) => f.path === 'src/client.ts');
    const test = r.files.findIndex((f) => f.path === 'test/fetch.test.ts');
    expect(src).toBeGreaterThanOrEqual(0);
    expect(test === -1 || src < test).toBe(true);
    expect(r.files.find((f) => f.path === 'test/fetch.test.ts')?.class).toBe('test');
    const t = await ranking('add tests for custom fetch');
    expect(t.about.tests).toBe(true);
    expect(t.files[0]!.path).toBe('test/fetch.test.ts');
  });

  it('skips build output even without a .gitignore, and classifies files', async () => {
    const index = await indexRepo(REPO, { cacheDir: false });
    expect(index.files.some((f) => f.path.startsWith('dist/'))).toBe(false);
    expect(index.skipped).toContainEqual({ path: 'dist/', reason: 'generated' });
    const o = await nav('custom fetch request');
    expect(loadedPaths(o).some((p) => p.startsWith('dist/'))).toBe(false);
    expect(['src/a.ts', 'test/a.ts', 'src/a.test.ts', 'docs/x.md', 'README.md', 'examples/a.ts', 'src/a.d.ts', 'vendor/x/a.go', 'a_test.go', 'tests/test_a.py', 'src/x.min.js', '_examples/rest/main.go'].map(classifyPath)).toEqual([
      'source', 'test', 'test', 'doc', 'doc', 'example', 'generated', 'vendored', 'test', 'test', 'generated', 'example',
    ]);
    // Copies of other projects: an `extern/` folder, a file named after a release. A version-like folder or a
    // dotted module name is not one.
    expect(['pkg/extern/ply/lex.py', 'pkg/themes/static/jquery-3.5.1.js', 'static/bootstrap-4.3.1.min.css', 'pkg/static/searchtools.js', 'v1.2/app.js', 'src/parse.v2.ts'].map(classifyPath)).toEqual([
      'vendored', 'vendored', 'vendored', 'source', 'source', 'source',
    ]);
    // Message catalogs quote the sources' messages: ranked last, so an error message finds the code that raises it.
    expect(['app/locale/ja/LC_MESSAGES/app.po', 'app/locale/app.pot', 'app/locale/ja/LC_MESSAGES/app.js'].map(classifyPath)).toEqual(['generated', 'generated', 'generated']);
  });

  it('prefers docs and tests only when the task is about them: a docstring is code, and an issue naming docs or tests reports a bug in code', () => {
    expect(taskAbout('docs: explain the retry option').docs).toBe(true);
    expect(taskAbout('fix the docstring of merge').docs).toBe(false);
    // An issue (a title and a body) is judged by its title, and only a fault in the documents themselves counts.
    expect(taskAbout('Doc rendering is incorrect for dict params\nThe docs show the wrong type.').docs).toBe(false);
    expect(taskAbout('Typo in the README install section\nIt says pip instal.').docs).toBe(true);
    // Tests the same way: a commit subject about tests prefers them; a bug report naming tests reports a fault in the code under them.
    expect(taskAbout('add tests for merge').tests).toBe(true);
    expect(taskAbout('caplog fixture does not restore the log level after a test\nThe level leaks.').tests).toBe(false);
    expect(taskAbout('Flaky test in the retry suite\nIt fails one run in ten.').tests).toBe(true);
  });

  it('takes lines from the densest window, widened to the enclosing definition, and counts exactly those lines', async () => {
    const o = await nav('parse the retry after value');
    const f = o.artifacts.context_load_receipt.files_loaded.find((x) => x.path === 'src/long.ts')!;
    expect(f).toBeDefined();
    const block = o.artifacts.context_md.split('==> ').find((b) => b.startsWith('src/long.ts'))!;
    expect(block).toContain('361│export function parseRetryAfter(value: string): number {');
    expect(block).toContain('Date.parse(value)');
    expect(block).not.toContain('\n1│');
    const shown = block.split('\n').filter((l) => /^\d+│/.test(l)).length;
    expect(f.lines_shown).toBe(shown);
    expect(f.lines_shown).toBeLessThan(60);
    // The navigator read the whole file to find that window: that is what lines_read says (seed 002 "Silent Context Spill").
    expect(f.lines_read).toBe(readFileSync(path.join(REPO, 'src/long.ts'), 'utf8').split('\n').length - 1);
  });

  it('keeps a persistent index that a warm run does not rewrite and a change updates by one file; artifacts equal cold and warm', async () => {
    const repo = makeRepo();
    const dir = tmpDir('nk-cache-');
    const task = 'honour backoffLimit when computing the delay';
    const cold = await navigate({ task, repo_root: repo }, { cacheDir: dir });
    const warm = await navigate({ task, repo_root: repo }, { cacheDir: dir });
    const memory = await navigate({ task, repo_root: repo }, { cacheDir: false });
    expect(compareRuns(cold, warm).problems).toEqual([]);
    expect(compareRuns(cold, memory).problems).toEqual([]);
    const index = await indexRepo(repo, { cacheDir: dir });
    const reg = loadRegistry(index, { cacheDir: dir });
    expect(reg.text.stats.lexed).toBe(0);
    expect(existsSync(reg.text.origin)).toBe(true);
    writeFileSync(path.join(repo, 'src/merge.ts'), `${readFileSync(path.join(repo, 'src/merge.ts'), 'utf8')}// changed\n`);
    const index2 = await indexRepo(repo, { cacheDir: dir });
    const reg2 = loadRegistry(index2, { cacheDir: dir });
    expect(reg2.text.stats).toMatchObject({ lexed: 1, removed: 1 });
  });

  it('a warm run counts no token again: exact counts come from the persistent index, the same as counted cold', async () => {
    const repo = makeRepo();
    const dir = tmpDir('nk-tokens-');
    const task = 'honour backoffLimit when computing the delay';
    resetTokenCache();
    const cold = await navigate({ task, repo_root: repo }, { cacheDir: dir });
    const counted = tokenCounterStats().calls;
    expect(counted).toBeGreaterThan(0);
    resetTokenCache(); // what a new process sees: only the persistent store
    const warm = await navigate({ task, repo_root: repo }, { cacheDir: dir });
    expect(tokenCounterStats().calls).toBe(counted);
    expect(compareRuns(cold, warm).problems).toEqual([]);
    expect(warm.artifacts.compression_report).toEqual(cold.artifacts.compression_report);
    // Without a cache directory every count is made again.
    resetTokenCache();
    await navigate({ task, repo_root: repo }, { cacheDir: false });
    expect(tokenCounterStats().calls).toBeGreaterThan(counted);
  });

  it('indexes a compiled mirror by its path only: `lib/x.mjs` beside `src/lib/x.ts` is never loaded for a word inside it', async () => {
    const repo = path.join(tmpDir('nk-mirror-'), 'r');
    mkdirSync(path.join(repo, 'src/lib'), { recursive: true });
    mkdirSync(path.join(repo, 'lib'), { recursive: true });
    writeFileSync(path.join(repo, 'src/lib/stream.ts'), 'export function pumpZebrafish(n: number): number {\n  return n + 1;\n}\n');
    writeFileSync(path.join(repo, 'lib/stream.mjs'), 'export function pumpZebrafish(n) {\n  return n + 1;\n}\n');
    writeFileSync(path.join(repo, 'lib/stream.js'), 'exports.pumpZebrafish = function pumpZebrafish(n) {\n  return n + 1;\n};\n');
    const o = await navigate({ task: 'make pumpZebrafish faster', repo_root: repo }, { cacheDir: false });
    expect(o.loaded.map((f) => f.path)).toEqual(['src/lib/stream.ts']);
    const index = await indexRepo(repo, { cacheDir: false });
    const reg = loadRegistry(index, { cacheDir: false });
    expect(reg.text.filesWith('pumpzebrafish')).toEqual(['src/lib/stream.ts']);
    expect(reg.text.classOf('lib/stream.mjs')).toBe('generated');
    reg.text.close();
  });

  it('keeps code-like tokens that are also stop words (`Use()`)', async () => {
    const repo = path.join(tmpDir('nk-use-'), 'r');
    mkdirSync(repo, { recursive: true });
    writeFileSync(path.join(repo, 'middleware.go'), 'package r\n\nfunc (r *Router) Use(mw ...Middleware) {\n\tr.mws = append(r.mws, mw...)\n}\n');
    writeFileSync(path.join(repo, 'router.go'), 'package r\n\ntype Router struct {\n\tmws []Middleware\n}\n');
    const index = await indexRepo(repo, { cacheDir: false });
    const registry = loadRegistry(index, { cacheDir: false });
    expect(extractMagicWords('Make Use() variadic', undefined, registry).words.map((w) => w.word)).toContain('use');
    expect(extractMagicWords('make use of it', undefined, registry).words.map((w) => w.word)).not.toContain('use');
    registry.text.close();
  });

  it('the navigate command imports no LLM SDK, no kernel, and neither the tokenizer nor tree-sitter at start-up', () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const seen = new Set<string>();
    const packages = new Set<string>();
    const stack = [path.join(root, 'src/cli/commands/navigate.ts')];
    while (stack.length) {
      const f = stack.pop()!;
      if (seen.has(f)) continue;
      seen.add(f);
      const src = readFileSync(f, 'utf8');
      for (const m of src.matchAll(/^\s*(?:import|export)\s(?!type\b)[^'"]*?from\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm)) {
        const spec = (m[1] ?? m[2])!;
        if (spec.startsWith('.')) stack.push(path.resolve(path.dirname(f), spec.replace(/\.js$/, '.ts')));
        else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    const files = [...seen].map((f) => path.relative(root, f));
    expect(files.filter((f) => f.startsWith('src/kernel/') || f.startsWith('src/ledger/') || f.startsWith('src/explorer/'))).toEqual([]);
    for (const p of ['@anthropic-ai/sdk', '@google/genai', 'js-tiktoken']) expect(packages.has(p)).toBe(false);
    // Both are loaded on first use only (a warm run over an unchanged repository needs neither).
    expect(packages.has('gpt-tokenizer')).toBe(false);
    expect(packages.has('web-tree-sitter')).toBe(false);
    expect(packages.has('yaml')).toBe(false);
  });
});

describe('honest accounting (issue 16 item 5)', () => {
  it('is never a pass with zero files: words found only outside the scope end NEED_INFO with the reason', async () => {
    const o = await nav('honour backoffLimit when computing the delay', { constraints: { scope: ['docs/**'] } });
    expect(o.exit).toBe('EXIT_NEED_INFO');
    expect(o.stop_reason).toMatch(/^NEED_INFO: no magic words found in scope: .*backofflimit/);
    expect(o.artifacts.context_load_receipt.files_loaded).toEqual([]);
  });

  it('does not pass when the load put no file in the context', async () => {
    const real = createNavigator({ cacheDir }).steps;
    const o = await createNavigator({ cacheDir, steps: { loadContext: (input) => real.loadContext({ ...input, planned: [] }) } }).navigate({ task: 'honour backoffLimit', repo_root: REPO });
    expect(o.exit).not.toBe('EXIT_PASS');
    expect(o.loaded).toEqual([]);
  });

  it('lists exactly the files in the context, none with 0 lines; lines_shown sums to the lines shown, lines_read to the files\' lines (issue 22 item 8)', async () => {
    const o = await nav('custom fetch request with merged headers and retry delay');
    const receipt = o.artifacts.context_load_receipt;
    const blocks = o.artifacts.context_md.split('==> ').slice(1);
    expect(receipt.files_loaded.map((f) => f.path)).toEqual(blocks.map((b) => b.slice(0, b.indexOf(' '))));
    for (const f of receipt.files_loaded) expect(f.lines_shown).toBeGreaterThan(0);
    // A whole file is shown without numbers (its header gives the count); a part, as numbered lines.
    const shown = blocks.reduce((s, b) => {
      const head = /^\S+ \[L\d, (\d+) lines(; (\d+) shown)?\]/.exec(b)!;
      return s + (head[3] ? b.split('\n').filter((l) => /^\d+│/.test(l)).length : Number(head[1]));
    }, 0);
    expect(receipt.total_lines_loaded).toBe(shown);
    // What was read: every line of each loaded file, more than what is shown.
    const read = receipt.files_loaded.reduce((s, f) => s + readFileSync(path.join(REPO, f.path), 'utf8').replace(/\n$/, '').split('\n').length, 0);
    expect(receipt.total_lines_read).toBe(read);
    expect(receipt.total_lines_read).toBeGreaterThan(receipt.total_lines_loaded);
    expect(receipt.budget_used_fraction).toBe(Math.round((shown / receipt.budget_limit_lines) * 10000) / 10000);
    // Each file's ranges are its numbered lines, with the sha256 of each range's text.
    for (const f of receipt.files_loaded) {
      const lines = readFileSync(path.join(REPO, f.path), 'utf8').replace(/\n$/, '').split('\n');
      expect(f.ranges.reduce((s, [a, b]) => s + b - a + 1, 0)).toBe(f.lines_shown);
      f.ranges.forEach(([a, b], i) => expect(f.range_sha256[i]).toBe(createHash('sha256').update(lines.slice(a - 1, b).join('\n')).digest('hex')));
    }
  });
});

describe('files that are not files (issue 12 item 8, navigator half)', () => {
  it('reads a .gitignore only when it is a regular file inside the root, and says why it skipped one', async () => {
    const base = tmpDir('nk-gi-');
    const outside = path.join(base, 'outside.txt');
    writeFileSync(outside, 'src/\n');
    const mk = (name: string, make: (gi: string) => void) => {
      const root = path.join(base, name);
      mkdirSync(path.join(root, 'src'), { recursive: true });
      writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 1;\n');
      make(path.join(root, '.gitignore'));
      return root;
    };
    const fifo = mk('fifo', (gi) => execFileSync('mkfifo', [gi]));
    const zero = mk('zero', (gi) => execFileSync('ln', ['-s', '/dev/zero', gi]));
    const out = mk('out', (gi) => execFileSync('ln', ['-s', outside, gi]));
    const big = mk('big', (gi) => writeFileSync(gi, `${'x'.repeat(2048)}\n`));
    for (const [root, reason] of [[fifo, 'not_a_regular_file'], [zero, 'symlink_outside_root'], [out, 'symlink_outside_root']] as const) {
      const index = await indexRepo(root, { cacheDir: false });
      expect(index.skipped).toContainEqual({ path: '.gitignore', reason });
      // The rules of an unread .gitignore do not apply: src/ stays.
      expect(index.files.map((f) => f.path)).toContain('src/a.ts');
    }
    const capped = await indexRepo(big, { cacheDir: false, maxFileBytes: 1024 });
    expect(capped.skipped).toContainEqual({ path: '.gitignore', reason: 'oversized' });
    const o = await createNavigator({ cacheDir: false }).navigate({ task: 'where is a', repo_root: fifo });
    expect(o.exit).not.toBe('EXIT_BLOCKED');
  });
});

describe('the text index', () => {
  it('ranks by BM25F with field weights: a path or definition match beats a body mention', async () => {
    const index = await indexRepo(REPO, { cacheDir: false });
    const text = openTextIndex(index, false);
    const hits = text.search(['merg'], 10).map((h) => h.path);
    expect(hits[0]).toBe('src/merge.ts');
    expect(text.docFreq('backofflimit')).toBe(1);
    expect(text.filesWith('backofflimit')).toEqual(['src/retry.ts']);
    text.close();
  });
});

describe('skill-pack order (issue 16 item 3, issue 22 item 3)', () => {
  it('accepts prime-safety first and a persona last, and refuses any other order with a typed error naming the entry', async () => {
    const ok = await nav('honour backoffLimit', { skill_pack: ['prime-safety', 'phuc-magic-words', 'phuc-gps', 'knuth'] });
    expect(ok.exit).toBe('EXIT_PASS');
    const refused = async (pack: string[]) => {
      try {
        await nav('honour backoffLimit', { skill_pack: pack });
      } catch (err) {
        return err as { code: string; issues: { path: string; message: string }[] };
      }
      throw new Error(`accepted ${pack.join(', ')}`);
    };
    const late = await refused(['phuc-gps', 'prime-safety']);
    expect(late.code).toBe('INVALID_CAPSULE');
    expect(late.issues[0]).toMatchObject({ path: ['skill_pack', 0] });
    expect(late.issues[0]!.message).toContain('prime-safety first');
    const persona = await refused(['prime-safety', 'shannon', 'phuc-magic-words', 'phuc-gps']);
    expect(persona.issues[0]).toMatchObject({ path: ['skill_pack', 1] });
    expect(persona.issues[0]!.message).toContain('loaded last');
    expect((await refused([])).issues[0]!.message).toContain('empty');
    expect((await refused(['prime-safety', 'phuc-magic-words', 'phuc-gps', 'knuth', 'feynman'])).issues.some((i) => i.message.includes('at most one persona'))).toBe(true);
  });

});

describe('NORTHSTAR alignment (issue 16 item 1)', () => {
  const NORTHSTAR = [
    '# Fetchy north star',
    '',
    '## Metrics',
    '- retry delay honours the backoff limit',
    '- requests merge options correctly',
    '',
    '## Non-goals',
    '- test fetch stubs',
    '',
  ].join('\n');
  const repoWith = () => {
    const repo = makeRepo();
    writeFileSync(path.join(repo, 'NORTHSTAR.md'), NORTHSTAR);
    return repo;
  };

  it('reads a NORTHSTAR.md named by the capsule and records the metric the context serves, with its evidence', async () => {
    const repo = repoWith();
    const o = await navigate({ task: 'honour backoffLimit when computing the delay', repo_root: repo, northstar: 'NORTHSTAR.md' }, { cacheDir: false });
    expect(o.exit).toBe('EXIT_PASS');
    const m = o.artifacts.navigation_map.northstar_metric!;
    expect(m).toMatchObject({ metric: 'retry delay honours the backoff limit', source: 'northstar', origin: 'NORTHSTAR.md', line: 4 });
    expect(m.evidence).toEqual(expect.arrayContaining(['backoff', 'limit', 'delai']));
    expect(m.files).toContain('src/retry.ts');
    // Inline text works the same; without a NORTHSTAR the field is absent.
    const inline = await navigate({ task: 'honour backoffLimit when computing the delay', repo_root: repo, ecosystem_northstar: NORTHSTAR }, { cacheDir: false });
    expect(inline.artifacts.navigation_map.northstar_metric).toMatchObject({ source: 'ecosystem_northstar', origin: 'text', line: 4 });
    const none = await navigate({ task: 'honour backoffLimit when computing the delay', repo_root: repo }, { cacheDir: false });
    expect('northstar_metric' in none.artifacts.navigation_map).toBe(false);
  });

  it('exits NEED_INFO, never PASS, when the task serves no metric, or the NORTHSTAR file cannot be read', async () => {
    const repo = repoWith();
    const o = await navigate({ task: 'read the CF-Connecting-IP header', repo_root: repo, northstar: 'NORTHSTAR.md' }, { cacheDir: false });
    expect(o.exit).toBe('EXIT_NEED_INFO');
    expect(o.stop_reason).toMatch(/^NEED_INFO: the task serves no NORTHSTAR metric/);
    const fifo = makeRepo();
    execFileSync('mkfifo', [path.join(fifo, 'NORTHSTAR.md')]);
    const unread = await navigate({ task: 'honour backoffLimit', repo_root: fifo, northstar: 'NORTHSTAR.md' }, { cacheDir: false });
    expect(unread.exit).toBe('EXIT_NEED_INFO');
    expect(unread.stop_reason).toBe('NEED_INFO: northstar NORTHSTAR.md was not read: not a regular file');
    const outside = await navigate({ task: 'honour backoffLimit', repo_root: repo, northstar: '../NORTHSTAR.md' }, { cacheDir: false });
    expect(outside.stop_reason).toContain('not a path inside the repository');
  });

  it('NORTHSTAR_UNREAD: a NORTHSTAR given but not read before BUILD_ARTIFACTS ends EXIT_BLOCKED naming it', async () => {
    const repo = repoWith();
    const real = createNavigator({ cacheDir: false }).steps;
    const o = await createNavigator({ cacheDir: false, steps: { intakeQuery: async (c) => ({ ...(await real.intakeQuery(c)), northstars: [] }) } }).navigate({
      task: 'honour backoffLimit when computing the delay',
      repo_root: repo,
      northstar: 'NORTHSTAR.md',
    });
    expect(o.exit).toBe('EXIT_BLOCKED');
    expect(o.violations[0]!.state).toBe('NORTHSTAR_UNREAD');
    expect(o.stop_reason).toMatch(/^BLOCKED: NORTHSTAR_UNREAD \(/);
  });

  it('NORTHSTAR_MISALIGNED: loaded context that contradicts a stated non-goal ends EXIT_BLOCKED naming it', async () => {
    const repo = repoWith();
    const o = await navigate({ task: 'add tests for custom fetch requests that merge options', repo_root: repo, northstar: 'NORTHSTAR.md' }, { cacheDir: false });
    expect(o.exit).toBe('EXIT_BLOCKED');
    expect(o.violations.map((v) => v.state)).toContain('NORTHSTAR_MISALIGNED');
    expect(o.stop_reason).toContain('test/fetch.test.ts contradicts the NORTHSTAR non-goal "test fetch stubs"');
  });
});
