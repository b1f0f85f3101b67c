/**
 * Stack frames, panics and compiler diagnostics in the words of languages other than Python: Rust panics and
 * backtraces, Go goroutine dumps, Java/Kotlin `at pkg.Class.method(File.java:N)` traces with their `Caused by:`
 * chains, and the `file:line[:col]` locations that compilers and linters print (rustc's `--> src/x.rs:3:5`, tsc's
 * `file.ts(3,5)`, javac, go vet, gcc/clang). Pure text reading: no repository is consulted here.
 */

/** A frame found in the text, before grouping into traces. */
export interface RawFrame {
  /** Offset in the text (frames are grouped into traces by position). */
  at: number;
  path: string;
  line: number;
  fn?: string;
  /** The trace kind: frames group only with frames of their own kind. Python writes the deepest frame last, all others first. */
  kind: 'py' | 'js' | 'go' | 'rs' | 'rspanic' | 'java' | 'diag';
}

/** Source extensions a diagnostic location may name (a file name with a line: `src/x.rs:12:5`). */
const SOURCE_EXT = 'rs|go|java|kt|kts|scala|ts|tsx|mts|cts|js|jsx|mjs|cjs|c|cc|cpp|cxx|h|hh|hpp|hxx|cs|swift|rb|php|py';

/** The last identifier of a qualified function name (`tokio::runtime::Runtime::block_on::h1a2b…`, `pkg.(*T).Method`). */
export function lastName(qualified: string): string | undefined {
  const s = qualified
    .replace(/::h[0-9a-f]{16}$/, '')
    .replace(/<[^<>]*>/g, '')
    .replace(/<[^<>]*>/g, '')
    .replace(/(::)?\{\{closure\}\}/g, '')
    .replace(/\([^()]*\)$/, '');
  const parts = s.split(/::|\.|\//).filter((p) => p !== '');
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i]!.replace(/^\(\*?|\)$/g, '');
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(p) && !/^func\d+$/.test(p)) return p;
  }
  return undefined;
}

const RUST_PANIC = /panicked at (?:'(?:[^'\n]|'(?!,))*',\s*|"(?:[^"\n])*",\s*)?((?:[A-Za-z]:)?[^\s:'"]+\.rs):(\d+)(?::\d+)?/g;
const RUST_AT = /^\s*at ((?:[A-Za-z]:)?[^\s()]+\.rs):(\d+)(?::\d+)?\s*$/gm;
const RUST_FN = /^\s*\d+:\s+(?:0x[0-9a-f]+ - )?(\S.*?)\s*$/;
const GO_FN = /^\s*((?:[\w.\-~]+\/)*[\w.\-~]+\.(?:\(\*?\w+\)\.)?[\w.]+)\((?:[^()]*)\)\s*$/;
const GO_FILE = /^\s*(\/?(?:[\w.@~-]+\/)*[\w.-]+\.go):(\d+)/gm;
const JAVA_AT = /^\s*at\s+(?:[\w.-]+\/)?((?:[\w$]+\.)+)([\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)/gm;
const CAUSED_BY = /^\s*Caused by:/gm;
const TSC = new RegExp(`^\\s*((?:[A-Za-z]:)?[^\\s():]+\\.(?:[cm]?tsx?|[cm]?jsx?))\\((\\d+),\\d+\\):\\s*(?:error|warning)`, 'gm');
const LOCATION = new RegExp(`(?<![\\w./\\\\-])((?:[A-Za-z]:)?(?:\\.{0,2}/)?(?:[\\w.@+-]+[/\\\\])*[\\w.+-]+\\.(?:${SOURCE_EXT})):(\\d+)(?::\\d+)?(?![\\d.]*\\w)`, 'g');

/** The line before offset `at` (without its newline), or '' at the start. */
function lineBefore(text: string, at: number): string {
  const end = text.lastIndexOf('\n', at - 1);
  if (end < 0) return '';
  const start = text.lastIndexOf('\n', end - 1);
  return text.slice(start + 1, end);
}

/** Offsets where a new trace starts whatever the gap (`Caused by:` begins another exception's frames). */
export function traceBreaks(text: string): number[] {
  return [...text.matchAll(CAUSED_BY)].map((m) => m.index);
}

/**
 * Frames of Rust, Go and Java/Kotlin traces and the locations of compiler and linter diagnostics. `taken` are
 * ranges already read as frames of another kind (a location inside one is not read twice).
 */
export function languageFrames(text: string, taken: readonly { at: number; end: number }[]): RawFrame[] {
  const out: RawFrame[] = [];
  const spans = [...taken];
  const free = (at: number, end: number) => !spans.some((s) => s.at < end && at < s.end);
  const add = (f: RawFrame, end: number) => {
    out.push(f);
    spans.push({ at: f.at, end });
  };
  for (const m of text.matchAll(RUST_PANIC)) {
    const at = m.index + m[0].indexOf(m[1]!);
    add({ at, path: m[1]!, line: Number(m[2]), kind: 'rspanic' }, m.index + m[0].length);
  }
  for (const m of text.matchAll(RUST_AT)) {
    const fn = RUST_FN.exec(lineBefore(text, m.index + (m[0].startsWith('\n') ? 1 : 0)));
    const name = fn ? lastName(fn[1]!) : undefined;
    if (free(m.index, m.index + m[0].length)) add({ at: m.index, path: m[1]!, line: Number(m[2]), ...(name ? { fn: name } : {}), kind: 'rs' }, m.index + m[0].length);
  }
  for (const m of text.matchAll(GO_FILE)) {
    const fn = GO_FN.exec(lineBefore(text, m.index + (m[0].startsWith('\n') ? 1 : 0)));
    const name = fn ? lastName(fn[1]!) : undefined;
    if (free(m.index, m.index + m[0].length)) add({ at: m.index, path: m[1]!, line: Number(m[2]), ...(name ? { fn: name } : {}), kind: 'go' }, m.index + m[0].length);
  }
  for (const m of text.matchAll(JAVA_AT)) {
    // `com.example.Outer$Inner.method(Outer.java:12)`: the package's folders and the file the frame names.
    const owner = m[1]!.slice(0, -1).split('.');
    const pkg = owner.slice(0, -1).filter((p) => /^[a-z_][\w]*$/.test(p));
    const method = m[2]!;
    const fn = /^[A-Za-z_]\w*$/.test(method) && !/^lambda\$/.test(method) ? method : undefined;
    add({ at: m.index, path: [...pkg, m[3]!].join('/'), line: Number(m[4]), ...(fn ? { fn } : {}), kind: 'java' }, m.index + m[0].length);
  }
  for (const m of text.matchAll(TSC)) if (free(m.index, m.index + m[0].length)) add({ at: m.index, path: m[1]!, line: Number(m[2]), kind: 'diag' }, m.index + m[0].length);
  for (const m of text.matchAll(LOCATION)) {
    if (!free(m.index, m.index + m[0].length) || /^\d/.test(m[1]!)) continue;
    add({ at: m.index, path: m[1]!, line: Number(m[2]), kind: 'diag' }, m.index + m[0].length);
  }
  return out;
}

const RUST_PANIC_QUOTED = /panicked at '((?:[^'\n]|'(?!,\s*[^\s,]+\.rs:))+)',/g;
const RUST_PANIC_NEXT = /panicked at [^\s:]+\.rs:\d+(?::\d+)?:\n([^\n]{8,})/g;
const GO_PANIC = /^panic:\s+(.{8,})$/gm;

/** The messages of Rust panics (`panicked at 'msg', …` and the newer `panicked at src/x.rs:1:2:` followed by the message) and Go's `panic: msg`. */
export function panicMessages(text: string): string[] {
  const out: string[] = [];
  for (const re of [RUST_PANIC_QUOTED, RUST_PANIC_NEXT, GO_PANIC])
    for (const m of text.matchAll(re)) {
      const msg = m[1]!.trim().replace(/\s*\[recovered\]$/, '');
      if (!out.includes(msg)) out.push(msg);
    }
  return out;
}
