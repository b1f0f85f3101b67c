// Resolves paths the issue names: links to lines of the source (the definition holding the line) and file names.
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type RepoView, creditDefinition, creditFile, innermost, suffixFiles } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

/** Links (`…/blob/<ref>/path#L60`): the definition holding the line (a link without a line: the file). */
export function resolveLinks(view: RepoView, ev: IssueEvidence): Credit[] {
  const out: Credit[] = [];
  for (const link of ev.links.slice(0, 8)) {
    for (const f of suffixFiles(view, link.path, false)) {
      const why = `link ${link.path}${link.line ? `#L${link.line}` : ''}`;
      const i = link.line !== undefined ? innermost(f.outline.defs, link.line) : undefined;
      if (i !== undefined) out.push(creditDefinition({ file: f, i }, EVIDENCE_WEIGHTS.link, why, link.line));
      else out.push(creditFile(f.path, EVIDENCE_WEIGHTS.link * 0.5, why));
    }
  }
  return out;
}

/** Files the issue names, by the longest path suffix they share with the repository's. */
export function resolveNamedFiles(view: RepoView, ev: IssueEvidence): Credit[] {
  return ev.files.flatMap((raw) => suffixFiles(view, raw, true).map((f) => creditFile(f.path, EVIDENCE_WEIGHTS.file, `names file ${raw}`)));
}
