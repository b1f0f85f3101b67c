import type { FileClass } from '../../repomap/file-class.js';

/**
 * A library another project ships inside its own tree under a folder named for the act of shipping it —
 * `include/log/fmt/bundled/format.h`, `pip/_vendor/`, `lib/vendored/` — rather than one of the usual vendor folders
 * (`vendor/`, `third_party/`, …) the path classes know. Such a copy repeats the words of its own project's issues
 * (a C++ logging library's bundled formatter names every formatting word a prose issue uses) and is not where a fix to
 * the project goes: it ranks as vendored. Undefined for anything else.
 */
const BUNDLED_DIR = /(?:^|\/)(?:bundled|vendored|_vendor)\//i;

export function bundledCopyClass(p: string): FileClass | undefined {
  return BUNDLED_DIR.test(p) ? 'vendored' : undefined;
}
