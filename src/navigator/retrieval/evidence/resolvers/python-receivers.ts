// Python methods reached through a user's snippet: `s = MySchema(); s.load(...)` calls the load of MySchema's base
// in the library, `Color.parse(x).downgrade(...)` the downgrade of Color; the method the issue exercises, found
// through the classes the snippet constructs, subclasses or names, and their bases in the repository.
import { ablated } from '../../ablation.js';
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type DefRef, type RepoView, creditDefinition, escapeRe, nonTest } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A class name by Python's convention: a capital first, one lowercase letter somewhere (not a CONSTANT). */
const CLASS_NAME = /^_?[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$/;

/** What a snippet does with classes: its variables bound to a class, its own subclasses, and the (class, member) pairs it uses. */
export interface ReceiverUses {
  /** `obj = Foo(...)`, `obj = mod.Foo.create(...)`, `with Foo(...) as obj` → obj → Foo. */
  bound: Map<string, string>;
  /** `class Mine(Base, mod.Other):` → Mine → [Base, Other]; `class Mine:` → Mine → []. */
  subclasses: Map<string, string[]>;
  /** Members used on an instance or on the class: `obj.load`, `Foo(...).load`, `Foo.load`. */
  uses: { cls: string; member: string }[];
}

const stripSession = (line: string) => line.replace(/^\s*(>>>|\.\.\.|In \[\d+\]:)\s?/, '');

/** Reads a snippet's classes and the members it reaches through them. Pure; order of first use. */
export function receiverUses(code: string): ReceiverUses {
  const bound = new Map<string, string>();
  const subclasses = new Map<string, string[]>();
  const uses: ReceiverUses['uses'] = [];
  const use = (cls: string, member: string) => {
    if (cls === member || !IDENT.test(member) || member.length < 3) return;
    if (!uses.some((u) => u.cls === cls && u.member === member)) uses.push({ cls, member });
  };
  const lastPart = (dotted: string) => dotted.split('.').pop()!;
  for (const raw of code.split('\n')) {
    const line = stripSession(raw).replace(/#.*$/, '').replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, '""');
    if (/^\s*(File "|Traceback|\w*(Error|Exception|Warning):)/.test(line)) continue;
    const cls = /^\s*class\s+([A-Za-z_]\w*)\s*(?:\(([^)]*)\))?\s*:/.exec(line);
    if (cls) {
      const bases = (cls[2] ?? '').split(',').map((b) => b.trim()).filter((b) => b && !b.includes('=')).map((b) => lastPart(b.replace(/\[.*$/, ''))).filter((b) => CLASS_NAME.test(b));
      // The snippet's own class: it stands for its bases, or for nothing of the library's when it has none.
      subclasses.set(cls[1]!, bases);
      continue;
    }
    // A variable bound to a constructed class (or to what one of its class methods makes, `Color.parse(...)`).
    const bind = /^\s*([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w.]*)\s*\(/.exec(line);
    if (bind) {
      const parts = bind[2]!.split('.');
      const last = parts[parts.length - 1]!;
      const owner = parts.length >= 2 && /^[a-z_]/.test(last) ? parts[parts.length - 2]! : undefined;
      const made = CLASS_NAME.test(last) ? last : owner && CLASS_NAME.test(owner) ? owner : undefined;
      if (made) bound.set(bind[1]!, made);
      else bound.delete(bind[1]!);
    }
    const withAs = /^\s*(?:async\s+)?with\s+(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)\s*\(.*\)\s+as\s+([A-Za-z_]\w*)\s*:/.exec(line);
    if (withAs && CLASS_NAME.test(withAs[1]!)) bound.set(withAs[2]!, withAs[1]!);
    // `Foo(...).member` and `Foo.member`: the member of that class (one level of nested parentheses in the call).
    // The member is only looked ahead at, so `mod.Foo().m` reads `mod.Foo` and then `Foo().m`.
    for (const m of line.matchAll(/(?<![\w])([A-Za-z_]\w*)(\((?:[^()]|\([^()]*\))*\))?(?=\.([A-Za-z_]\w*))/g)) {
      const [, head, call, member] = m;
      if (CLASS_NAME.test(head!)) use(head!, member!);
      else if (!call && bound.has(head!)) use(bound.get(head!)!, member!);
    }
  }
  return { bound, subclasses, uses };
}

/** The base names in a class's header (`class Max(MinMaxBase, Application):` → MinMaxBase, Application). */
function basesOf(view: RepoView, r: DefRef): string[] {
  const d = r.file.outline.defs[r.i]!;
  const header = view.textOf(r.file.path).split('\n').slice(d.start - 1, d.header_end).join(' ');
  const m = /^\s*class\s+\w+\s*\(([^)]*)\)/.exec(header);
  if (!m) return [];
  return m[1]!.split(',').map((b) => b.trim()).filter((b) => b && !b.includes('=')).map((b) => b.split('.').pop()!.replace(/\[.*$/, '')).filter((b) => IDENT.test(b));
}

/** Classes of the repository's Python sources named `name` (at most three), following a module-level alias `Name = Other`. */
function classesNamed(view: RepoView, name: string, depth = 0): DefRef[] {
  const all = nonTest(view, view.defsByName.get(name) ?? []).filter((r) => /\.pyi?$/.test(r.file.path));
  const classes = all.filter((r) => r.file.outline.defs[r.i]!.kind === 'class');
  if (classes.length) return classes.length <= 3 ? classes : [];
  if (depth > 0) return [];
  for (const r of all) {
    const d = r.file.outline.defs[r.i]!;
    if (d.parent !== null || d.start !== d.end) continue;
    const m = new RegExp(`^\\s*${escapeRe(name)}\\s*=\\s*([A-Za-z_][\\w.]*)\\s*(?:#.*)?$`).exec(view.textOf(r.file.path).split('\n')[d.start - 1] ?? '');
    const target = m?.[1]!.split('.').pop();
    if (target && target !== name) return classesNamed(view, target, depth + 1);
  }
  return [];
}

/** The member `name` of a class: its own, else its nearest base's in the repository (bases in order, four levels). */
function memberOf(view: RepoView, r: DefRef, name: string, depth = 0, seen = new Set<string>()): DefRef[] {
  const key = `${r.file.path}#${r.i}`;
  if (seen.has(key)) return [];
  seen.add(key);
  const own = r.file.outline.defs.flatMap((d, j) => (d.parent === r.i && d.name === name && d.kind !== 'variable' ? [{ file: r.file, i: j }] : []));
  if (own.length || depth >= 4) return own;
  for (const b of basesOf(view, r)) {
    for (const c of classesNamed(view, b)) {
      const found = memberOf(view, c, name, depth + 1, seen);
      if (found.length) return found;
    }
  }
  return [];
}

/**
 * Credits the method a snippet reaches through a class: a member used on an instance the snippet builds (`s = Foo()`,
 * `with Foo() as s`), on a call (`Foo(...).m`) or on the class (`Foo.m`), where the snippet's own subclass stands for
 * its bases. The member is the class's own or its nearest base's, so a method a library class inherits from a mixin is
 * found where it is defined. A member the class itself defines, named on the class (`Foo.m`), is left to the dotted
 * names. Switch: NAVKERNEL_ABLATE=python-receivers.
 */
export function resolvePythonReceivers(view: RepoView, ev: IssueEvidence): Credit[] {
  if (ablated('python-receivers')) return [];
  const code = ev.segments.filter((s) => s.kind === 'code').map((s) => s.text).join('\n');
  if (!code) return [];
  const { subclasses, uses } = receiverUses(code);
  const out: Credit[] = [];
  const dottedOwn = new Set(ev.dotted.filter((p) => p.length >= 2).map((p) => p.slice(-2).join('.')));
  for (const { cls, member } of uses.slice(0, 24)) {
    const names = subclasses.get(cls) ?? [cls];
    if (!names.length) continue;
    const found: DefRef[] = [];
    for (const n of names) for (const c of classesNamed(view, n)) for (const m of memberOf(view, c, member)) if (!found.some((f) => f.file === m.file && f.i === m.i)) found.push(m);
    if (!found.length || found.length > 3) continue;
    // `Foo.m` written in the issue and defined by Foo itself is already a dotted name's credit.
    if (!subclasses.has(cls) && dottedOwn.has(`${cls}.${member}`) && found.every((f) => f.file.outline.defs[f.file.outline.defs[f.i]!.parent!]!.name === cls)) continue;
    const why = subclasses.has(cls) ? `${cls}.${member} (a subclass of ${names.join(', ')})` : `${cls}.${member} on an instance`;
    for (const r of found) out.push(creditDefinition(r, EVIDENCE_WEIGHTS.receiver / Math.sqrt(found.length), why));
  }
  return out;
}
