// C++ members by their class: `Node::remove` in an issue names the method `remove` of class Node (or of namespace Node).
import { ablated } from '../../ablation.js';
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type DefRef, type RepoView, creditDefinition, escapeRe, nonTest } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

const CXX_FILE = /\.(c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|h\+\+|ipp|inl|tpp)$/i;
/** A qualified C++ name: segments joined by `::`, template arguments allowed (`basic_json<T>::parse`, `~Node`). */
const CXX_PATH = /(?<![\w:])(?:::)?(?:[A-Za-z_]\w*(?:<[^<>\n`]*>)?::)+~?[A-Za-z_]\w*/g;
const OWNER_KINDS = new Set(['class', 'struct', 'module']);

/**
 * C++ writes a member by its class (`Client::Get`, `YAML::Node::remove`, `detail::parse_format_specs`). In backticks
 * such a name is shaped like a literal (`a::b`) and is looked up only as a string the code spells; the member's own
 * name (`remove`, `Get`, `parse`) is defined in too many places to count. This credits the function definitions named
 * `member` whose enclosing class, struct or namespace is named `owner`, or whose own header spells `owner::member`
 * (a member defined out of its class, `void Client::Get(…) {`), like a resolved dotted name. Only C and C++ files; at
 * most 6 definitions. Switch: NAVKERNEL_ABLATE=cpp-type-paths.
 */
export function resolveCppTypePaths(view: RepoView, ev: IssueEvidence): Credit[] {
  if (ablated('cpp-type-paths')) return [];
  const out: Credit[] = [];
  const seen = new Set<string>();
  const text = ev.segments.map((s) => s.text).join('\n');
  for (const m of text.matchAll(CXX_PATH)) {
    const parts = m[0].replace(/^::/, '').replace(/<[^<>]*>/g, '').split('::');
    if (parts.length < 2) continue;
    const [owner, member] = parts.slice(-2) as [string, string];
    if (owner === 'std' || owner === member || member.replace(/^~/, '').length < 2 || seen.has(`${owner}::${member}`)) continue;
    seen.add(`${owner}::${member}`);
    const spelled = new RegExp(`\\b${escapeRe(owner)}\\s*(?:<[^{;]*?>)?\\s*::\\s*${escapeRe(member)}\\s*\\(`);
    const ofOwner = (r: DefRef): boolean => {
      const defs = r.file.outline.defs;
      const d = defs[r.i]!;
      if (d.kind !== 'function') return false;
      const p = d.parent;
      if (p !== null && OWNER_KINDS.has(defs[p]!.kind) && defs[p]!.name === owner) return true;
      return spelled.test(view.textOf(r.file.path).split('\n').slice(d.start - 1, Math.max(d.start, d.header_end)).join(' '));
    };
    const found = (view.defsByName.get(member) ?? []).filter((r) => CXX_FILE.test(r.file.path) && ofOwner(r));
    const outsideTests = nonTest(view, found);
    const pick = outsideTests.length ? outsideTests : found;
    if (!pick.length || pick.length > 6) continue;
    for (const r of pick) out.push(creditDefinition(r, EVIDENCE_WEIGHTS.dotted / Math.sqrt(pick.length), `member ${owner}::${member}`));
  }
  return out;
}
