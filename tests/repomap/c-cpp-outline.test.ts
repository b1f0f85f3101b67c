import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractOutline, headerLanguage, indexRepo, languageOf } from '../../src/repomap/index.js';
import { cxxShortName } from '../../src/repomap/outline.js';
import { MAX_C_PARSE_CHARS, NOT_PARSED_C_TEST, NOT_PARSED_LARGE } from '../../src/repomap/file-record.js';
import { SHOP, scratch } from './fixture.js';

const REPOS = path.resolve(SHOP, '..');
const read = (rel: string) => readFileSync(path.join(REPOS, rel), 'utf8');
const s = scratch();
afterAll(() => s.cleanup());

describe('C outlines (tree-sitter-c)', () => {
  it('finds functions (K&R ones too), structs, typedefs, enums and macros, with their real line ranges', async () => {
    const kv = await extractOutline('c', read('kvstore/src/kv.c'));
    expect(kv.parse_error).toBeUndefined();
    const byName = new Map(kv.defs.map((d) => [`${d.kind} ${d.name}`, d]));
    expect(byName.get('struct kv_store')).toMatchObject({ start: 5, end: 9 });
    expect(byName.get('function kv_hash')).toMatchObject({ start: 14, end: 19, doc: [13, 13] });
    // An old-style definition: the parameter declarations sit between the declarator and the body.
    expect(byName.get('function kv_legacy_count')).toMatchObject({ start: 77, end: 81 });
    expect(byName.get('variable kv_errors')).toBeDefined();
    expect(kv.includes).toEqual(['stdlib.h', 'string.h', 'kv.h']);
    const h = await extractOutline('c', read('kvstore/src/kv.h'));
    const names = h.defs.map((d) => `${d.kind} ${d.name}`);
    expect(names).toEqual(expect.arrayContaining(['macro KV_H', 'macro KV_MAX_KEY', 'macro KV_HASH', 'struct kv_entry', 'type kv_entry', 'type kv_status', 'type kv_store']));
    // A one-line `#define` is one line (its node takes the newline).
    const hash = h.defs.find((d) => d.name === 'KV_HASH')!;
    expect(hash.end).toBe(hash.start);
    // Prototypes are no definitions: they reference the definitions in kv.c (the header–source tie).
    expect(names.some((n) => n.endsWith(' kv_put'))).toBe(false);
    expect(h.refs.map(([r]) => r)).toEqual(expect.arrayContaining(['kv_open', 'kv_put', 'kv_get', 'kv_close', 'kv_hash']));
    // Calls in main.c are references.
    const main = await extractOutline('c', read('kvstore/src/main.c'));
    expect(new Map(main.refs).get('kv_put')).toBe(1);
  });
});

describe('C++ outlines (tree-sitter-cpp)', () => {
  it('names qualified definitions, operators and template specialisations by their last segment, and keeps template heads in the range', async () => {
    const cc = await extractOutline('cpp', read('tinyfmt/src/format.cc'));
    const ns = cc.defs.findIndex((d) => d.kind === 'module' && d.name === 'tinyfmt');
    const parse = cc.defs.find((d) => d.name === 'parse_spec')!;
    expect(parse).toMatchObject({ kind: 'function', start: 7, end: 20, parent: ns });
    const h = await extractOutline('cpp', read('tinyfmt/include/tinyfmt/format.h'));
    expect(h.parse_error).toBeUndefined();
    const all = h.defs.map((d) => `${d.kind} ${d.name}`);
    expect(all).toEqual(
      expect.arrayContaining([
        'macro TINYFMT_VERSION',
        'macro TINYFMT_THROW',
        'module tinyfmt',
        'module detail',
        'enum align',
        'struct format_spec',
        'class format_error',
        'class basic_buffer',
        'function push_back',
        'function operator+=',
        'function operator[]',
        'function operator==',
        'type value_type',
        'type buffer',
        'struct formatter',
        'function format',
        'function format_error',
      ]),
    );
    // `template <typename Char> class basic_buffer {` starts on its template line; members nest in it.
    const lines = read('tinyfmt/include/tinyfmt/format.h').split('\n');
    const buf = h.defs.findIndex((d) => d.name === 'basic_buffer');
    expect(lines[h.defs[buf]!.start - 1]).toMatch(/^template <typename Char> class basic_buffer/);
    expect(h.defs.find((d) => d.name === 'operator+=')!.parent).toBe(buf);
    // A function template defined in a namespace: its range holds the template head and the body.
    const format = h.defs.find((d) => d.kind === 'function' && d.name === 'format' && d.parent !== null && h.defs[d.parent]!.kind === 'module')!;
    expect(lines[format.start - 1]).toMatch(/^template <typename\.\.\. Args>/);
    expect(lines[format.end - 1]).toBe('}');
    // A member prototype in a class and a namespace-level prototype are references to their definitions.
    expect(h.refs.map(([r]) => r)).toEqual(expect.arrayContaining(['parse_spec', 'vformat']));
  });

  it('short names: qualified, destructors, templates and operators', () => {
    expect(cxxShortName('tinyfmt::detail::parse_spec')).toBe('parse_spec');
    expect(cxxShortName('Buffer<T>::~Buffer')).toBe('~Buffer');
    expect(cxxShortName('formatter<T, std::enable_if_t<is_integral_v<T>>>')).toBe('formatter');
    expect(cxxShortName('basic_buffer<Char>::operator+=')).toBe('operator+=');
    expect(cxxShortName('operator()')).toBe('operator()');
    expect(cxxShortName('operator std::string() const')).toBe('operator std::string');
    expect(cxxShortName('operator new[]')).toBe('operator new[]');
    expect(cxxShortName('(*)')).toBeUndefined();
  });
});

describe('which grammar reads a .h header', () => {
  it('C++ when the sources are mostly C++, C otherwise; other extensions decide alone', () => {
    expect(headerLanguage(['src/a.c', 'src/b.c', 'bindings/x.cpp'])).toBe('c');
    expect(headerLanguage(['src/a.cc', 'src/b.c'])).toBe('cpp');
    expect(headerLanguage(['include/x.h'])).toBe('c');
    expect(languageOf('include/x.h', 'cpp')).toBe('cpp');
    expect(languageOf('include/x.h')).toBe('c');
    expect(languageOf('src/x.hpp')).toBe('cpp');
    expect(languageOf('src/x.c')).toBe('c');
  });

  it('an index reads a C project’s headers as C and a C++ project’s as C++ (its own sources decide, not its tests)', async () => {
    const c = await indexRepo(path.join(REPOS, 'kvstore'), { cacheDir: false });
    expect(c.files.find((f) => f.path === 'src/kv.h')!.language).toBe('c');
    const cpp = await indexRepo(path.join(REPOS, 'tinyfmt'), { cacheDir: false });
    const header = cpp.files.find((f) => f.path === 'include/tinyfmt/format.h')!;
    expect(header.language).toBe('cpp');
    expect(header.outline.defs.some((d) => d.kind === 'class' && d.name === 'basic_buffer')).toBe(true);
  });
});

describe('amalgamations', () => {
  it('indexes a C file over 512 KiB as text and parses the ones below', async () => {
    const root = path.join(s.tmp('nk-amalgam-'), 'repo');
    mkdirSync(root, { recursive: true });
    const fn = (i: number) => `static int amalgamated_${i}(int x) { return x * ${i} + helper_${i % 7}(x); }\n`;
    let big = '';
    for (let i = 0; big.length <= MAX_C_PARSE_CHARS; i++) big += fn(i);
    writeFileSync(path.join(root, 'sqlite3.c'), big);
    writeFileSync(path.join(root, 'shell.c'), fn(1) + fn(2));
    const index = await indexRepo(root, { cacheDir: false });
    const amalgam = index.files.find((f) => f.path === 'sqlite3.c')!;
    expect(amalgam.outline).toEqual({ defs: [], refs: [], parse_error: NOT_PARSED_LARGE });
    expect(index.files.find((f) => f.path === 'shell.c')!.outline.defs.map((d) => d.name)).toEqual(['amalgamated_1', 'amalgamated_2']);
  });

  it('indexes C and C++ tests as text: the sources are parsed', async () => {
    const index = await indexRepo(path.join(REPOS, 'kvstore'), { cacheDir: false });
    expect(index.files.find((f) => f.path === 'tests/kv_test.c')!.outline.parse_error).toBe(NOT_PARSED_C_TEST);
    expect(index.files.find((f) => f.path === 'src/kv.c')!.outline.parse_error).toBeUndefined();
  });
});
