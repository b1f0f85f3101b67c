import type { RepoIndex } from '../../repomap/index.js';
import { CODE_LANGUAGES } from '../../repomap/languages.js';
import { ablated } from './ablation.js';

/**
 * How a C or C++ project's 400 lines are shared among the files picked (issue 40, item 5: lines where the fix goes).
 * Lines go to the picked files in proportion to relevance squared, so a changelog, a README or a CI file that ranks
 * high on an issue's words takes a large share — in a C project whose sources run to thousands of lines a file, those
 * lines are what the windows in the long source file lacked. In a repository whose code files are mostly C or C++, a
 * picked file that is not C or C++ (prose, settings, build files, a script in another language) is weighed at
 * NON_C_LINE_WEIGHT of its relevance squared when the lines are shared: it still gets its windows (at least
 * MIN_FILE_LINES), and the rest goes to the C and C++ files. Its place in the pick is unchanged. Switch: `c-line-shares`.
 */
export const NON_C_LINE_WEIGHT = 1 / 16;

const CODE = new Set<string>(CODE_LANGUAGES);
const memo = new WeakMap<RepoIndex, boolean>();

/** Whether most of a repository's code files (any parsed language) are C or C++. */
export function mostlyC(index: RepoIndex): boolean {
  let known = memo.get(index);
  if (known === undefined) {
    let c = 0;
    let other = 0;
    for (const f of index.files) {
      if (f.language === 'c' || f.language === 'cpp') c++;
      else if (CODE.has(f.language)) other++;
    }
    memo.set(index, (known = c > other));
  }
  return known;
}

/** The factor on a picked file's relevance squared when lines are shared out: NON_C_LINE_WEIGHT or 1. */
export function lineShareWeight(index: RepoIndex, language: string): number {
  if (ablated('c-line-shares') || language === 'c' || language === 'cpp' || !mostlyC(index)) return 1;
  return NON_C_LINE_WEIGHT;
}
