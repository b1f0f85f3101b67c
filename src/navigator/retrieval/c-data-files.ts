import type { FileClass } from '../../repomap/file-class.js';
import { languageFamily } from '../../repomap/file-class.js';

/**
 * Files of a C or C++ project that the path classes leave as `source` because their names say nothing of a known
 * kind, yet hold no code of any language (issue 40, item 1: source before everything else): a fuzzer's dictionary
 * and seed inputs (`harnesses/x.dict`, `fuzz/inputs/test4`), a static analyser's or CI tool's settings
 * (`tis.config`, `ci/x.config`), a manual in a typesetting source (`manual/manual.of`), a documentation tool's
 * settings (`Doxyfile`), a build's templates (`cmake/pch.h.in`, `meson.build`, `BUILD.bazel`). They repeat the words
 * of a prose issue — every option, every fuzzer token — and outrank the code the fix goes into. In a repository
 * whose source files are mostly C or C++ (not a Python package with C extensions) they rank as `config`: a file with no extension or one no language
 * family knows, unless the extension is one of the C world's code kinds without a family of their own
 * (X-macro tables `.def`/`.inc`, grammars `.y`/`.l`, assembly, Objective-C, CUDA, C++ modules, lexer generators).
 * Switch: `c-data-files`.
 */
const C_CODE_KINDS = new Set(['def', 'inc', 'x', 'y', 'yy', 'ypp', 'l', 'll', 'lex', 's', 'asm', 'm', 'mm', 'cu', 'cuh', 'tcc', 'txx', 'ixx', 'cppm', 'mpp', 're', 'rl', 'gperf']);

/** `config` for a file of no code (asked only in a repository mostly of C or C++), undefined for anything else. */
export function cDataFileClass(rel: string): FileClass | undefined {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  if (languageFamily(base)) return undefined;
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  return ext !== '' && C_CODE_KINDS.has(ext) ? undefined : 'config';
}
