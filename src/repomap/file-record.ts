import { classifyPath } from './file-class.js';
import type { FileLanguage } from './languages.js';
import { extractOutline, type Outline } from './outline.js';
import { pythonOutline } from './python-outline.js';

/** The parse note of a generated or vendored file (indexed as text, shown as plain text). */
export const NOT_PARSED = 'not parsed: generated or vendored file';

/**
 * C and C++ files larger than this are indexed as text, not parsed: single-file amalgamations (`sqlite3.c` at 8 MB, a
 * bundled `gtest-all.cc`) that the C++ grammar would take seconds to parse (about 0.5–1 MB/s here), for an outline
 * nobody reads whole. Files of other languages this large are rare and parse several times faster.
 */
export const MAX_C_PARSE_CHARS = 512 * 1024;
/** The parse note of a C or C++ file over MAX_C_PARSE_CHARS. */
export const NOT_PARSED_LARGE = 'not parsed: C/C++ file over 512 KiB (an amalgamation)';
/**
 * The parse note of a C or C++ test, example or benchmark file: indexed as text. The C++ grammar parses about 1 MB/s
 * here and a C++ repository's tests are most of its code (fmt: 1.8 of 2.5 MB, most of it a bundled gtest), while
 * the ranking wants the sources' definitions; their words still reach the full-text index.
 */
export const NOT_PARSED_C_TEST = 'not parsed: C/C++ test, example or benchmark file';

/** Whether a C or C++ file is parsed: sources under MAX_C_PARSE_CHARS; undefined (parsed) for other languages. */
function cParseNote(input: FileRecordInput): string | undefined {
  if (input.language !== 'c' && input.language !== 'cpp') return undefined;
  if (input.text.length > MAX_C_PARSE_CHARS) return NOT_PARSED_LARGE;
  const cls = classifyPath(input.path);
  return cls === 'test' || cls === 'example' ? NOT_PARSED_C_TEST : undefined;
}

/** What the extraction of one file needs: plain data, so it can be sent to a worker thread. */
export interface FileRecordInput {
  path: string;
  language: FileLanguage;
  text: string;
  /** A generated or vendored file: indexed as text, never parsed. */
  unparsed: boolean;
}

/**
 * What the index keeps of one file's content: a plain serialisable record (it is cached by content hash
 * and sent between threads whole, so a field added here flows through the cache and the workers unchanged).
 */
export interface FileRecord {
  lines: number;
  outline: Outline;
}

/** One file's extraction: its record and, when asked for, the caller's extras. */
export interface Extracted {
  record: FileRecord;
  extras?: unknown;
}

/**
 * A second per-file extraction a caller adds to the index run (the navigator's full-text fields): an ES
 * module by URL and the name of its export, `(path, language, text) => value` (structured-cloneable),
 * so worker threads can load it too. Run for the files read this run only; results are not cached.
 */
export interface FileExtrasSpec {
  module: string;
  export: string;
}
export type FileExtrasFn = (path: string, language: FileLanguage, text: string) => unknown;

export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/**
 * The record of one file: its line count and outline (definitions and references: read lexically for Python,
 * see python-outline.ts, with tree-sitter for the rest and for what the lexical reading is unsure of). A file that
 * fails to parse gets an outline with `parse_error` (rendered as plain text). A pure function of its input.
 */
export async function extractFileRecord(input: FileRecordInput): Promise<FileRecord> {
  let outline: Outline;
  try {
    outline = input.unparsed
      ? { defs: [], refs: [], parse_error: NOT_PARSED }
      : cParseNote(input) !== undefined
        ? { defs: [], refs: [], parse_error: cParseNote(input)! }
      : ((input.language === 'python' ? pythonOutline(input.text) : undefined) ?? (await extractOutline(input.language, input.text)));
  } catch (err) {
    outline = { defs: [], refs: [], parse_error: `parse failed: ${(err as Error).message}` };
  }
  return { lines: countLines(input.text), outline: detached(outline) };
}

/** V8 keeps a substring of this many characters or more as a view of its whole parent string (a "sliced string"). */
const SLICE_MIN = 13;

/** A copy of `s` sharing no memory with the string it was cut from (a flattened concatenation, sliced back). */
const own = (s: string): string => (s.length < SLICE_MIN ? s : (' ' + s).slice(1));

/**
 * The outline with its names copied out of the file's text. Names are cut from the text (by tree-sitter or the
 * Python reader), and a cut of 13 characters or more keeps the whole text alive: an index held in memory (a
 * navigation, a long-lived process) would hold every parsed file's text through its outlines (the text of a
 * 1,800-file package, 13 MB, in a cold navigation's peak). Same values; only where they live changes.
 */
function detached(outline: Outline): Outline {
  for (const d of outline.defs) d.name = own(d.name);
  for (const r of outline.refs) r[0] = own(r[0]);
  if (outline.includes) outline.includes = outline.includes.map(own);
  return outline;
}

const extrasFns = new Map<string, Promise<FileExtrasFn>>();

/** Loads (once per thread) the extras function a spec names. */
export function loadExtras(spec: FileExtrasSpec): Promise<FileExtrasFn> {
  const key = `${spec.module}#${spec.export}`;
  let p = extrasFns.get(key);
  if (!p) {
    p = import(spec.module).then((m: Record<string, unknown>) => {
      const fn = m[spec.export];
      if (typeof fn !== 'function') throw new TypeError(`${spec.module} exports no function ${spec.export}`);
      return fn as FileExtrasFn;
    });
    extrasFns.set(key, p);
  }
  return p;
}
