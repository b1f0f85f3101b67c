// Resolves names the issue calls, uses as attributes, writes in backticks or as code in prose; rarer names weigh more.
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type RepoView, creditDefinition, nonTest } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

export function resolveNames(view: RepoView, ev: IssueEvidence): Credit[] {
  const out: Credit[] = [];
  for (const [name, c] of ev.names) {
    if (name.length < 3) continue;
    const all = view.defsByName.get(name) ?? [];
    const pick = nonTest(view, all).length ? nonTest(view, all) : all;
    const n = new Set(pick.map((r) => r.file.path)).size;
    if (!n || n > 12) continue;
    // A plain lowercase word (`version`) may be English as much as code: half weight unless it is called.
    const plain = /^[a-z]+$/.test(name) && !c.calls ? 0.5 : 1;
    const base = plain * (c.backticks ? EVIDENCE_WEIGHTS.backtick : c.calls ? EVIDENCE_WEIGHTS.call : c.attrs ? EVIDENCE_WEIGHTS.attr : EVIDENCE_WEIGHTS.prose);
    const times = c.backticks + c.calls + c.attrs + c.prose;
    // Repeats count a little (saturating), never linearly.
    const s = (base * (1 + 0.25 * Math.log(times))) / n;
    const how = c.backticks ? `\`${name}\`` : c.calls ? `calls ${name}()` : c.attrs ? `uses .${name}` : `mentions ${name}`;
    for (const r of pick) out.push(creditDefinition(r, s / Math.max(1, pick.filter((x) => x.file === r.file).length), how));
  }
  return out;
}
