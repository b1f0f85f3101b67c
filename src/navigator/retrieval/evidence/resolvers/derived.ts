// Passes evidence on to where a named thing's code really is: an alias's target, a called class's constructor, a used
// attribute's hook, overrides, methods dispatched by a class's name, callees, and a named member of an evidenced class.
import type { IndexedFile } from '../../../../repomap/repo-index.js';
import type { IssueEvidence } from '../read-issue.js';
import { type DefRef, type RepoView, escapeRe, nonTest as nonTestIn, qualified } from './repo-view.js';
import type { EvidenceTally } from './tally.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Runs after the direct resolvers: each pass reads the tally so far and passes a share of an evidenced definition's score on. */
export function creditDerived(view: RepoView, ev: IssueEvidence, tally: EvidenceTally): void {
  const { defsByName, textOf } = view;
  const { defs: defScore, credit } = tally;
  const nonTest = (refs: readonly DefRef[]) => nonTestIn(view, refs);
  // Where a named thing's code really is: an alias's target, a called class's constructor, a used attribute's
  // implementation hook, the overrides of an evidenced method. Each passes a share of the evidenced definition's score.
  const lines = new Map<string, string[]>();
  const lineText = (r: DefRef, from: number, to: number) => {
    let l = lines.get(r.file.path);
    if (!l) lines.set(r.file.path, (l = textOf(r.file.path).split('\n')));
    return l.slice(from - 1, to).join('\n');
  };
  /** Classes named `name` outside tests: the one in `near`'s file when there is one, else at most three. */
  const classesNamed = (name: string, near: IndexedFile): DefRef[] => {
    const all = nonTest(defsByName.get(name) ?? []).filter((r) => r.file.outline.defs[r.i]!.kind === 'class');
    const same = all.filter((r) => r.file === near);
    return same.length ? same : all.length <= 3 ? all : [];
  };
  /** The base names in a class's header (`class Max(MinMaxBase, Application):` → MinMaxBase, Application). */
  const basesOf = (r: DefRef): string[] => {
    const d = r.file.outline.defs[r.i]!;
    const m = /^\s*class\s+\w+\s*\(([^)]*)\)/m.exec(lineText(r, d.start, d.header_end));
    if (!m) return [];
    return m[1]!.split(',').map((b) => b.trim()).filter((b) => b && !b.includes('=')).map((b) => b.split('.').pop()!.replace(/\[.*$/, '')).filter((b) => IDENTIFIER.test(b));
  };
  /** The members `names` of a class: its own, else those of its nearest base in the repository (bases in order, three levels). */
  const inherited = (r: DefRef, names: readonly string[], depth = 0, seen = new Set<string>()): DefRef[] => {
    const key = `${r.file.path}#${r.i}`;
    if (seen.has(key)) return [];
    seen.add(key);
    const own = r.file.outline.defs.flatMap((d, j) => (d.parent === r.i && names.includes(d.name) ? [{ file: r.file, i: j }] : []));
    if (own.length || depth >= 3) return own;
    for (const b of basesOf(r)) {
      for (const c of classesNamed(b, r.file)) {
        const found = inherited(c, names, depth + 1, seen);
        if (found.length) return found;
      }
    }
    return [];
  };
  const called = new Set([...ev.names].filter(([, c]) => c.calls > 0).map(([n]) => n));
  // An alias (`Array = DenseArray`, at the top of a module) is the definition it names.
  for (const e of [...defScore.values()]) {
    const d = e.ref.file.outline.defs[e.ref.i]!;
    if (d.kind !== 'variable' || d.parent !== null || d.end !== d.start) continue;
    const m = new RegExp(`^\\s*${escapeRe(d.name)}\\s*=\\s*([A-Za-z_][\\w.]*)\\s*(?:#.*)?$`).exec(lineText(e.ref, d.start, d.start));
    const target = m?.[1]!.split('.').pop();
    if (!target || target === d.name) continue;
    const defs = nonTest(defsByName.get(target) ?? []).filter((r) => ['class', 'function'].includes(r.file.outline.defs[r.i]!.kind) && r.file.outline.defs[r.i]!.parent === null);
    if (!defs.length || defs.length > 3) continue;
    if (called.has(d.name)) called.add(target);
    for (const r of defs) credit(r, e.score / defs.length, `alias ${d.name} = ${target}`);
  }
  // A class the issue calls runs its constructor: `__init__` / `__new__`, its own or its nearest base's.
  for (const e of [...defScore.values()]) {
    const d = e.ref.file.outline.defs[e.ref.i]!;
    if (d.kind !== 'class' || !called.has(d.name)) continue;
    const ctors = inherited(e.ref, ['__init__', '__new__']);
    for (const r of ctors) credit(r, (e.score * EVIDENCE_WEIGHTS.constructor) / ctors.length, `constructs ${d.name}`);
  }
  // A member of an evidenced class named after an attribute the issue uses (`_eval_is_zero` for `.is_zero`) implements it.
  const used = [...ev.names].filter(([n, c]) => n.length >= 4 && c.attrs + c.backticks > 0).map(([n]) => n);
  if (used.length)
    for (const e of [...defScore.values()]) {
      const defs0 = e.ref.file.outline.defs;
      if (defs0[e.ref.i]!.kind !== 'class') continue;
      defs0.forEach((m, j) => {
        if (m.parent !== e.ref.i) return;
        const attr = used.find((u) => m.name !== u && m.name.endsWith(`_${u}`));
        if (attr) credit({ file: e.ref.file, i: j }, e.score * EVIDENCE_WEIGHTS.hook, `implements .${attr} of ${defs0[e.ref.i]!.name}`);
      });
    }
  // An evidenced method is overridden in its class's subclasses: their method of the same name gets a share.
  for (const e of [...defScore.values()].sort((a, b) => b.score - a.score).slice(0, 8)) {
    const defs0 = e.ref.file.outline.defs;
    const d = defs0[e.ref.i]!;
    const owner = d.parent;
    if (d.kind === 'class' || d.kind === 'variable' || owner === null || defs0[owner]!.kind !== 'class') continue;
    const cls = defs0[owner]!.name;
    const cands = nonTest(defsByName.get(d.name) ?? []).filter((r) => {
      const p = r.file.outline.defs[r.i]!.parent;
      return p !== null && r.file.outline.defs[p]!.kind === 'class' && !(r.file === e.ref.file && p === owner);
    });
    if (cands.length > 60) continue;
    const subs = cands.filter((r) => basesOf({ file: r.file, i: r.file.outline.defs[r.i]!.parent! }).includes(cls));
    for (const r of subs) credit(r, (e.score * EVIDENCE_WEIGHTS.override) / Math.sqrt(subs.length), `overrides ${cls}.${d.name}`);
  }

  // Dispatch by name: a printer's `_print_Subs`, a visitor's `visit_Subs` is what that printer or visitor does with
  // `Subs`, so an evidenced class lends its score to the methods named after it (the prose picks among printers).
  const dispatched = new Map<string, DefRef[]>();
  for (const [name, refs] of defsByName) {
    const m = /^_?[a-z][a-z0-9]*_([A-Z][A-Za-z0-9]*)$/.exec(name);
    if (!m || m[1]!.length < 3) continue;
    let l = dispatched.get(m[1]!);
    if (!l) dispatched.set(m[1]!, (l = []));
    l.push(...nonTest(refs).filter((r) => r.file.outline.defs[r.i]!.parent !== null));
  }
  for (const e of [...defScore.values()]) {
    const d = e.ref.file.outline.defs[e.ref.i]!;
    const methods = d.kind === 'class' ? dispatched.get(d.name) : undefined;
    if (!methods?.length || methods.length > 40) continue;
    for (const r of methods) credit(r, (e.score * EVIDENCE_WEIGHTS.dispatch) / Math.sqrt(methods.length), `dispatched for ${d.name}`);
  }

  // Callees of the strongest definitions: names called in their body that few definitions carry.
  const strongest = [...defScore.values()].sort((a, b) => b.score - a.score || (a.ref.file.path < b.ref.file.path ? -1 : 1)).slice(0, 3);
  for (const e of strongest) {
    const d = e.ref.file.outline.defs[e.ref.i]!;
    if (d.end - d.start > 400) continue;
    const body = textOf(e.ref.file.path).split('\n').slice(d.header_end, d.end).join('\n');
    // `f(` calls a top-level function, `self.f(` / `cls.f(` a method of the same class; other `x.f(` calls are not followed.
    const defs0 = e.ref.file.outline.defs;
    let owner: number | null = d.parent;
    while (owner !== null && defs0[owner]!.kind !== 'class') owner = defs0[owner]!.parent;
    const called = new Map<string, 'function' | 'method'>();
    for (const m of body.matchAll(/(\b(?:self|cls)\.|\.)?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) {
      const name = m[2]!;
      if (name.length < 3 || name === d.name || called.has(name)) continue;
      if (!m[1]) called.set(name, 'function');
      else if (m[1] !== '.' && owner !== null) called.set(name, 'method');
    }
    // Never the caller's own enclosing definitions (a method constructing its class).
    const ancestors = new Set<string>();
    for (let j: number | null = d.parent; j !== null; j = defs0[j]!.parent) ancestors.add(defs0[j]!.name);
    for (const [name, form] of called) {
      if (ancestors.has(name)) continue;
      const defs = nonTest(defsByName.get(name) ?? []).filter((r) =>
        form === 'function' ? r.file.outline.defs[r.i]!.parent === null : r.file === e.ref.file && r.file.outline.defs[r.i]!.parent === owner,
      );
      if (!defs.length || defs.length > 3) continue;
      for (const r of defs) credit(r, (e.score * EVIDENCE_WEIGHTS.callee) / defs.length, `called by ${qualified(e.ref.file.outline.defs, e.ref.i)}`);
    }
  }

  // Only what the issue itself says of a member counts here, not what reached it from another definition.
  const DERIVED = /^(called by|constructs|implements|overrides|dispatched for|alias) /;
  // A member of an evidenced class that the issue names too (`Quantity` imported, `.convert_to` used): the
  // member is where to look, so it takes its class's score on top of its own (and ranks above the class).
  const classScore = new Map([...defScore.values()].filter((e) => e.ref.file.outline.defs[e.ref.i]!.kind === 'class').map((e) => [`${e.ref.file.path}#${e.ref.i}`, e.score]));
  for (const e of defScore.values()) {
    const p = e.ref.file.outline.defs[e.ref.i]!.parent;
    const cs = p === null ? undefined : classScore.get(`${e.ref.file.path}#${p}`);
    if (cs !== undefined && e.evidence.some((w) => !DERIVED.test(w))) {
      e.score += cs;
      e.evidence.push(`member of ${e.ref.file.outline.defs[p!]!.name}`);
    }
  }
}
