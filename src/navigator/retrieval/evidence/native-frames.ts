/**
 * Frames of C and C++ crash reports, read as typed evidence (a file, a line, a function): AddressSanitizer,
 * LeakSanitizer, MemorySanitizer and ThreadSanitizer stacks (`#0 0x4c5b2f in jv_cmp /src/jq/src/jv.c:1234:5`), UndefinedBehaviorSanitizer
 * diagnostics (`src/jv.c:1234:5: runtime error: …`), gdb backtraces (`#1  0x0000… in jv_free (j=…) at src/jv.c:12`)
 * and valgrind stacks (`==1== at 0x4C2AB80: kv_put (kv.c:50)`). Every one of them writes the deepest frame first.
 * Pure: reads the text only.
 */

/** A frame as read-issue.ts's NativeFrame has it (declared here: read-issue imports this module). */
export interface NativeFrame {
  path: string;
  line?: number;
  fn?: string;
  /** 0 = the deepest frame of its stack, 1 = its caller, … */
  depth: number;
}

/**
 * A sanitizer frame: `#N 0xADDR in FUNCTION FILE:LINE[:COL]` (ASan, LSan, MSan), `#N FUNCTION FILE:LINE[:COL] (MODULE+0xOFF)`
 * (ThreadSanitizer). A frame without symbols names a module instead of a file: skipped.
 */
const SANITIZER_FRAME = /^[ \t]*#(\d+)[ \t]+(?:0x[0-9a-fA-F]+[ \t]+in[ \t]+)?(.+?)[ \t]+((?:[A-Za-z]:)?[^\s:()]+\.[A-Za-z+]+):(\d+)(?::\d+)?[ \t]*(?:\((?:BuildId:[^)]*|[^\s()]+\+0x[0-9a-fA-F]+)\))?[ \t]*$/gm;
/** A gdb frame: `#N  [0xADDR in ]FUNCTION (ARGS) at FILE:LINE`. */
const GDB_FRAME = /^[ \t]*#(\d+)[ \t]+(?:0x[0-9a-fA-F]+[ \t]+in[ \t]+)?(\S[^\n]*?)[ \t]*\([^\n]*\)[ \t]+at[ \t]+([^\s:]+):(\d+)[ \t]*$/gm;
/** A valgrind frame: `==PID==    at|by 0xADDR: FUNCTION (FILE:LINE)`. */
const VALGRIND_FRAME = /^==\d+==[ \t]+(?:at|by)[ \t]+0x[0-9A-Fa-f]+:[ \t]+(.+?)[ \t]+\(([^\s:()]+):(\d+)\)[ \t]*$/gm;
/** An UndefinedBehaviorSanitizer diagnostic: `FILE:LINE:COL: runtime error: …`. */
const RUNTIME_ERROR = /^[ \t]*((?:[A-Za-z]:)?[^\s:]+\.[A-Za-z+]+):(\d+)(?::\d+)?: runtime error:/gm;

/**
 * The function a frame names, as the repository's outline names it: the last segment of a qualified name, without
 * argument lists and template arguments (`fmt::v10::detail::write<char>(appender, char const*)` → `write`,
 * `(anonymous namespace)::parse` → `parse`, `Buffer<T>::~Buffer` → `~Buffer`). Undefined for what no definition is
 * named (`??`, a lambda).
 */
export function nativeFunctionName(raw: string): string | undefined {
  let s = raw.trim().replace(/\(anonymous namespace\)::/g, '');
  // Drop the argument list and anything after it (`const`, a clone suffix `[clone .cold]`): the first `(` outside `<…>`.
  let depth = 0;
  let flat = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '(' && depth === 0 && !/operator\s*$/.test(flat)) break;
    if (ch === '<' && !/operator<*\s*$/.test(flat)) depth++;
    else if (ch === '>' && depth > 0) depth--;
    else if (depth === 0) flat += ch;
  }
  s = flat.trim();
  const last = s.split('::').pop()!.trim();
  return /^~?[A-Za-z_]\w*$/.test(last) ? last : undefined;
}

/**
 * The frames of every C/C++ crash report in the text (see the module comment), each with its depth in its own stack:
 * a stack is a run of frames numbered upwards from `#0`; a `runtime error:` line is a stack of its own. A frame
 * repeated keeps its deepest position.
 */
export function nativeFrames(text: string): NativeFrame[] {
  const t = text.replace(/\r\n?/g, '\n');
  type Raw = { at: number; path: string; line: number; fn?: string; n: number };
  const raw: Raw[] = [];
  const taken = new Set<number>();
  const add = (at: number, path: string, line: number, fn: string | undefined, n: number) => {
    if (taken.has(at)) return;
    taken.add(at);
    const name = fn === undefined ? undefined : nativeFunctionName(fn);
    raw.push({ at, path, line, ...(name ? { fn: name } : {}), n });
  };
  // gdb's frames first: a sanitizer frame's pattern would also take `… in f (args) at file.c:12` with a wrong function.
  for (const m of t.matchAll(GDB_FRAME)) add(m.index, m[3]!, Number(m[4]), m[2], Number(m[1]));
  for (const m of t.matchAll(SANITIZER_FRAME)) add(m.index, m[3]!, Number(m[4]), m[2], Number(m[1]));
  // valgrind numbers nothing: frames count up from the `at` line.
  let vn = 0;
  for (const m of t.matchAll(VALGRIND_FRAME)) add(m.index, m[2]!, Number(m[3]), m[1], /\bat\b/.test(m[0].slice(0, m[0].indexOf('0x'))) ? (vn = 0) : ++vn);
  for (const m of t.matchAll(RUNTIME_ERROR)) add(m.index, m[1]!, Number(m[2]), undefined, 0);
  raw.sort((a, b) => a.at - b.at);
  const out: NativeFrame[] = [];
  const seen = new Map<string, NativeFrame>();
  for (const r of raw) {
    const p = r.path.replace(/\\/g, '/');
    const key = `${p}:${r.line}:${r.fn ?? ''}`;
    const prev = seen.get(key);
    if (prev) prev.depth = Math.min(prev.depth, r.n);
    else {
      const f: NativeFrame = { path: p, line: r.line, ...(r.fn ? { fn: r.fn } : {}), depth: r.n };
      seen.set(key, f);
      out.push(f);
    }
  }
  return out;
}
