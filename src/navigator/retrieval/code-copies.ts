import type { FileClass } from '../../repomap/file-class.js';

/**
 * Copies of code kept in a repository beside the code itself, by their paths (issue 40, item 1: source before
 * everything else). Both repeat the words of the project's issues and neither is where a fix goes.
 *
 * - A library another project ships inside its tree under a folder named for the act of shipping it —
 *   `include/log/fmt/bundled/format.h`, `pip/_vendor/`, `lib/vendored/` — rather than one of the usual vendor folders
 *   (`vendor/`, `third_party/`, …) the path classes know: `vendored` (switch `bundled-copies`).
 * - A C or C++ library's single-header distribution, every header of the library pasted into one by a script
 *   (`single_include/lib/lib.hpp`, `single_header/`, `extras/lib_amalgamated.hpp`): `generated` (switch
 *   `single-headers`). Its first lines do not always say so, and it is too large to be parsed (indexed as text), so
 *   it holds every word of every header and outranks the header a fix changes.
 * - Another project's release unpacked into the tree under its release's name (`test/gtest-1.11.0/`,
 *   `third-party/zlib-1.3.1/`, `deps/lua-5.4.6/`): a project does not name its own folders after a version of
 *   something. A vendored test framework holds the words of every build and compiler issue (its own portability
 *   code, its docs and CI), and as a test it ranks only a little below the project's code: `vendored`, whatever
 *   the path classes said (switch `release-copies`).
 */
const BUNDLED_DIR = /(?:^|\/)(?:bundled|vendored|_vendor)\//i;
const RELEASE_DIR = /(?:^|\/)[A-Za-z][\w+]*(?:[-_.][A-Za-z][\w+]*)*-v?\d+\.\d+(?:\.\d+){0,2}\//;
const SINGLE_HEADER = /(?:^|\/)(?:single_include|single_header|single-header)\/|(?:^|[/_.-])amalgamat(?:ed|ion)?[/_.-]/i;

/** `vendored` for a bundled copy of another project, undefined for anything else. */
export function bundledCopyClass(p: string): FileClass | undefined {
  return BUNDLED_DIR.test(p) ? 'vendored' : undefined;
}

/** `generated` for a single-header distribution of a C or C++ library, undefined for anything else. */
export function singleHeaderClass(p: string): FileClass | undefined {
  return SINGLE_HEADER.test(p) && /\.(?:h|hh|hpp|hxx|c|cc|cpp|cxx)$/i.test(p) ? 'generated' : undefined;
}

/** `vendored` for a file under a folder named after another project's release (`gtest-1.11.0/`), undefined otherwise. */
export function releaseCopyClass(p: string): FileClass | undefined {
  return RELEASE_DIR.test(p) ? 'vendored' : undefined;
}
