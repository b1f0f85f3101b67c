import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FileClass } from '../../repomap/file-class.js';
import type { Definition } from '../../repomap/outline.js';
import type { IndexedFile, RepoIndex } from '../../repomap/repo-index.js';
import { stemOf } from '../terms.js';
import type { TextIndex } from '../text-index.js';
import { type ModuleTarget, moduleMentions, resolveModules, resolveQualified } from './module-paths.js';
import { windowPattern } from './message-pattern.js';
import type { IssueEvidence } from './read-issue.js';
import { nameWords, stemOfPath } from './script-mentions.js';
import { languageFamily } from '../../repomap/file-class.js';
import { ablated } from '../ablation.js';

/** More code files than this carrying a name ("the index script" where every folder has an index) name none. */
const SCRIPT_NAMESAKES_MAX = 3;

/** A definition (function, method, class) the evidence points at, with the score and the reasons. */
export interface RankedDefinition {
  path: string;
  /** Qualified name inside the file (`Class.method`). */
  symbol: string;
  kind: string;
  /** 1-based inclusive line range of the whole definition, and the last line of its signature. */
  start: number;
  end: number;
  header_end: number;
  score: number;
  /** A line inside the definition the evidence names (a frame's line, a message's raise site). */
  line?: number;
  evidence: string[];
}

/** Evidence resolved against one repository: ranked definitions and the per-file scores they roll up to. */
export interface ResolvedEvidence {
  definitions: RankedDefinition[];
  /** Per file: evidence score (best definition plus a share of the others, plus file-level evidence) and reasons. */
  files: Map<string, { score: number; reasons: string[] }>;
}

/** Weights of each kind of evidence (a definition's score is the sum of what points at it). */
export const EVIDENCE_WEIGHTS = {
  /** The deepest in-repository frame; the k-th one up the stack gets frame / (1 + k). */
  frame: 3,
  /** A message whose words all occur, in order, in a string of the definition. */
  message: 2.5,
  /** A phrase the prose quotes (`"Please enter a valid path name"`), found like a message. */
  quoted: 2,
  /** A name imported from a module of the repository (or the module itself, `import a.b`). */
  import: 1.5,
  /** A dotted name resolved to a definition (`Class.method`, `module.function`). */
  dotted: 2,
  /** A name the issue calls, uses as an attribute, or writes in backticks; divided by the number of definitions of that name. */
  backtick: 1.2,
  call: 0.8,
  attr: 0.6,
  prose: 0.5,
  /** A backticked string the code spells exactly in a string literal (`unused-import`). */
  literal: 2,
  /** A macro the issue invokes (`select!`): the syntax says it is a macro, so only macro definitions of that name. */
  macro: 2,
  /** A command-line flag the issue writes (`--word-regexp`), where the code spells it in a string (its definition or its message). */
  flag: 2,
  /** The same flag as an identifier (`word_regexp`, `wordRegexp`: a parser's field or option key). */
  flagName: 1,
  /** A link to a line of a file (`…/blob/<ref>/path#L60`): the definition holding that line. */
  link: 2,
  /** A file the issue names. */
  file: 1,
  /** A script the prose names by its file's stem (`the install script` → `scripts/install.sh`). */
  script: 1,
  /** A definition called by a strongly evidenced one (its callee), as a share of the caller's score. */
  callee: 0.25,
  /** A class's constructor (`__init__`, `__new__`, its own or its nearest base's) when the issue calls the class, as a share of the class's score. */
  constructor: 0.5,
  /** A member of an evidenced class named after an attribute the issue uses (`_eval_is_zero` for `.is_zero`), as a share of the class's score. */
  hook: 0.5,
  /** A subclass's method overriding an evidenced method, as a share of the method's score (divided by √ of the overrides). */
  override: 0.3,
  /** A method dispatched by an evidenced class's name (`_print_Subs`, `visit_Subs`), as a share of the class's score. */
  dispatch: 0.5,
} as const;

type DefRef = { file: IndexedFile; i: number };

/** The qualified name of a definition: its enclosing definitions' names joined by dots. */
function qualified(defs: Definition[], i: number): string {
  const names: string[] = [];
  for (let j: number | null = i; j !== null && j !== undefined; j = defs[j]!.parent) names.unshift(defs[j]!.name);
  return names.join('.');
}

/** Innermost non-heading definition containing `line`. */
function innermost(defs: Definition[], line: number): number | undefined {
  let best: number | undefined;
  defs.forEach((d, i) => {
    if (d.kind === 'heading' || d.start > line || d.end < line) return;
    if (best === undefined || d.end - d.start < defs[best]!.end - defs[best]!.start) best = i;
  });
  return best;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A folder name without the release a package manager appends (`tokio-1.28.0` → `tokio`, `go-zero@v1.5.0` → `go-zero`). */
export const withoutRelease = (dir: string): string => dir.replace(/(?:-|@v?)\d+\.\d+\.\d+(?:[-+][\w.-]*)?$/, '');
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The lookups of a file list, by list: a long-lived process gets the same list back for an unchanged repository (see indexRepo). */
const lookupsMemo = new WeakMap<readonly IndexedFile[], { byPath: Map<string, IndexedFile>; byBase: Map<string, IndexedFile[]>; defsByName: Map<string, DefRef[]> }>();

function lookupsOf(files: IndexedFile[]) {
  const known = lookupsMemo.get(files);
  if (known) return known;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const byBase = new Map<string, IndexedFile[]>();
  const defsByName = new Map<string, DefRef[]>();
  for (const f of files) {
    const base = f.path.slice(f.path.lastIndexOf('/') + 1);
    let l = byBase.get(base);
    if (!l) byBase.set(base, (l = []));
    l.push(f);
    f.outline.defs.forEach((d, i) => {
      if (d.kind === 'heading') return;
      let list = defsByName.get(d.name);
      if (!list) defsByName.set(d.name, (list = []));
      list.push({ file: f, i });
    });
  }
  const out = { byPath, byBase, defsByName };
  lookupsMemo.set(files, out);
  return out;
}

/**
 * Resolves an issue's evidence against a repository's index: frames to files by path suffix and to the
 * function (or the definition holding the line), messages to the definitions whose string literals
 * hold their words in order, imports and dotted names through the repository's own module layout,
 * called and attribute names to their definitions (rarer names weigh more). Deterministic.
 */
export function resolveEvidence(ev: IssueEvidence, index: RepoIndex, text: TextIndex, classOf: (p: string) => FileClass = (p) => text.classOf(p)): ResolvedEvidence {
  const { byPath, byBase, defsByName } = lookupsOf(index.files);
  const texts = new Map<string, string>();
  const textOf = (p: string): string => {
    let t = texts.get(p) ?? index.texts?.get(p);
    if (t === undefined) {
      try {
        t = readFileSync(path.join(index.root, p), 'utf8');
      } catch {
        t = '';
      }
    }
    texts.set(p, t);
    return t;
  };
  const defScore = new Map<string, { ref: DefRef; score: number; line?: number; evidence: string[] }>();
  const fileScore = new Map<string, { score: number; reasons: string[] }>();
  const credit = (ref: DefRef, score: number, why: string, line?: number) => {
    if (score <= 0) return;
    const key = `${ref.file.path}#${ref.i}`;
    let e = defScore.get(key);
    if (!e) defScore.set(key, (e = { ref, score: 0, evidence: [] }));
    e.score += score;
    if (line !== undefined && e.line === undefined) e.line = line;
    if (!e.evidence.includes(why)) e.evidence.push(why);
  };
  const creditFile = (p: string, score: number, why: string) => {
    let e = fileScore.get(p);
    if (!e) fileScore.set(p, (e = { score: 0, reasons: [] }));
    e.score += score;
    if (!e.reasons.includes(why)) e.reasons.push(why);
  };
  const nonTest = (refs: DefRef[]) => refs.filter((r) => classOf(r.file.path) !== 'test');

  // Frames: a file by the longest path suffix shared with a repository file.
  const suffixFiles = (raw: string, bareOk: boolean): IndexedFile[] => {
    if (/[<>]/.test(raw)) return [];
    // A package manager's copy names its folder after the release (`tokio-1.28.0/src/…`, `go-zero@v1.5.0/core/…`).
    const parts = raw.replace(/\\/g, '/').split('/').filter((s) => s && s !== '.' && s !== '..').map(withoutRelease);
    const base = parts[parts.length - 1];
    if (!base) return [];
    const cands = byBase.get(base) ?? [];
    let best = 0;
    let out: IndexedFile[] = [];
    for (const f of cands) {
      const fp = f.path.split('/');
      let k = 0;
      while (k < fp.length && k < parts.length && fp[fp.length - 1 - k] === parts[parts.length - 1 - k]) k++;
      if (k > best) {
        best = k;
        out = [f];
      } else if (k === best) out.push(f);
    }
    // One shared component (the file name) is enough only for a bare name that is unique in the repository.
    if (best >= 2 || (best === 1 && bareOk && parts.length === 1 && out.length === 1 && !/^(__init__|index|main|setup|conftest)\./.test(base))) return out;
    if (best >= 1 && parts.length >= 2 && out.length === 1 && best === Math.min(parts.length, out[0]!.path.split('/').length)) return out;
    return [];
  };
  const inRepo = ev.frames
    .map((fr) => ({ fr, files: suffixFiles(fr.path, true) }))
    .filter((x) => x.files.length > 0)
    .sort((a, b) => a.fr.depth - b.fr.depth);
  let k = 0;
  for (const { fr, files } of inRepo) {
    const test = files.every((f) => classOf(f.path) === 'test');
    const w = (EVIDENCE_WEIGHTS.frame / (1 + (test ? k + 1 : k))) * (test ? 0.5 : 1) / files.length;
    if (!test) k++;
    for (const f of files) {
      const why = `frame ${fr.path}:${fr.line ?? '?'}${fr.fn ? ` in ${fr.fn}` : ''}${fr.depth === 0 ? ' (deepest)' : ` (depth ${fr.depth})`}`;
      creditFile(f.path, w * 0.3, why);
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
        credit({ file: f, i }, w, why, line);
      } else creditFile(f.path, w * 0.5, why);
    }
  }

  // Messages: windows of consecutive words, found in order in a file's text; the definition around the match.
  const messages: [string, number, string][] = [
    ...ev.messages.slice(0, 8).map((m): [string, number, string] => [m, EVIDENCE_WEIGHTS.message, 'message']),
    ...(ev.quoted ?? []).slice(0, 6).map((m): [string, number, string] => [m, EVIDENCE_WEIGHTS.quoted, 'quoted']),
  ];
  for (const [msg, weight, kind] of messages) {
    const words = msg.match(/[A-Za-z][A-Za-z0-9_]*/g) ?? [];
    if (words.length < 2) continue;
    const n = Math.min(4, words.length);
    const windows: string[][] = [];
    for (let s = 0; s + n <= words.length && windows.length < 10; s++) windows.push(words.slice(s, s + n));
    const hits = new Map<string, { ref?: DefRef; file: IndexedFile; line: number; count: number }>();
    for (const win of windows) {
      // The two rarest words' files: one of them may be a value the issue shows where the code has a placeholder.
      const terms = [...new Set(win.map((w) => stemOf(w.toLowerCase())))]
        .map((t) => [t, text.docFreq(t)] as const)
        .filter(([, d]) => d > 0)
        .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 2);
      if (!terms.length || terms[0]![1] > 400) continue;
      const re = windowPattern(win);
      const seen = new Set<string>();
      const cands = [...new Set(terms.filter(([, d]) => d <= 400).flatMap(([t]) => text.filesWith(t)))].sort();
      for (const p of cands) {
        const f = byPath.get(p);
        if (!f) continue;
        const t = textOf(p);
        const m = re.exec(t);
        if (!m) continue;
        const line = t.slice(0, m.index).split('\n').length;
        const i = innermost(f.outline.defs, line);
        const key = `${p}#${i ?? -1}`;
        if (seen.has(key)) continue;
        seen.add(key);
        let h = hits.get(key);
        if (!h) hits.set(key, (h = { ...(i !== undefined ? { ref: { file: f, i } } : {}), file: f, line, count: 0 }));
        h.count++;
      }
    }
    const matchedFiles = new Set([...hits.values()].map((h) => h.file.path)).size;
    const spread = Math.max(1, Math.sqrt(matchedFiles / 2));
    const short = msg.length > 60 ? `${msg.slice(0, 57)}…` : msg;
    for (const h of hits.values()) {
      const s = (weight * h.count) / windows.length / spread;
      const why = `${kind} "${short}" at line ${h.line}`;
      if (h.ref) credit(h.ref, s, why, h.line);
      else creditFile(h.file.path, s * 0.6, why);
    }
  }

  // Modules of the repository by dotted name: `a/b.py` or `a/b/__init__.py`, under any leading folder (`src/`, `lib/`).
  const moduleMemo = new Map<string, IndexedFile[]>();
  const moduleFiles = (mod: string): IndexedFile[] => {
    let out = moduleMemo.get(mod);
    if (!out) {
      const rel = mod.split('.').join('/');
      const base = mod.split('.').pop()!;
      out = [...(byBase.get(`${base}.py`) ?? []), ...(byBase.get('__init__.py') ?? [])].filter((f) => {
        const want = f.path.endsWith('/__init__.py') ? `${rel}/__init__.py` : `${rel}.py`;
        return f.path === want || f.path.endsWith(`/${want}`);
      });
      out = out.filter((f) => classOf(f.path) !== 'test' || out!.every((g) => classOf(g.path) === 'test'));
      moduleMemo.set(mod, out);
    }
    return out;
  };
  const packageDir = (f: IndexedFile) => (f.path.endsWith('/__init__.py') ? f.path.slice(0, -'__init__.py'.length) : undefined);
  /** Definitions named `name` in a module: top-level in its file, else anywhere in its package (a re-export). */
  const defsInModule = (mods: IndexedFile[], name: string): DefRef[] => {
    const all = defsByName.get(name) ?? [];
    const top = all.filter((r) => mods.includes(r.file) && r.file.outline.defs[r.i]!.parent === null);
    if (top.length) return top;
    const dirs = mods.map(packageDir).filter((d): d is string => d !== undefined);
    const under = all.filter((r) => dirs.some((d) => r.file.path.startsWith(d)) && r.file.outline.defs[r.i]!.parent === null);
    return nonTest(under).length ? nonTest(under) : under;
  };
  const expand = (parts: string[]): string[] => {
    const a = ev.aliases.get(parts[0]!);
    return a ? [...a.split('.'), ...parts.slice(1)] : parts;
  };
  /** Resolves a dotted path to files or definitions; returns whether anything was found. */
  const resolveDotted = (raw: string[], weight: number, why: string): boolean => {
    const parts = expand(raw);
    for (let i = parts.length; i >= 1; i--) {
      const mods = moduleFiles(parts.slice(0, i).join('.'));
      if (!mods.length) continue;
      const rest = parts.slice(i);
      if (!rest.length) {
        for (const f of mods) creditFile(f.path, weight * 0.5, why);
        return true;
      }
      const defs = defsInModule(mods, rest[0]!);
      if (!defs.length) continue;
      let targets = defs;
      if (rest.length > 1) {
        // `Class.method`: the member of that class, when it has one.
        const members = defs.flatMap((r) => r.file.outline.defs.map((d, j) => ({ d, j })).filter(({ d }) => d.parent === r.i && d.name === rest[1]).map(({ j }) => ({ file: r.file, i: j })));
        if (members.length) targets = members;
      }
      for (const r of targets) credit(r, weight / Math.sqrt(targets.length), why);
      return true;
    }
    // No module of the repository: `Class.method` by the names alone.
    if (parts.length >= 2) {
      const [owner, member] = parts.slice(-2) as [string, string];
      const members = (defsByName.get(member) ?? []).filter((r) => {
        const p = r.file.outline.defs[r.i]!.parent;
        return p !== null && r.file.outline.defs[p]!.name === owner;
      });
      const pick = nonTest(members).length ? nonTest(members) : members;
      if (pick.length && pick.length <= 12) {
        for (const r of pick) credit(r, weight / Math.sqrt(pick.length), why);
        return true;
      }
    }
    return false;
  };

  for (const imp of ev.imports) {
    if (!imp.names.length) {
      for (const f of moduleFiles(imp.module)) if (!f.path.endsWith('__init__.py')) creditFile(f.path, EVIDENCE_WEIGHTS.import * 0.3, `import ${imp.module}`);
      continue;
    }
    for (const name of imp.names) {
      const why = `from ${imp.module} import ${name}`;
      const sub = moduleFiles(`${imp.module}.${name}`);
      if (sub.length) {
        for (const f of sub) creditFile(f.path, EVIDENCE_WEIGHTS.import * 0.6, why);
        continue;
      }
      resolveDotted([...imp.module.split('.'), name], EVIDENCE_WEIGHTS.import, why);
    }
  }
  // A module system's target: the member the mention names in the module's files (or under its folder), else the files.
  const applyTarget = (t: ModuleTarget, weight: number) => {
    const inFiles = (name: string, files: readonly string[]) => nonTest((defsByName.get(name) ?? []).filter((r) => files.includes(r.file.path)));
    let defs: DefRef[] = [];
    if (t.member) {
      defs = inFiles(t.member, t.files);
      if (!defs.length && t.under) defs = nonTest((defsByName.get(t.member) ?? []).filter((r) => r.file.path.startsWith(`${t.under}/`)));
      if (t.submember && defs.length) {
        const owners = new Set(defs.map((r) => r.file.path));
        const subs = (defsByName.get(t.submember) ?? []).filter((r) => owners.has(r.file.path) && r.file.outline.defs[r.i]!.parent !== null && r.file.outline.defs[r.file.outline.defs[r.i]!.parent!]!.name === t.member);
        if (subs.length) defs = subs;
      }
    }
    if (defs.length && defs.length <= 3) for (const r of defs) credit(r, weight / Math.sqrt(defs.length), t.why);
    // A module named without a member (a program importing a framework's package) says little, as Python's bare `import a.b`
    // does; a Go package is a folder of files, so the little it says is shared among them.
    else for (const f of t.files.slice(0, 12)) creditFile(f, (weight * 0.3) / t.files.length, t.why);
  };
  const allPaths = index.files.map((f) => f.path);
  // A Java/Kotlin package or a Go package qualifier first (the names alone would match every class of that name), then Python's modules.
  for (const parts of ev.dotted) {
    const t = resolveQualified(parts, allPaths);
    if (t) applyTarget(t, EVIDENCE_WEIGHTS.dotted);
    else resolveDotted(parts, EVIDENCE_WEIGHTS.dotted, `names ${parts.join('.')}`);
  }
  const mentions = moduleMentions(ev.segments.map((s) => s.text).join('\n'));
  for (const t of resolveModules(mentions, allPaths, textOf)) applyTarget(t, t.why.startsWith('import') ? EVIDENCE_WEIGHTS.import : EVIDENCE_WEIGHTS.dotted);
  // A macro the issue invokes (`select!`): its `macro_rules!` definition.
  for (const name of mentions.macros) {
    const defs = nonTest((defsByName.get(name) ?? []).filter((r) => r.file.outline.defs[r.i]!.kind === 'macro'));
    if (defs.length && defs.length <= 3) for (const r of defs) credit(r, EVIDENCE_WEIGHTS.macro / Math.sqrt(defs.length), `macro ${name}!`);
  }

  // Names: called, used as attributes, in backticks, or written as code in prose; rarer names weigh more.
  for (const [name, c] of ev.names) {
    if (name.length < 3) continue;
    const all = defsByName.get(name) ?? [];
    const pick = nonTest(all).length ? nonTest(all) : all;
    const n = new Set(pick.map((r) => r.file.path)).size;
    if (!n || n > 12) continue;
    // A plain lowercase word (`version`) may be English as much as code: half weight unless it is called.
    const plain = /^[a-z]+$/.test(name) && !c.calls ? 0.5 : 1;
    const base = plain * (c.backticks ? EVIDENCE_WEIGHTS.backtick : c.calls ? EVIDENCE_WEIGHTS.call : c.attrs ? EVIDENCE_WEIGHTS.attr : EVIDENCE_WEIGHTS.prose);
    const times = c.backticks + c.calls + c.attrs + c.prose;
    // Repeats count a little (saturating), never linearly.
    const s = (base * (1 + 0.25 * Math.log(times))) / n;
    const how = c.backticks ? `\`${name}\`` : c.calls ? `calls ${name}()` : c.attrs ? `uses .${name}` : `mentions ${name}`;
    for (const r of pick) credit(r, s / Math.max(1, pick.filter((x) => x.file === r.file).length), how);
  }

  // Literals: the exact string between quotes in the code.
  for (const lit of ev.literals.slice(0, 8)) {
    const words = lit.match(/[A-Za-z][A-Za-z0-9_]*/g) ?? [];
    let rarest: string | undefined;
    let df = Infinity;
    for (const w of words) {
      const d = text.docFreq(stemOf(w.toLowerCase()));
      if (d > 0 && d < df) [df, rarest] = [d, stemOf(w.toLowerCase())];
    }
    if (!rarest) continue;
    const re = new RegExp(`(["'])${escapeRe(lit)}\\1`);
    const found: { f: IndexedFile; line: number }[] = [];
    for (const p of text.filesWith(rarest)) {
      const f = byPath.get(p);
      const m = f ? re.exec(textOf(p)) : null;
      if (f && m) found.push({ f, line: textOf(p).slice(0, m.index).split('\n').length });
    }
    const spread = Math.max(1, Math.sqrt(found.length / 2));
    for (const { f, line } of found) {
      const i = innermost(f.outline.defs, line);
      const why = `literal "${lit}" at line ${line}`;
      if (i !== undefined) credit({ file: f, i }, EVIDENCE_WEIGHTS.literal / spread, why, line);
      else creditFile(f.path, (EVIDENCE_WEIGHTS.literal * 0.6) / spread, why);
    }
  }

  // Flags: where the code spells them in a string (`"word-regexp"`, `'-w, --word-regexp'`, `long("word-regexp")`), else as
  // an identifier of their words (`word_regexp`, `wordRegexp`). A one-word flag must be spelt with its dashes or as a long name.
  for (const flag of ev.flags ?? []) {
    const parts = flag.split('-');
    const stems = [...new Set(parts.map((w) => stemOf(w)))].map((t) => [t, text.docFreq(t)] as const).filter(([, d]) => d > 0).sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
    if (!stems.length) continue;
    const esc = escapeRe(flag);
    const inString = parts.length > 1 ? `(?:--)?${esc}` : `--${esc}`;
    const lit = new RegExp(`(["'\`])(?:[^"'\`\n]*?[\\s,|=])?${inString}(?:[\\s,|=<[][^"'\`\n]*?)?\\1|\\blong\\s*[(=]\\s*"${esc}"`);
    const ident = parts.length > 1 ? new RegExp(`\\b(?:${parts.join('_')}|${parts[0]}${parts.slice(1).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')})\\b`) : undefined;
    const found: { f: IndexedFile; line: number; w: number }[] = [];
    for (const p of text.filesWith(stems[0]![0])) {
      const f = byPath.get(p);
      if (!f || classOf(p) === 'test') continue;
      const t = textOf(p);
      const spelt = lit.exec(t);
      const m = spelt ?? (ident ? ident.exec(t) : null);
      if (m) found.push({ f, line: t.slice(0, m.index).split('\n').length, w: spelt ? EVIDENCE_WEIGHTS.flag : EVIDENCE_WEIGHTS.flagName });
    }
    const spread = Math.max(1, Math.sqrt(found.length / 2));
    for (const { f, line, w } of found) {
      const i = innermost(f.outline.defs, line);
      const why = `flag --${flag} at line ${line}`;
      if (i !== undefined) credit({ file: f, i }, w / spread, why, line);
      else creditFile(f.path, (w * 0.6) / spread, why);
    }
  }

  // Links to lines of the source: the definition holding the line (a link without a line: the file).
  for (const link of ev.links.slice(0, 8)) {
    for (const f of suffixFiles(link.path, false)) {
      const why = `link ${link.path}${link.line ? `#L${link.line}` : ''}`;
      const i = link.line !== undefined ? innermost(f.outline.defs, link.line) : undefined;
      if (i !== undefined) credit({ file: f, i }, EVIDENCE_WEIGHTS.link, why, link.line);
      else creditFile(f.path, EVIDENCE_WEIGHTS.link * 0.5, why);
    }
  }

  for (const raw of ev.files) {
    for (const f of suffixFiles(raw, true)) creditFile(f.path, EVIDENCE_WEIGHTS.file, `names file ${raw}`);
  }

  // A script named in prose ("the install script"): the code files carrying that name, when they are few.
  if (ev.scripts?.length && !ablated('named-scripts')) {
    const said = new Set(ev.scripts);
    const named = new Map<string, IndexedFile[]>();
    for (const f of index.files) {
      if (!languageFamily(f.path) || classOf(f.path) === 'test') continue;
      const key = nameWords(stemOfPath(f.path));
      if (said.has(key)) named.set(key, [...(named.get(key) ?? []), f]);
    }
    for (const [key, files] of named) if (files.length <= SCRIPT_NAMESAKES_MAX) for (const f of files) creditFile(f.path, EVIDENCE_WEIGHTS.script, `names script ${key}`);
  }

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

  const definitions: RankedDefinition[] = [...defScore.values()].map((e) => {
    const d = e.ref.file.outline.defs[e.ref.i]!;
    return {
      path: e.ref.file.path,
      symbol: qualified(e.ref.file.outline.defs, e.ref.i),
      kind: d.kind,
      start: d.start,
      end: d.end,
      header_end: d.header_end,
      score: Math.round(e.score * 1e4) / 1e4,
      ...(e.line !== undefined ? { line: e.line } : {}),
      evidence: e.evidence,
    };
  });
  definitions.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.start - b.start));
  // Files: the best definition, plus a third of the rest (capped), plus file-level evidence.
  const perFile = new Map<string, number[]>();
  for (const d of definitions) {
    let l = perFile.get(d.path);
    if (!l) perFile.set(d.path, (l = []));
    l.push(d.score);
  }
  for (const [p, scores] of perFile) {
    const rest = scores.slice(1).reduce((a, b) => a + b, 0);
    const s = scores[0]! + Math.min(scores[0]!, rest / 3);
    const e = fileScore.get(p);
    const reasons = definitions.filter((d) => d.path === p).slice(0, 3).map((d) => `${d.symbol}: ${d.evidence[0]}`);
    fileScore.set(p, { score: s + (e?.score ?? 0), reasons: [...reasons, ...(e?.reasons ?? [])] });
  }
  for (const e of fileScore.values()) e.score = Math.round(e.score * 1e4) / 1e4;
  return { definitions, files: fileScore };
}
