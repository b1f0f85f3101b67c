// Go methods by their receiver: `Data.Render` in an issue names the method `Render` declared `func (r Data) Render(…)`.
import { ablated } from '../../ablation.js';
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type DefRef, type RepoView, creditDefinition, escapeRe, nonTest } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

/**
 * A Go method is declared at the top level of its file, beside its type (`func (s *Server) Handle(…)`): the outline
 * has no parent to tell `Server.Handle` from the other `Handle`s (every renderer has a `Render`, every handler a
 * `ServeHTTP`), so a dotted name `Type.Method` finds nothing through the classes of other languages. This reads the
 * receiver type off each candidate method's declaration (pointer, generic parameters and the receiver's own name
 * aside) and credits the methods of that type like a resolved dotted name. `pkg.Type.Method` also asks the folder
 * to be named `pkg`, when one is. Only the `.go` files defining a method of that name are read.
 */
export function resolveGoReceivers(view: RepoView, ev: IssueEvidence): Credit[] {
  if (ablated('go-receivers')) return [];
  const out: Credit[] = [];
  for (const parts of ev.dotted) {
    if (parts.length < 2) continue;
    const [owner, member] = parts.slice(-2) as [string, string];
    if (!/^[A-Za-z_]\w*$/.test(owner) || !/^[A-Za-z_]\w*$/.test(member) || owner === member) continue;
    const candidates = (view.defsByName.get(member) ?? []).filter((r) => r.file.path.endsWith('.go') && r.file.outline.defs[r.i]!.kind === 'method');
    if (!candidates.length) continue;
    const receiver = new RegExp(`^\\s*func\\s*\\(\\s*(?:[A-Za-z_]\\w*\\s+)?\\*?\\s*${escapeRe(owner)}\\s*(?:\\[[^\\]]*\\])?\\s*\\)\\s*${escapeRe(member)}\\b`);
    let methods: DefRef[] = candidates.filter((r) => {
      const d = r.file.outline.defs[r.i]!;
      const lines = view.textOf(r.file.path).split('\n').slice(d.start - 1, d.header_end);
      return receiver.test(lines.join(' '));
    });
    const pkg = parts.length >= 3 ? parts[parts.length - 3]! : undefined;
    if (pkg && /^[a-z]\w*$/.test(pkg)) {
      const inPkg = methods.filter((r) => r.file.path.split('/').slice(-2, -1)[0] === pkg);
      if (inPkg.length) methods = inPkg;
    }
    const outsideTests = nonTest(view, methods);
    const pick = outsideTests.length ? outsideTests : methods;
    if (!pick.length || pick.length > 6) continue;
    for (const r of pick) out.push(creditDefinition(r, EVIDENCE_WEIGHTS.dotted / Math.sqrt(pick.length), `method ${owner}.${member}`));
  }
  return out;
}
