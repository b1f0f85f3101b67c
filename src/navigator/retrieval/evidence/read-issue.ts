/**
 * Reading an issue as typed evidence: the text is split into prose, code (fenced, indented, `>>>`
 * sessions) and tracebacks, and each kind yields what it can say about the code — traceback frames
 * (a file, a line, a function), error messages (text some string literal in the code produces),
 * imports and dotted names of a snippet, names it calls or whose attributes it uses, identifiers in
 * backticks, file names. Pure: no repository is read here (resolve-evidence.ts does that).
 */
import { nativeFrames } from './native-frames.js';
import { scriptMentions } from './script-mentions.js';
import { programOutputMessages } from './c-program-output.js';

import { languageFrames, panicMessages, type RawFrame, traceBreaks } from './language-frames.js';

/** One piece of the issue text and what kind of text it is. */
export interface IssueSegment {
  kind: 'prose' | 'code';
  text: string;
}

/** A stack frame: a file (as the issue writes it), the line and the function when given. */
export interface FrameEvidence {
  path: string;
  line?: number;
  fn?: string;
  /** 0 = the deepest frame of its trace (where the error was raised), 1 = its caller, … */
  depth: number;
}

/** What an issue says, by kind. Lists keep first-seen order and hold no duplicates. */
export interface IssueEvidence {
  segments: IssueSegment[];
  frames: FrameEvidence[];
  /** Error messages and warnings quoted in the issue (the text after `ValueError:`, `WARNING:`, pytest's `E`). */
  messages: string[];
  /** Phrases the prose quotes in double quotes (`it says "Please enter a valid path name"`): text the program may print. */
  quoted: string[];
  /** `from a.b import C` → {module: 'a.b', names: ['C']}; `import a.b` → {module: 'a.b', names: []}. */
  imports: { module: string; names: string[] }[];
  /** `import numpy as np` → np → numpy; `from a import b as c` → c → a.b. */
  aliases: Map<string, string>;
  /** Dotted names (`xr.DataArray.quantile`, `Variable.__setitem__`), as written, split at dots. */
  dotted: string[][];
  /** Names the code calls or uses as attributes, and identifiers in backticks, with how they appear. */
  names: Map<string, { calls: number; attrs: number; backticks: number; prose: number }>;
  /** File names the issue mentions outside frames (`setup.cfg`, `sphinx/ext/autodoc.py`). */
  files: string[];
  /** Backticked tokens that are no identifier but a string the code spells (`unused-import`, `--foo-bar`, `:param:`). */
  literals: string[];
  /** Command-line flags the issue writes (`--word-regexp` → `word-regexp`), anywhere: prose, backticks, command lines. */
  flags?: string[];
  /** Names put beside the word "script" in prose (`the install script` → `install`): candidates, most name no file. */
  scripts?: string[];
  /** Links to a file of a repository at a line (`…/blob/<ref>/pkg/mod.py#L60`, `#L55-L61`): the path after the ref, and the lines. */
  links: { path: string; line?: number; end?: number }[];
}

const BLOB_LINK = /\/(?:blob|tree|src)\/[^/\s]+\/([^\s#?)\]>"']+\.[A-Za-z0-9]+)(?:#L(\d+)(?:-L?(\d+))?)?/g;

/** Links into a source tree (GitHub, GitLab, Bitbucket style `/blob/<ref>/<path>#L<n>`), in order, without duplicates. */
export function sourceLinks(text: string): IssueEvidence['links'] {
  const out: IssueEvidence['links'] = [];
  for (const m of text.matchAll(BLOB_LINK)) {
    const link = { path: m[1]!, ...(m[2] ? { line: Number(m[2]) } : {}), ...(m[3] ? { end: Number(m[3]) } : {}) };
    if (!out.some((l) => l.path === link.path && l.line === link.line)) out.push(link);
  }
  return out;
}

const FENCE = /^\s*(```|~~~)/;

/**
 * The text without the language names of its code fences (```` ```go ````, ```` ```rust ````, ```` ```console ````): a
 * fence's language says how to colour the block, not what it is about, yet as a word it matches the manifest
 * (`go.mod`'s `go 1.21`) or every file that names the language. For the words the navigator ranks with.
 */
export function withoutFenceLanguages(text: string): string {
  return text.replace(/^(\s*(?:```|~~~))[ \t]*[\w+#.-]+[^\S\n]*(?=\n|$)/gm, '$1');
}

/** Splits an issue into prose and code: fenced blocks, indented blocks after a blank line, and `>>>` session lines. */
export function splitIssue(text: string): IssueSegment[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: IssueSegment[] = [];
  let cur: IssueSegment | undefined;
  const push = (kind: IssueSegment['kind'], line: string) => {
    if (!cur || cur.kind !== kind) out.push((cur = { kind, text: '' }));
    cur.text += `${line}\n`;
  };
  let fenced = false;
  let prevBlank = true;
  let indented = false;
  for (const line of lines) {
    if (FENCE.test(line)) {
      fenced = !fenced;
      cur = undefined;
      prevBlank = false;
      continue;
    }
    if (fenced) {
      push('code', line);
      continue;
    }
    const blank = line.trim() === '';
    if (/^(\s{4,}|\t)\S/.test(line) && (prevBlank || indented)) indented = true;
    else if (!blank) indented = false;
    const session = /^\s*(>>>|\.\.\.|In \[\d+\]:)\s/.test(line);
    push(indented || session ? 'code' : 'prose', line);
    prevBlank = blank;
  }
  return out.filter((s) => s.text.trim() !== '');
}

const PY_FRAME = /File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?/g;
const PYTEST_FRAME = /^\s*([\w./\\-]+\.py):(\d+):(?: in (\w+))?/gm;
const JS_FRAME = /^\s*at (?:([\w$.<>[\] ]+?) \()?((?:[A-Za-z]:)?[^\s()]+?\.(?:[cm]?[jt]sx?)):(\d+)(?::\d+)?\)?\s*$/gm;

/**
 * The frames of every trace in the text, each with its depth in its own trace. Python and pytest write
 * the deepest frame last; JavaScript, Go, Rust and Java stacks write it first (language-frames.ts reads
 * the last three and compiler diagnostics). A trace is a run of frames of one kind with no more than a few
 * lines between them; a `Caused by:` line starts another.
 */
export function tracebackFrames(text: string): FrameEvidence[] {
  const t = text.replace(/\r\n?/g, '\n');
  type Raw = RawFrame & { end?: number };
  const raw: Raw[] = [];
  const fnOf = (s: string | undefined) => (s && /^[A-Za-z_$][\w$]*$/.test(s.split('.').pop()!) ? s.split('.').pop()! : undefined);
  for (const m of t.matchAll(PY_FRAME)) raw.push({ at: m.index, end: m.index + m[0].length, path: m[1]!, line: Number(m[2]), ...(fnOf(m[3]) ? { fn: fnOf(m[3])! } : {}), kind: 'py' });
  for (const m of t.matchAll(PYTEST_FRAME)) if (!raw.some((r) => r.at <= m.index + m[0].length && m.index <= r.at)) raw.push({ at: m.index, end: m.index + m[0].length, path: m[1]!, line: Number(m[2]), ...(fnOf(m[3]) ? { fn: fnOf(m[3])! } : {}), kind: 'py' });
  for (const m of t.matchAll(JS_FRAME)) raw.push({ at: m.index, end: m.index + m[0].length, path: m[2]!, line: Number(m[3]), ...(fnOf(m[1]) ? { fn: fnOf(m[1])! } : {}), kind: 'js' });
  raw.push(...languageFrames(t, raw.map((r) => ({ at: r.at, end: r.end ?? r.at + 1 }))));
  raw.sort((a, b) => a.at - b.at);
  // Group into traces: same kind, at most 6 lines apart.
  const traces: Raw[][] = [];
  const breaks = traceBreaks(t);
  let prev: Raw | undefined;
  for (const r of raw) {
    const gap = prev ? t.slice(prev.at, r.at).split('\n').length - 1 : Infinity;
    const broken = prev !== undefined && breaks.some((b) => prev!.at < b && b < r.at);
    if (!prev || prev.kind !== r.kind || gap > 6 || broken) traces.push([]);
    traces[traces.length - 1]!.push(r);
    prev = r;
  }
  const out: FrameEvidence[] = [];
  const seen = new Map<string, FrameEvidence>();
  for (const tr of traces) {
    const deepestLast = tr[0]!.kind === 'py';
    tr.forEach((r, i) => {
      const depth = deepestLast ? tr.length - 1 - i : i;
      const p = r.path.replace(/\\/g, '/');
      const key = `${p}:${r.line}:${r.fn ?? ''}`;
      const prev = seen.get(key);
      // A frame repeated (recursion, a later trace) keeps its deepest position.
      if (prev) prev.depth = Math.min(prev.depth, depth);
      else {
        const f: FrameEvidence = { path: p, line: r.line, ...(r.fn ? { fn: r.fn } : {}), depth };
        seen.set(key, f);
        out.push(f);
      }
    });
  }
  return out;
}

const MESSAGE = /(?:^|\s)(?:E\s+)?(?:[\w.]*[A-Z]\w*(?:Error|Exception|Warning|Exit)|WARNING|ERROR|Error|Warning|error|warning)(?:\s*\[[\w-]+\])?:\s+(.{8,})$/gm;
/** An error quoted inline in prose: `` `ValueError: it failed` `` (the message ends at the closing backtick). */
const INLINE_MESSAGE = /`(?:[\w.]*[A-Z]\w*(?:Error|Exception|Warning))(?:\s*\[[\w-]+\])?:\s+([^`\n]{8,})`/g;

/** Error and warning messages quoted in the text (what follows `SomeError:`, `WARNING:`, pytest's `E   X:`). */
export function errorMessages(text: string): string[] {
  const out: string[] = [];
  const t = text.replace(/\r\n?/g, '\n');
  for (const m of [...t.matchAll(MESSAGE), ...t.matchAll(INLINE_MESSAGE)].sort((a, b) => a.index - b.index)) {
    const msg = m[1]!.trim();
    if (/^(None|True|False|\d+)$/.test(msg) || !/[A-Za-z]{3,}\s+\S+/.test(msg)) continue;
    if (!out.includes(msg)) out.push(msg);
  }
  for (const msg of panicMessages(t)) if (/[A-Za-z]{3,}\s+\S+/.test(msg) && !out.includes(msg)) out.push(msg);
  return out;
}

const QUOTED = /(?<![\w"])["\u201c]([^"\u201c\u201d\n]{10,200}?)["\u201d](?![\w"])/g;

/**
 * Phrases quoted in prose with double quotes (straight or typographic) that read as a message: three
 * words or more. Not code (a backticked phrase is read as names) and not single quotes (apostrophes).
 */
export function quotedPhrases(prose: string): string[] {
  const out: string[] = [];
  for (const m of prose.matchAll(QUOTED)) {
    const q = m[1]!.trim();
    if ((q.match(/[A-Za-z]{2,}/g) ?? []).length < 3 || /^https?:/.test(q)) continue;
    if (!out.includes(q)) out.push(q);
  }
  return out;
}

const FLAG = /(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?![\w-])/g;

/** Long command-line flags written anywhere in the text, without their dashes, first seen first (at most 8). */
export function commandFlags(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(FLAG)) if (m[1]!.length >= 3 && !out.includes(m[1]!) && out.length < 8) out.push(m[1]!);
  return out;
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/;
const DOTTED = /(?<![\w.])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+/g;
const FILE_NAME = /(?<![\w/.-])((?:[\w.-]+\/)*[\w-]+\.(?:py|pyi|js|mjs|cjs|ts|tsx|jsx|go|rs|java|c|h|cc|cpp|cxx|hpp|hh|rb|cfg|toml|ini|json|ya?ml))(?![\w/])/g;

function stripSession(line: string): string {
  return line.replace(/^\s*(>>>|\.\.\.|In \[\d+\]:)\s?/, '');
}

/**
 * The text that can name code: without markdown headings (an issue template's `#### Output of
 * xr.show_versions()` is the template's, not the reporter's) and without `<details>` bodies
 * (environment dumps). Frames and messages are still read from the whole text.
 */
export function namingText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/<details>[\s\S]*?(<\/details>|$)/gi, '\n')
    .replace(/^\s{0,3}#{1,6}\s.*$/gm, '');
}

/** Reads every kind of evidence out of an issue. */
export function readIssue(text: string): IssueEvidence {
  const segments = splitIssue(namingText(text));
  // A sanitizer or gdb frame also reads as a compiler location (`file.c:12:5`) without its function: keep the native one.
  const native = nativeFrames(text);
  const nativeAt = new Set(native.map((f) => `${f.path}:${f.line}`));
  const frames = [...tracebackFrames(text).filter((f) => f.fn !== undefined || !nativeAt.has(`${f.path}:${f.line}`)), ...native];
  const messages = errorMessages(text);
  for (const m of programOutputMessages(text)) if (!messages.includes(m)) messages.push(m);
  const imports: IssueEvidence['imports'] = [];
  const aliases = new Map<string, string>();
  const dotted: string[][] = [];
  const names: IssueEvidence['names'] = new Map();
  const files: string[] = [];
  const literals: string[] = [];
  const quoted: string[] = [];
  const name = (n: string) => {
    let e = names.get(n);
    if (!e) names.set(n, (e = { calls: 0, attrs: 0, backticks: 0, prose: 0 }));
    return e;
  };
  const addDotted = (s: string) => {
    const parts = s.split('.');
    if (!dotted.some((d) => d.join('.') === s)) dotted.push(parts);
  };
  const framePaths = new Set(frames.map((f) => f.path));
  for (const seg of segments) {
    if (seg.kind === 'code') {
      for (const raw of seg.text.split('\n')) {
        const line = stripSession(raw);
        // Output and traces are not code: a frame line or an error line says nothing about names used.
        if (/^\s*(File "|Traceback|\w*(Error|Exception|Warning):)/.test(line)) continue;
        let m = /^\s*from\s+([\w.]+)\s+import\s+\(?\s*([\w\s,]+?)\s*\)?\s*$/.exec(line);
        if (m) {
          const mod = m[1]!;
          const list: string[] = [];
          for (const item of m[2]!.split(',')) {
            const [n, as] = item.trim().split(/\s+as\s+/);
            if (!n || !IDENT.test(n)) continue;
            list.push(n);
            aliases.set(as ?? n, `${mod}.${n}`);
          }
          if (!mod.startsWith('.')) imports.push({ module: mod, names: list });
          continue;
        }
        m = /^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)\s*$/.exec(line);
        if (m) {
          for (const item of m[1]!.split(',')) {
            const [mod, as] = item.trim().split(/\s+as\s+/);
            if (!mod) continue;
            imports.push({ module: mod, names: [] });
            if (as) aliases.set(as, mod);
          }
          continue;
        }
        const code = line.replace(/#.*$/, '').replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, '""');
        for (const d of code.matchAll(DOTTED)) if (!/^\d/.test(d[0])) addDotted(d[0]);
        for (const c of code.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) name(c[1]!).calls++;
        for (const c of code.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)/g)) name(c[1]!).attrs++;
      }
    } else {
      for (const b of seg.text.matchAll(/`+([^`\n]+?)`+/g)) {
        const inner = b[1]!.trim();
        if (/^[-:@]*[A-Za-z]\w*(?:[-:]+[%{}\w]+)+:?$/.test(inner) || /^--?[A-Za-z][\w-]*$/.test(inner)) {
          if (!literals.includes(inner)) literals.push(inner);
          continue;
        }
        // A string in backticked code (`mode='signature'`) is a value, not a name: a literal the code may spell; a
        // dotted one (`'pkg.ext.tool'`) names a module, so it is read as a dotted name.
        const code = inner.replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, '""');
        if (!/^\w*(Error|Exception|Warning)\b/.test(inner))
          for (const v of inner.matchAll(/(["'])([A-Za-z_][\w.-]{3,40})\1/g)) {
            if (v[2]!.includes('.')) {
              if (/^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$/.test(v[2]!)) addDotted(v[2]!);
            } else if (!literals.includes(v[2]!)) literals.push(v[2]!);
          }
        for (const d of code.matchAll(DOTTED)) addDotted(d[0]);
        // A phrase or a command line in backticks: only its code-shaped names (a call, snake_case, camelCase, a dotted name).
        const phrase = /\s/.test(inner);
        for (const id of code.matchAll(/(?<![\w-])[A-Za-z_][A-Za-z0-9_]*/g)) {
          if (id[0].length < 2) continue;
          if (phrase && !/[a-z0-9]_[a-z0-9]|^_|[a-z][A-Z]/.test(id[0]) && code[id.index + id[0].length] !== '(' && code[id.index - 1] !== '.') continue;
          name(id[0]).backticks++;
        }
      }
      const plain = seg.text.replace(/`+[^`\n]+?`+/g, ' ').replace(/https?:\/\/\S+/g, ' ');
      for (const q of quotedPhrases(plain)) if (!quoted.includes(q) && !messages.includes(q)) quoted.push(q);
      for (const d of plain.matchAll(DOTTED)) {
        // Prose dotted names: only when they look like code (a capital or an underscore somewhere, or a call).
        if (/[A-Z_]/.test(d[0]) && !/\.(com|org|net|io|html?|md|txt|rst)$/i.test(d[0])) addDotted(d[0]);
      }
      for (const c of plain.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\(/g)) name(c[1]!).calls++;
      // Identifiers that can only be code: snake_case or an inner capital (camelCase, CamelCase with two humps).
      for (const id of plain.matchAll(/\b[A-Za-z_][A-Za-z0-9_]*\b/g)) if (/[a-z0-9]_[a-z0-9]|^_|[a-z][A-Z]/.test(id[0])) name(id[0]).prose++;
    }
  }
  for (const m of text.matchAll(FILE_NAME)) {
    const f = m[1]!;
    if (!framePaths.has(f) && !files.includes(f) && !/^[\w-]+\.(com|org|net|io)$/.test(f)) files.push(f);
  }
  return { segments, frames, messages, quoted, imports, aliases, dotted, names, files, literals, flags: commandFlags(namingText(text)), scripts: scriptMentions(text), links: sourceLinks(text) };
}
