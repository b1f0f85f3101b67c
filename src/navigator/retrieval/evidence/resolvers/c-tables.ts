// C and C++ registration tables: a name the issue writes that the code registers under a string in a brace initializer.
import { ablated } from '../../ablation.js';
import { stemOf } from '../../terms.js';
import type { IssueEvidence } from '../read-issue.js';
import { commandLineWords } from '../c-command-lines.js';
import { type Credit, type DefRef, type RepoView, creditDefinition, escapeRe, innermost, lineAt, nonTest } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

const C_FAMILY = new Set(['c', 'cpp']);
/** The share of a table entry's weight a subcommand from a command line gets (c-command-lines.ts). */
const COMMAND_SHARE = 0.5;
const IDENT = /[A-Za-z_]\w*/g;
/** Words of an entry that are C's own, never a handler's name. */
const NOT_HANDLERS = new Set(['NULL', 'nullptr', 'sizeof', 'const', 'static', 'struct', 'void', 'int', 'char', 'true', 'false', 'no_argument', 'required_argument', 'optional_argument']);

/**
 * C has no decorators or reflection: an interpreter's builtins, a server's commands and a program's long options are
 * registered in tables of brace initializers that pair the name a user writes with the function that serves it
 * (`{"gmatch", str_gmatch}`, `{f_keys, "keys", 1}`, getopt's `{"verbose", no_argument, NULL, 'v'}`). An issue writes
 * the user's name (`string.gmatch`, `` `keys` ``, `--verbose`), which the code spells only in that string, so the
 * function doing the work has no text in common with the issue. This finds the table entry holding the name as a
 * whole string (in a C or C++ source outside the tests) and credits the functions the entry names, like a resolved
 * dotted name; an entry naming a character option (`'v'`) credits the `case 'v':` of the same file, where the option is
 * handled. Only names written as code (called, in backticks, the last part of a dotted name, a backticked string or a
 * flag) are looked up.
 */
export function resolveCTables(view: RepoView, ev: IssueEvidence): Credit[] {
  // A repository with no C or C++ has no such tables: its words are not looked up.
  if (ablated('c-tables') || !view.files.some((f) => C_FAMILY.has(f.language))) return [];
  const out: Credit[] = [];
  // A command line's subcommand says which command runs, not that its function is at fault: half the weight.
  const commands = new Set(commandLineWords(ev.segments));
  for (const name of tableNames(ev, commands)) {
    const stem = stemOf(name.split('-')[0]!.toLowerCase());
    if (view.text.docFreq(stem) === 0) continue;
    // `{ "name", handler, … }` or `{ handler, "name", … }`: the string is the entry's first or second field.
    const entry = new RegExp(`\\{\\s*(?:[^{}"\\n]{0,80},\\s*)?"${escapeRe(name)}"\\s*,[^{}"\\n]{0,160}\\}`, 'g');
    const credits = new Map<string, { ref: DefRef; line?: number; why: string }>();
    for (const p of view.text.filesWith(stem)) {
      const f = view.byPath.get(p);
      if (!f || !C_FAMILY.has(f.language) || view.classOf(p) === 'test') continue;
      const t = view.textOf(p);
      for (const m of t.matchAll(entry)) {
        const line = lineAt(t, m.index);
        const fields = m[0].replace(/"[^"\n]*"|'(?:\\.|[^'\\\n])'/g, ' ');
        for (const id of new Set(fields.match(IDENT) ?? [])) {
          if (NOT_HANDLERS.has(id) || id === name) continue;
          for (const ref of nonTest(view, (view.defsByName.get(id) ?? []).filter((r) => C_FAMILY.has(r.file.language)))) {
            const d = ref.file.outline.defs[ref.i]!;
            if (d.kind !== 'function' && d.kind !== 'method') continue;
            credits.set(`${ref.file.path}#${ref.i}`, { ref, why: `"${name}" registered at ${p}:${line} to ${id}` });
          }
        }
        const option = /'((?:\\.|[^'\\\n]))'\s*\}$/.exec(m[0]);
        if (option) {
          const c = new RegExp(`\\bcase\\s+'${escapeRe(option[1]!)}'\\s*:`, 'g');
          for (const k of t.matchAll(c)) {
            const at = lineAt(t, k.index);
            const i = innermost(f.outline.defs, at);
            if (i !== undefined) credits.set(`${p}#${i}@${at}`, { ref: { file: f, i }, line: at, why: `option "${name}" ('${option[1]}') handled at line ${at}` });
          }
        }
      }
    }
    if (!credits.size || credits.size > 6) continue;
    const spread = Math.max(1, Math.sqrt(credits.size / 2));
    const weight = commands.has(name) ? EVIDENCE_WEIGHTS.tableEntry * COMMAND_SHARE : EVIDENCE_WEIGHTS.tableEntry;
    for (const c of credits.values()) out.push(creditDefinition(c.ref, weight / spread, c.why, c.line));
  }
  return out;
}

/** The names an issue writes as code, first seen first: at most 12; a command line's subcommand first of all. */
function tableNames(ev: IssueEvidence, commands: ReadonlySet<string>): string[] {
  const out = new Set<string>(commands);
  for (const [n, e] of ev.names) if (e.calls + e.backticks > 0) out.add(n);
  for (const parts of ev.dotted) out.add(parts[parts.length - 1]!);
  for (const l of ev.literals) if (/^[A-Za-z_][\w-]*$/.test(l)) out.add(l);
  for (const f of ev.flags ?? []) out.add(f);
  return [...out].filter((n) => n.length >= 2).slice(0, 12);
}
