// Resolves stack frames (any language's, as read-issue parsed them) to the function or the definition holding the line.
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type RepoView, creditDefinition, creditFile, innermost, suffixFiles } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

export function resolveFrames(view: RepoView, ev: IssueEvidence): Credit[] {
  const out: Credit[] = [];
  const inRepo = ev.frames
    .map((fr) => ({ fr, files: suffixFiles(view, fr.path, true) }))
    .filter((x) => x.files.length > 0)
    .sort((a, b) => a.fr.depth - b.fr.depth);
  let k = 0;
  for (const { fr, files } of inRepo) {
    const test = files.every((f) => view.classOf(f.path) === 'test');
    const w = (EVIDENCE_WEIGHTS.frame / (1 + (test ? k + 1 : k))) * (test ? 0.5 : 1) / files.length;
    if (!test) k++;
    for (const f of files) {
      const why = `frame ${fr.path}:${fr.line ?? '?'}${fr.fn ? ` in ${fr.fn}` : ''}${fr.depth === 0 ? ' (deepest)' : ` (depth ${fr.depth})`}`;
      out.push(creditFile(f.path, w * 0.3, why));
      const defs = f.outline.defs;
      let i: number | undefined;
      if (fr.fn && fr.fn !== '<module>') {
        const named = defs.map((d, j) => [d, j] as const).filter(([d]) => d.name === fr.fn && d.kind !== 'heading');
        const containing = named.find(([d]) => fr.line !== undefined && d.start <= fr.line && fr.line <= d.end);
        const nearest = [...named].sort((a, b) => Math.abs(a[0].start - (fr.line ?? 0)) - Math.abs(b[0].start - (fr.line ?? 0)))[0];
        i = (containing ?? nearest)?.[1];
      }
      // A function the outline names otherwise (a lambda, a macro-made function): the definition holding the line.
      if (i === undefined && fr.line !== undefined) i = innermost(defs, fr.line);
      if (i !== undefined) {
        const d = defs[i]!;
        const line = fr.line !== undefined && d.start <= fr.line && fr.line <= d.end ? fr.line : undefined;
        out.push(creditDefinition({ file: f, i }, w, why, line));
      } else out.push(creditFile(f.path, w * 0.5, why));
    }
  }
  return out;
}
