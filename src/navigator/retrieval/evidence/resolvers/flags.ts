// Resolves command-line flags (`--word-regexp`) to where the code spells them in a string, else as an identifier of their words.
import type { IndexedFile } from '../../../../repomap/repo-index.js';
import { stemOf } from '../../terms.js';
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type RepoView, creditDefinition, creditFile, escapeRe, innermost, lineAt } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

// In a string: `"word-regexp"`, `'-w, --word-regexp'`, `long("word-regexp")`; as an identifier: `word_regexp`, `wordRegexp`.
// A one-word flag must be spelt with its dashes or as a long name.
export function resolveFlags(view: RepoView, ev: IssueEvidence): Credit[] {
  const out: Credit[] = [];
  for (const flag of ev.flags ?? []) {
    const parts = flag.split('-');
    const stems = [...new Set(parts.map((w) => stemOf(w)))].map((t) => [t, view.text.docFreq(t)] as const).filter(([, d]) => d > 0).sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
    if (!stems.length) continue;
    const esc = escapeRe(flag);
    const inString = parts.length > 1 ? `(?:--)?${esc}` : `--${esc}`;
    const lit = new RegExp(`(["'\`])(?:[^"'\`\n]*?[\\s,|=])?${inString}(?:[\\s,|=<[][^"'\`\n]*?)?\\1|\\blong\\s*[(=]\\s*"${esc}"`);
    const ident = parts.length > 1 ? new RegExp(`\\b(?:${parts.join('_')}|${parts[0]}${parts.slice(1).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')})\\b`) : undefined;
    const found: { f: IndexedFile; line: number; w: number }[] = [];
    for (const p of view.text.filesWith(stems[0]![0])) {
      const f = view.byPath.get(p);
      if (!f || view.classOf(p) === 'test') continue;
      const t = view.textOf(p);
      const spelt = lit.exec(t);
      const m = spelt ?? (ident ? ident.exec(t) : null);
      if (m) found.push({ f, line: lineAt(t, m.index), w: spelt ? EVIDENCE_WEIGHTS.flag : EVIDENCE_WEIGHTS.flagName });
    }
    const spread = Math.max(1, Math.sqrt(found.length / 2));
    for (const { f, line, w } of found) {
      const i = innermost(f.outline.defs, line);
      const why = `flag --${flag} at line ${line}`;
      if (i !== undefined) out.push(creditDefinition({ file: f, i }, w / spread, why, line));
      else out.push(creditFile(f.path, (w * 0.6) / spread, why));
    }
  }
  return out;
}
