import type { FileClass } from '../../repomap/file-class.js';

/**
 * A C or C++ test file kept beside the sources, named as googletest and most C/C++ projects name tests
 * (`src/fish_tests.cpp`, `db/version_set_test.cc`, `util/hash_unittest.cc`): a test, though no test folder holds it.
 * The path classes know `_test` only for Python, Go, Rust, Ruby and Elixir; such a file calls every function of the
 * code it tests, so it outranked the source a report is about (issue 40, own C++ reports). Switch: `c-test-names`.
 */
const C_TEST_NAME = /_(unit)?tests?\.(c|cc|cpp|cxx|c\+\+)$/i;

/** `test` for a C/C++ file named as a test, undefined for anything else. */
export function cTestNameClass(rel: string): FileClass | undefined {
  return C_TEST_NAME.test(rel.slice(rel.lastIndexOf('/') + 1)) ? 'test' : undefined;
}
