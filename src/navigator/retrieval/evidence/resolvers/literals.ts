// Resolves backticked strings to where the code spells them exactly in a string literal (`unused-import`).
import type { IndexedFile } from '../../../../repomap/repo-index.js';
import { stemOf } from '../../terms.js';
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type RepoView, creditDefinition, creditFile, escapeRe, innermost, lineAt } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

export function resolveLiterals(view: RepoView, ev: IssueEvidence): Credit[] {
  const out: Credit[] = [];
  for (const lit of ev.literals.slice(0, 8)) {
    const words = lit.match(/[A-Za-z][A-Za-z0-9_]*/g) ?? [];
    let rarest: string | undefined;
    let df = Infinity;
    for (const w of words) {
      const d = view.text.docFreq(stemOf(w.toLowerCase()));
      if (d > 0 && d < df) [df, rarest] = [d, stemOf(w.toLowerCase())];
    }
    if (!rarest) continue;
    const re = new RegExp(`(["'])${escapeRe(lit)}\\1`);
    const found: { f: IndexedFile; line: number }[] = [];
    for (const p of view.text.filesWith(rarest)) {
      const f = view.byPath.get(p);
      const m = f ? re.exec(view.textOf(p)) : null;
      if (f && m) found.push({ f, line: lineAt(view.textOf(p), m.index) });
    }
    const spread = Math.max(1, Math.sqrt(found.length / 2));
    for (const { f, line } of found) {
      const i = innermost(f.outline.defs, line);
      const why = `literal "${lit}" at line ${line}`;
      if (i !== undefined) out.push(creditDefinition({ file: f, i }, EVIDENCE_WEIGHTS.literal / spread, why, line));
      else out.push(creditFile(f.path, (EVIDENCE_WEIGHTS.literal * 0.6) / spread, why));
    }
  }
  return out;
}
