import { describe, expect, it } from 'vitest';
import { cTestNameClass } from '../../src/navigator/retrieval/c-test-names.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A C++ shell keeps its unit tests beside the sources (`src/shell_tests.cpp`): every function of the code is called
// there with the words of a report, so it outranked the source. Named as a test it goes after the source
// (issue 40, switch `c-test-names`; fails with NAVKERNEL_ABLATE=c-test-names).
const TESTS = Array.from({ length: 12 }, (_, i) => `static void test_history_search_${i}() {\n  history_t hist;\n  hist.add(L"echo history search ${i}");\n  do_test(hist.search_prefix(L"echo") == ${i}); // history search with a prefix counts items\n  do_test(hist.search_prefix(L"ls") == 0); // search_prefix counts every history item wrong\n}\n`).join('');
const REPO = {
  'src/history.cpp':
    '#include "history.h"\n// Searches the history for items starting with a prefix.\nsize_t history_t::search_prefix(const wcstring &prefix) {\n  size_t count = 0;\n  for (const auto &item : items_) {\n    if (string_prefixes_string(prefix, item.str())) count++;\n  }\n  return count;\n}\n',
  'src/history.h': '#pragma once\nclass history_t {\n public:\n  size_t search_prefix(const wcstring &prefix);\n  void add(const wcstring &s);\n};\n',
  'src/shell_tests.cpp': `#include "history.h"\n${TESTS}`,
  ...filler('src/builtins', 'cpp', 60, (i) => `// Builtin ${i}.\nint builtin_${i}(int argc, wchar_t **argv) { return argc > ${i} ? 1 : 0; }\n`),
};

describe('C/C++ test files named as tests (the c-test-names class)', () => {
  it('classes *_test.cc, *_tests.cpp and *_unittest.cc as tests, nothing else', () => {
    expect(cTestNameClass('src/shell_tests.cpp')).toBe('test');
    expect(cTestNameClass('db/version_set_test.cc')).toBe('test');
    expect(cTestNameClass('util/hash_unittest.cc')).toBe('test');
    expect(cTestNameClass('src/jv_test.c')).toBe('test');
    expect(cTestNameClass('src/history.cpp')).toBeUndefined();
    expect(cTestNameClass('src/contest.c')).toBeUndefined();
    expect(cTestNameClass('src/test_helpers.h')).toBeUndefined();
  });

  it('a report about history search prefixes: the source before the tests beside it', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, 'history search with a prefix counts wrong items\n\nSearching the history with a prefix counts every history item, as if no prefix was given: echo and ls items alike.');
    const at = (p: string) => (files.includes(p) ? files.indexOf(p) : 99);
    expect(files[0]).toBe('src/history.cpp');
    expect(at('src/history.cpp')).toBeLessThan(at('src/shell_tests.cpp'));
  });
});
