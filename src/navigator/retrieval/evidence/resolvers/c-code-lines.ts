/**
 * A line of C or C++ code a report quotes — in backticks (`` `u->path = Curl_memdup(path, pathlen + 1);` ``) or as a
 * line of a code block — found as it stands in a C/C++ source outside the tests: the report's author copied it from
 * there, so the definition holding it is where the report points, at that line. Tokens must follow each other as
 * quoted, with any spacing between them; a line found in more than four files says nothing. Frames, diagnostics and
 * prompt lines are not code. Switch: NAVKERNEL_ABLATE=c-code-lines.
 */
import { ablated } from '../../ablation.js';
import { stemOf } from '../../terms.js';
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type RepoView, creditDefinition, escapeRe, innermost, lineAt } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

const C_FAMILY = new Set(['c', 'cpp']);
const TOKEN = /[A-Za-z_]\w*|\d+(?:\.\d+)?|->|::|[^\sA-Za-z0-9_]/g;
/** Not code: a frame, a sanitizer or valgrind line, a diagnostic location, a prompt, a comment. */
const NOT_CODE = /^\s*(?:#\d+\s|==\d+==|\$\s|\/\/|\/\*|\*|[\w./\\-]+\.(?:c|h|cc|cpp|hpp|cxx):\d+)/;

/** The quoted lines that read as C/C++ statements or expressions, first seen first, at most 12. */
export function quotedCodeLines(ev: IssueEvidence): string[] {
  const cands: string[] = [];
  for (const seg of ev.segments) {
    if (seg.kind === 'code') cands.push(...seg.text.split('\n'));
    else for (const m of seg.text.matchAll(/`([^`\n]+)`/g)) cands.push(m[1]!);
  }
  const out: string[] = [];
  for (const raw of cands) {
    const line = raw.trim();
    if (line.length < 16 || NOT_CODE.test(line) || !/[(;=]|->/.test(line)) continue;
    if ((line.match(/[A-Za-z_]\w*/g) ?? []).length < 3) continue;
    if (!out.includes(line)) out.push(line);
    if (out.length >= 12) break;
  }
  return out;
}

export function resolveCCodeLines(view: RepoView, ev: IssueEvidence): Credit[] {
  if (ablated('c-code-lines') || !view.files.some((f) => C_FAMILY.has(f.language))) return [];
  const out: Credit[] = [];
  for (const line of quotedCodeLines(ev)) {
    const tokens = line.replace(/;\s*$/, '').match(TOKEN) ?? [];
    let rarest: string | undefined;
    let df = Infinity;
    for (const t of tokens) {
      if (!/^[A-Za-z_]\w{2,}$/.test(t)) continue;
      const d = view.text.docFreq(stemOf(t.toLowerCase()));
      if (d > 0 && d < df) [df, rarest] = [d, stemOf(t.toLowerCase())];
    }
    if (!rarest || df > 400) continue;
    const re = new RegExp(`(?<![\\w])${tokens.map(escapeRe).join('\\s*')}`);
    const found: { ref: { file: (typeof view.files)[number]; i: number }; line: number }[] = [];
    let files = 0;
    for (const p of view.text.filesWith(rarest)) {
      const f = view.byPath.get(p);
      if (!f || !C_FAMILY.has(f.language) || view.classOf(p) === 'test') continue;
      const t = view.textOf(p);
      const m = re.exec(t);
      if (!m) continue;
      files++;
      const at = lineAt(t, m.index);
      const i = innermost(f.outline.defs, at);
      if (i !== undefined) found.push({ ref: { file: f, i }, line: at });
    }
    if (!found.length || files > 4) continue;
    const spread = Math.max(1, Math.sqrt(files / 2));
    const short = line.length > 60 ? `${line.slice(0, 57)}…` : line;
    for (const { ref, line: at } of found) out.push(creditDefinition(ref, EVIDENCE_WEIGHTS.message / spread, `code "${short}" at line ${at}`, at));
  }
  return out;
}
