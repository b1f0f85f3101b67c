// Resolves error messages and quoted phrases: windows of their words found in order in a definition's text.
import type { IndexedFile } from '../../../../repomap/repo-index.js';
import { stemOf } from '../../terms.js';
import { windowPattern } from '../message-pattern.js';
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type DefRef, type RepoView, creditDefinition, creditFile, innermost, lineAt } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

export function resolveMessages(view: RepoView, ev: IssueEvidence): Credit[] {
  const out: Credit[] = [];
  const messages: [string, number, string][] = [
    ...ev.messages.slice(0, 8).map((m): [string, number, string] => [m, EVIDENCE_WEIGHTS.message, 'message']),
    ...(ev.quoted ?? []).slice(0, 6).map((m): [string, number, string] => [m, EVIDENCE_WEIGHTS.quoted, 'quoted']),
  ];
  for (const [msg, weight, kind] of messages) {
    const words = msg.match(/[A-Za-z][A-Za-z0-9_]*/g) ?? [];
    if (words.length < 2) continue;
    const n = Math.min(4, words.length);
    const windows: string[][] = [];
    for (let s = 0; s + n <= words.length && windows.length < 10; s++) windows.push(words.slice(s, s + n));
    const hits = new Map<string, { ref?: DefRef; file: IndexedFile; line: number; count: number }>();
    for (const win of windows) {
      // The two rarest words' files: one of them may be a value the issue shows where the code has a placeholder.
      const terms = [...new Set(win.map((w) => stemOf(w.toLowerCase())))]
        .map((t) => [t, view.text.docFreq(t)] as const)
        .filter(([, d]) => d > 0)
        .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 2);
      if (!terms.length || terms[0]![1] > 400) continue;
      const re = windowPattern(win);
      const seen = new Set<string>();
      const cands = [...new Set(terms.filter(([, d]) => d <= 400).flatMap(([t]) => view.text.filesWith(t)))].sort();
      for (const p of cands) {
        const f = view.byPath.get(p);
        if (!f) continue;
        const t = view.textOf(p);
        const m = re.exec(t);
        if (!m) continue;
        const line = lineAt(t, m.index);
        const i = innermost(f.outline.defs, line);
        const key = `${p}#${i ?? -1}`;
        if (seen.has(key)) continue;
        seen.add(key);
        let h = hits.get(key);
        if (!h) hits.set(key, (h = { ...(i !== undefined ? { ref: { file: f, i } } : {}), file: f, line, count: 0 }));
        h.count++;
      }
    }
    const matchedFiles = new Set([...hits.values()].map((h) => h.file.path)).size;
    const spread = Math.max(1, Math.sqrt(matchedFiles / 2));
    const short = msg.length > 60 ? `${msg.slice(0, 57)}…` : msg;
    for (const h of hits.values()) {
      const s = (weight * h.count) / windows.length / spread;
      const why = `${kind} "${short}" at line ${h.line}`;
      if (h.ref) out.push(creditDefinition(h.ref, s, why, h.line));
      else out.push(creditFile(h.file.path, s * 0.6, why));
    }
  }
  return out;
}
