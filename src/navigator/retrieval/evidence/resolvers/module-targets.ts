// Resolves module-system names: a Java/Kotlin or Go qualified name or a JS/Rust/Go import mention, to its member or its files.
import type { IssueEvidence } from '../read-issue.js';
import { type ModuleTarget, moduleMentions, resolveModules, resolveQualified } from '../module-paths.js';
import { resolveDottedPath } from './python-modules.js';
import { type Credit, type DefRef, type RepoView, creditDefinition, creditFile, nonTest } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

/** A module system's target: the member the mention names in the module's files (or under its folder), else the files. */
function targetCredits(view: RepoView, t: ModuleTarget, weight: number): Credit[] {
  const inFiles = (name: string, files: readonly string[]) => nonTest(view, (view.defsByName.get(name) ?? []).filter((r) => files.includes(r.file.path)));
  let defs: DefRef[] = [];
  if (t.member) {
    defs = inFiles(t.member, t.files);
    if (!defs.length && t.under) defs = nonTest(view, (view.defsByName.get(t.member) ?? []).filter((r) => r.file.path.startsWith(`${t.under}/`)));
    if (t.submember && defs.length) {
      const owners = new Set(defs.map((r) => r.file.path));
      const subs = (view.defsByName.get(t.submember) ?? []).filter((r) => owners.has(r.file.path) && r.file.outline.defs[r.i]!.parent !== null && r.file.outline.defs[r.file.outline.defs[r.i]!.parent!]!.name === t.member);
      if (subs.length) defs = subs;
    }
  }
  if (defs.length && defs.length <= 3) return defs.map((r) => creditDefinition(r, weight / Math.sqrt(defs.length), t.why));
  // A module named without a member (a program importing a framework's package) says little, as Python's bare `import a.b`
  // does; a Go package is a folder of files, so the little it says is shared among them.
  return t.files.slice(0, 12).map((f) => creditFile(f, (weight * 0.3) / t.files.length, t.why));
}

/** Dotted names: a Java/Kotlin package or a Go package qualifier first (the names alone would match every class of that name), then Python's modules. */
export function resolveDottedNames(view: RepoView, ev: IssueEvidence): Credit[] {
  const out: Credit[] = [];
  for (const parts of ev.dotted) {
    const t = resolveQualified(parts, view.allPaths);
    if (t) out.push(...targetCredits(view, t, EVIDENCE_WEIGHTS.dotted));
    else out.push(...(resolveDottedPath(view, ev.aliases, parts, EVIDENCE_WEIGHTS.dotted, `names ${parts.join('.')}`) ?? []));
  }
  return out;
}

/** Module mentions in the issue's text (imports, `use` paths, packages) and the macros it invokes (`select!` → its `macro_rules!`). */
export function resolveModuleMentions(view: RepoView, ev: IssueEvidence): Credit[] {
  const out: Credit[] = [];
  const mentions = moduleMentions(ev.segments.map((s) => s.text).join('\n'));
  for (const t of resolveModules(mentions, view.allPaths, view.textOf)) out.push(...targetCredits(view, t, t.why.startsWith('import') ? EVIDENCE_WEIGHTS.import : EVIDENCE_WEIGHTS.dotted));
  for (const name of mentions.macros) {
    const defs = nonTest(view, (view.defsByName.get(name) ?? []).filter((r) => r.file.outline.defs[r.i]!.kind === 'macro'));
    if (defs.length && defs.length <= 3) for (const r of defs) out.push(creditDefinition(r, EVIDENCE_WEIGHTS.macro / Math.sqrt(defs.length), `macro ${name}!`));
  }
  return out;
}
