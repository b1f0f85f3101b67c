// Option values and option names a Python snippet writes, found where the library registers them as strings:
// `Table.read(f, format="ascii.rst")` → the reader whose name is "ascii.rst"; a configuration file's
// `autodoc_typehints = "description"` → where "autodoc_typehints" is declared and "description" is tested.
import type { IndexedFile } from '../../../../repomap/repo-index.js';
import { ablated } from '../../ablation.js';
import { stemOf } from '../../terms.js';
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type RepoView, creditDefinition, creditFile, escapeRe, innermost, lineAt } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

/** A value that reads as a name (`rst`, `ascii.rst`, `h5netcdf`, `no-cache`), not as data (`hello world`, `#fff`, `42`). */
const NAME_VALUE = /^[A-Za-z][A-Za-z0-9_]*(?:[.:-][A-Za-z0-9_]+)*$/;

/** The string values given to keyword arguments (`format="rst"`) and the names a configuration snippet assigns at its top level. */
export function optionTokens(code: string): string[] {
  const out: string[] = [];
  const add = (t: string) => {
    if (t.length >= 3 && NAME_VALUE.test(t) && !out.includes(t)) out.push(t);
  };
  for (const raw of code.split('\n')) {
    const line = raw.replace(/^\s*(>>>|\.\.\.|In \[\d+\]:)\s?/, '');
    if (/^\s*(File "|Traceback|\w*(Error|Exception|Warning):)/.test(line)) continue;
    // `name="value"` inside a call or on its own line (a configuration value).
    for (const m of line.matchAll(/(?<![\w.])([A-Za-z_]\w*)\s*=\s*(["'])([^"'\n]{1,60})\2/g)) add(m[3]!);
    // A configuration file's own names: `name = …` at the start of a line, lowercase with an underscore.
    const top = /^([a-z][a-z0-9]*_[a-z0-9_]+)\s*=(?!=)/.exec(line);
    if (top) add(top[1]!);
  }
  return out.slice(0, 12);
}

/**
 * Credits the definitions of Python sources that spell a snippet's option value or configuration name as a whole
 * string literal, when at most three files do (a registry entry, a `choices` list, a config declaration; a value
 * common in the code names nothing). Switch: NAVKERNEL_ABLATE=option-values.
 */
export function resolveOptionValues(view: RepoView, ev: IssueEvidence): Credit[] {
  if (ablated('option-values')) return [];
  const code = ev.segments.filter((s) => s.kind === 'code').map((s) => s.text).join('\n');
  if (!code) return [];
  const out: Credit[] = [];
  for (const token of optionTokens(code)) {
    let rarest: string | undefined;
    let df = Infinity;
    for (const w of token.match(/[A-Za-z][A-Za-z0-9]*/g) ?? []) {
      const t = stemOf(w.toLowerCase());
      const d = view.text.docFreq(t);
      if (d > 0 && d < df) [df, rarest] = [d, t];
    }
    if (!rarest) continue;
    const re = new RegExp(`(["'])${escapeRe(token)}\\1`);
    const found: { f: IndexedFile; line: number }[] = [];
    for (const p of view.text.filesWith(rarest)) {
      const f = view.byPath.get(p);
      if (!f || !/\.pyi?$/.test(p) || view.classOf(p) !== 'source') continue;
      const t = view.textOf(p);
      const m = re.exec(t);
      if (m) found.push({ f, line: lineAt(t, m.index) });
    }
    if (!found.length || found.length > 3) continue;
    for (const { f, line } of found) {
      const i = innermost(f.outline.defs, line);
      const why = `option "${token}" at line ${line}`;
      if (i !== undefined) out.push(creditDefinition({ file: f, i }, EVIDENCE_WEIGHTS.option / Math.sqrt(found.length), why, line));
      else out.push(creditFile(f.path, (EVIDENCE_WEIGHTS.option * 0.6) / Math.sqrt(found.length), why));
    }
  }
  return out;
}
