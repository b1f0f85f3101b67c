// Resolves the keyword arguments of an issue's Python snippets (`fig.update(gutter_width=-2)`) to the functions whose
// signature declares a parameter of that name: where a keyword handed on through `**kwargs` is finally taken.
import { splitWords } from '../../../../repomap/words.js';
import { ablated } from '../../ablation.js';
import { stemOf } from '../../terms.js';
import { keywordArguments } from '../keyword-arguments.js';
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type RepoView, creditDefinition, escapeRe } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

/** A keyword declared by more files than this is too common to say where the fix is (`axis`, `name`). */
export const KEYWORD_FILES_MAX = 4;
/** Files read for a keyword's signatures at most (those holding its words, in index order). */
const KEYWORD_SCAN_MAX = 400;

const PYTHON = /\.pyi?$/;

export function resolveKeywords(view: RepoView, ev: IssueEvidence): Credit[] {
  if (ablated('keyword-parameters')) return [];
  const code = ev.segments.filter((s) => s.kind === 'code').map((s) => s.text).join('\n');
  const out: Credit[] = [];
  for (const kw of keywordArguments(code)) {
    const parts = splitWords(kw);
    const term = parts.length > 1 ? parts.join('') : stemOf(kw.toLowerCase());
    const files = view.text.filesWith(term);
    if (!files.length || files.length > KEYWORD_SCAN_MAX) continue;
    // A parameter: after the signature's `(` or a `,`, optionally starred, then a default, an annotation, `,` or `)`.
    const param = new RegExp(`[(,]\\s*\\*{0,2}${escapeRe(kw)}\\s*[=:,)]`);
    const found: { path: string; i: number }[] = [];
    for (const p of files) {
      if (!PYTHON.test(p) || view.classOf(p) === 'test') continue;
      const f = view.byPath.get(p);
      if (!f) continue;
      const lines = view.textOf(p).split('\n');
      f.outline.defs.forEach((d, i) => {
        if (d.kind !== 'function' && d.kind !== 'method') return;
        if (param.test(lines.slice(d.start - 1, d.header_end).join('\n'))) found.push({ path: p, i });
      });
    }
    const nFiles = new Set(found.map((x) => x.path)).size;
    if (!nFiles || nFiles > KEYWORD_FILES_MAX) continue;
    for (const { path, i } of found) {
      const f = view.byPath.get(path)!;
      out.push(creditDefinition({ file: f, i }, EVIDENCE_WEIGHTS.keyword / found.length, `keyword ${kw}=`));
    }
  }
  return out;
}
