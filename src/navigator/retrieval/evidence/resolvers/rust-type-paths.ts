// Rust methods by their type: `JumpList::remove` in an issue names the method `remove` of an `impl … JumpList` block.
import { ablated } from '../../ablation.js';
import { moduleMentions } from '../module-paths.js';
import type { IssueEvidence } from '../read-issue.js';
import { implNames } from './impl-members.js';
import { type Credit, type DefRef, type RepoView, creditDefinition, nonTest } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

/**
 * A Rust path ending in a type and its member (`JumpList::remove`, `syn::LitInt::new`, `ClientBuilder::build`) names
 * an associated item of that type. The module resolver finds only paths whose head is a crate or a module (a capital
 * head is no module), and a backticked `Type::member` is not read as two names (it is shaped like a literal), while
 * the member alone (`remove`, `new`, `build`) is defined in too many places to count: so the member was found nowhere,
 * and the function the issue names was not shown. This credits the definitions named `member` inside an `impl` of
 * that type or trait (its header read: `impl<T> Tr for Ty<T>` is of Tr and for Ty) or inside the trait itself, like a
 * resolved dotted name. Only `.rs` files; a type the repository does not implement (`HeaderMap::insert` of a
 * dependency) finds nothing. Switch: NAVKERNEL_ABLATE=rust-type-paths.
 */
export function resolveRustTypePaths(view: RepoView, ev: IssueEvidence): Credit[] {
  if (ablated('rust-type-paths')) return [];
  const out: Credit[] = [];
  const seen = new Set<string>();
  const text = ev.segments.map((s) => s.text).join('\n');
  for (const parts of moduleMentions(text).rustPaths) {
    if (parts.length < 2) continue;
    const [owner, member] = parts.slice(-2) as [string, string];
    // A type is capitalised; its member is a function, constant or associated type of any case but the type's own.
    if (!/^[A-Z]\w*$/.test(owner) || owner === member || member.length < 2 || seen.has(`${owner}::${member}`)) continue;
    seen.add(`${owner}::${member}`);
    const lines = new Map<string, string[]>();
    const ownerOf = (r: DefRef): boolean => {
      const defs = r.file.outline.defs;
      const p = defs[r.i]!.parent;
      if (p === null) return false;
      const d = defs[p]!;
      if (d.kind === 'trait') return d.name === owner;
      if (d.kind !== 'impl') return false;
      let t = lines.get(r.file.path);
      if (!t) lines.set(r.file.path, (t = view.textOf(r.file.path).split('\n')));
      const { trait, type } = implNames(t.slice(d.start - 1, Math.max(d.start, d.header_end)).join(' '));
      return type === owner || trait === owner;
    };
    const found = (view.defsByName.get(member) ?? []).filter((r) => r.file.path.endsWith('.rs') && ownerOf(r));
    const outsideTests = nonTest(view, found);
    const pick = outsideTests.length ? outsideTests : found;
    if (!pick.length || pick.length > 6) continue;
    for (const r of pick) out.push(creditDefinition(r, EVIDENCE_WEIGHTS.dotted / Math.sqrt(pick.length), `method ${owner}::${member}`));
  }
  return out;
}
