// What the CLI prints for a person goes through here. Text from a ledger, a flow file, a report or a request (run ids,
// signatures, reasons, names) is untrusted: an ESC or C1 byte starts a terminal control sequence (CSI: move, clear the
// screen; OSC: set the window title, an OSC 8 hyperlink whose text hides its target), a bare CR or BS overwrites what
// was printed, and bidirectional overrides reorder it. Such characters are shown as visible escapes (`\x1b`,
// `\u009b`, `\r`) instead of being sent raw. JSON output stays JSON: the same characters as `\u` escapes, which
// parse back to the same values.

/**
 * The characters a terminal acts on or that change how a line reads: C0 controls but TAB and LF, DEL, C1 controls,
 * Unicode's bidirectional marks and overrides, and the line and paragraph separators.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, LF and TAB included: for a value printed inside one line (a table cell, a field). */
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw of them (it escapes C0 itself). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\r': '\\r', '\b': '\\b', '\n': '\\n', '\t': '\\t', '\f': '\\f', '\v': '\\v', '\0': '\\0' };

function visible(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text for a terminal: every control character but LF and TAB shown as a visible escape. */
export function forTerminal(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** One value inside a line (a cell, a name, a reason): LF and TAB escaped too, so it cannot start a line of its own. */
export function inLine(value: string): string {
  return value.replace(UNSAFE_IN_LINE, visible);
}

/** One JSON line: JSON.stringify's output with C1 controls and bidirectional marks as `\u` escapes (still the same JSON). */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) + '\n';
}

/** Prints text for a person on stdout. */
export function printText(text: string): void {
  process.stdout.write(forTerminal(text));
}

/** Prints text for a person on stderr. */
export function printErrorText(text: string): void {
  process.stderr.write(forTerminal(text));
}
