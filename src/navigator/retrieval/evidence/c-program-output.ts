/**
 * Diagnostics of command-line programs written in C, as a report pastes their output: git's and many Unix tools'
 * `fatal: Not a git repository`, a program-prefixed `tool: fatal: …`, `tool: error (at <stdin>:3): …` (a context in
 * parentheses before the colon) and `tool: (6) Could not resolve host` (a numbered error). The generic message reader
 * (read-issue.ts) takes `error:`/`warning:` lines; these forms it misses. The text after the prefix is what some
 * `die("…")`/`fprintf(stderr, "…")` call spells, usually with `%s` placeholders where the report shows values.
 * Read from lines that start with the diagnostic (pasted output, fenced, indented or not), never mid-sentence. Pure.
 * Switch: NAVKERNEL_ABLATE=c-program-output.
 */
import { ablated } from '../ablation.js';

/** `[prog: ]fatal: MSG`, `[prog: ]error (context): MSG`, `prog: (N) MSG`. */
const OUTPUT_LINE = /^[ \t]*(?:[\w.+-]+:[ \t]+)?(?:(?:fatal|BUG)(?:[ \t]+error)?(?:[ \t]*\([^)\n]*\))?|(?:error|warning)[ \t]*\([^)\n]*\)|\(\d+\))[ \t]*:?[ \t]+(.{8,})$/gim;

/** The messages of C programs' diagnostics written at the start of a line, first seen first, at most 6. */
export function programOutputMessages(text: string): string[] {
  if (ablated('c-program-output')) return [];
  const out: string[] = [];
  for (const m of text.replace(/\r\n?/g, '\n').matchAll(OUTPUT_LINE)) {
    const msg = m[1]!.trim();
    if (!/[A-Za-z]{3,}\s+\S+/.test(msg) || out.includes(msg)) continue;
    out.push(msg);
    if (out.length >= 6) break;
  }
  return out;
}
