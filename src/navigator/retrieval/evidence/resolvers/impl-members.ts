// Rust keeps a type's methods in `impl` blocks apart from the type, and one file often has several impls defining the
// same method (`fn flush` of an encoder, a decoder and a buffer). When the issue names a type or trait and the method,
// the method of that type's (or trait's) impl is where to look: it takes the named type's score on top of its own,
// as a named member of an evidenced class does (derived.ts). Only the order of a file's definitions changes (which
// one is shown first), not the file's score: raising the file's score too reordered files and lost line hits on half
// B of the public set. Switch: NAVKERNEL_ABLATE=impl-members.
import { ablated } from '../../ablation.js';
import type { RepoView } from './repo-view.js';
import type { EvidenceTally } from './tally.js';

/** Kinds of definition that name a type an impl can be of or for. */
const TYPE_KINDS = new Set(['struct', 'enum', 'trait', 'type', 'impl']);

/** A type's last path segment without generics or references: `&'a mut io::Foo<T>` → `Foo`. */
export function baseTypeName(text: string): string {
  const bare = text.replace(/<[^]*$/, '').replace(/^[&\s]*('\w+\s+)?(mut\s+|dyn\s+)?/, '').trim();
  const at = bare.lastIndexOf('::');
  return at < 0 ? bare : bare.slice(at + 2);
}

/** The trait and the type of an impl's header (`impl<T: X> Tr<T> for Ty<T> where …` → Tr, Ty); the trait '' for an inherent impl. */
export function implNames(header: string): { trait: string; type: string } {
  // Drop the impl's own generic parameters (balanced angle brackets right after `impl`).
  let s = header.replace(/^\s*(unsafe\s+)?impl\s*/, '');
  if (s.startsWith('<')) {
    let depth = 0;
    let i = 0;
    for (; i < s.length; i++) {
      if (s[i] === '<') depth++;
      else if (s[i] === '>' && s[i - 1] !== '-' && --depth === 0) break;
    }
    s = s.slice(i + 1);
  }
  s = s.replace(/\s+where\b[^]*$/, '').replace(/\{[^]*$/, '').trim();
  const m = /^(?:!?\s*)?([^]*?)\s+for\s+([^]*)$/.exec(s);
  return m ? { trait: baseTypeName(m[1]!), type: baseTypeName(m[2]!) } : { trait: '', type: baseTypeName(s) };
}

/** Only what the issue itself says of a member counts, not what reached it from another definition. */
const DERIVED = /^(called by|constructs|implements|overrides|dispatched for|alias|member of) /;

/** What an evidenced method of an impl gains: the best score of the type or trait the impl is of or for, and why. */
export interface ImplMemberShare {
  score: number;
  why: string;
}

/** Per evidenced method of an impl (by `path#index` of the tally), its share from the named type or trait; read only. */
export function implMemberShares(view: RepoView, tally: EvidenceTally): Map<string, ImplMemberShare> {
  const out = new Map<string, ImplMemberShare>();
  if (ablated('impl-members')) return out;
  const typeScore = new Map<string, number>();
  for (const e of tally.defs.values()) {
    const d = e.ref.file.outline.defs[e.ref.i]!;
    if (!TYPE_KINDS.has(d.kind)) continue;
    const name = baseTypeName(d.name);
    typeScore.set(name, Math.max(typeScore.get(name) ?? 0, e.score));
  }
  if (!typeScore.size) return out;
  const lines = new Map<string, string[]>();
  for (const [key, e] of tally.defs) {
    const defs = e.ref.file.outline.defs;
    const p = defs[e.ref.i]!.parent;
    if (p === null || defs[p]!.kind !== 'impl' || !e.evidence.some((w) => !DERIVED.test(w))) continue;
    const impl = defs[p]!;
    let text = lines.get(e.ref.file.path);
    if (!text) lines.set(e.ref.file.path, (text = view.textOf(e.ref.file.path).split('\n')));
    const { trait, type } = implNames(text.slice(impl.start - 1, Math.max(impl.start, impl.header_end)).join(' '));
    const best = Math.max(typeScore.get(type) ?? 0, trait ? (typeScore.get(trait) ?? 0) : 0);
    // At most its own score again: enough to rank it above its same-named rivals without lifting it far above the
    // file's other evidenced definitions (adding the whole type's score lost a line hit on half B).
    if (best > 0) out.set(key, { score: Math.min(best, e.score), why: `member of impl ${trait ? `${trait} for ${type}` : type}` });
  }
  return out;
}
