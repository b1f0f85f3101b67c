import type { Readable } from 'node:stream';
import { NOT_UTF8, decodeUtf8, idsFromBytes } from '../contracts/request-input.js';

/** One JSON document read from a stream, with the line it started on. */
export interface ReadDocument {
  line: number;
  value: unknown;
}

/** A document that is not JSON (or not UTF-8), too large, or cut off at the end of the input. */
export class DocumentSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'DocumentSyntaxError';
  }
}

// Bytes the framing scanner looks at. Every one is ASCII, and no byte of a multi-byte UTF-8 character is below
// 0x80, so the scanner works on raw bytes: a character (or an escape) cut across chunks needs no special care.
const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;
const SPACE = 0x20;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

// Where the scanner is between two bytes.
/** Between documents (whitespace). */
const BETWEEN = 0;
/** Inside an object or array, outside any string. */
const CONTAINER = 1;
/** Inside a string (of a container, or a top-level string). */
const STRING = 2;
/** Just after a backslash inside a string. */
const ESCAPE = 3;
/** Inside a top-level number, `true`/`false`/`null` (or garbage): it ends at whitespace, a bracket or a quote. */
const SCALAR = 4;

/**
 * Reads JSONL, or pretty-printed JSON documents one after another (several on a line, or one over many lines),
 * yielding each document as soon as its last byte is read (so a co-process gets an answer per document).
 *
 * The framing is a small state machine over the bytes: string and escape state, and the depth of `{}`/`[]`. It
 * tells where each top-level value ends without parsing it; each framed document is then decoded as strict
 * UTF-8 and given to `JSON.parse` once. Nothing depends on the wording of V8's error messages. A document is
 * only yielded once complete, so nothing is acted on from a half-read one; the first error ends the reading
 * (thrown as a {@link DocumentSyntaxError} naming the line the document started on), since after a syntax error
 * the framing is lost. A document longer than `maxBytes` is refused as soon as the limit is passed, not held.
 * Error messages never quote an excerpt of the input (it may hold secrets). A byte-order mark between documents
 * is ignored.
 */
export async function* readJsonDocuments(input: Readable | AsyncIterable<Buffer | Uint8Array | string>, maxBytes = 1024 * 1024): AsyncGenerator<ReadDocument> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let at = BETWEEN;
  let depth = 0;
  let inContainer = false; // whether the current string is inside a container (else a top-level string)
  let lineNo = 1;
  let start = 0; // line the current document started on
  let parts: Uint8Array[] = []; // bytes of the current document from earlier chunks
  let held = 0;

  const tooLarge = () => new DocumentSyntaxError(start, `the document is larger than the limit of ${maxBytes} bytes`);
  /** The current document, its last piece being `tail`: decoded and parsed (or the reason it is not JSON). */
  const frame = (tail: Uint8Array): ReadDocument | undefined => {
    const size = held + tail.length;
    if (size > maxBytes) throw tooLarge();
    const bytes = parts.length === 0 ? tail : Buffer.concat([...parts, tail], size);
    parts = [];
    held = 0;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      throw new DocumentSyntaxError(start, NOT_UTF8);
    }
    if (text === '') return undefined; // a byte-order mark alone
    try {
      return { line: start, value: JSON.parse(text) as unknown };
    } catch (e) {
      // V8 quotes an excerpt of the input in its message: dropped (it may hold a secret).
      throw new DocumentSyntaxError(start, `not valid JSON: ${(e as Error).message.replace(/, .* is not valid JSON$/s, '')}`);
    }
  };

  for await (const chunk of input) {
    const buf: Uint8Array = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Uint8Array);
    const n = buf.length;
    let from = 0; // where the current document starts in this chunk (when one is open)
    let i = 0;
    while (i < n) {
      const b = buf[i]!;
      switch (at) {
        case BETWEEN:
          if (b === LF) lineNo++;
          else if (b === SPACE || b === TAB || b === CR) {
            // whitespace between documents
          } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
            throw new DocumentSyntaxError(lineNo, `not valid JSON: '${String.fromCharCode(b)}' closes nothing (no object or array is open)`);
          } else {
            start = lineNo;
            from = i;
            if (b === OPEN_BRACE || b === OPEN_BRACKET) {
              at = CONTAINER;
              depth = 1;
            } else if (b === QUOTE) {
              at = STRING;
              inContainer = false;
            } else at = SCALAR;
          }
          i++;
          break;
        case CONTAINER:
          // The common bytes first: keep the loop tight.
          for (; i < n; i++) {
            const c = buf[i]!;
            if (c === QUOTE) {
              at = STRING;
              inContainer = true;
              i++;
              break;
            } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
            else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
              if (--depth === 0) {
                at = BETWEEN;
                i++;
                const doc = frame(buf.subarray(from, i));
                if (doc) yield doc;
                break;
              }
            } else if (c === LF) lineNo++;
          }
          break;
        case STRING:
          for (; i < n; i++) {
            const c = buf[i]!;
            if (c === QUOTE) {
              i++;
              if (inContainer) at = CONTAINER;
              else {
                at = BETWEEN;
                const doc = frame(buf.subarray(from, i));
                if (doc) yield doc;
              }
              break;
            } else if (c === BACKSLASH) {
              at = ESCAPE;
              i++;
              break;
            } else if (c === LF) {
              // A JSON string cannot hold a raw newline: the document is broken here, no need to read on.
              throw new DocumentSyntaxError(start, `not valid JSON: a string is not closed at the end of line ${lineNo}`);
            }
          }
          break;
        case ESCAPE:
          // The escaped byte is taken as is (JSON.parse checks it); a raw newline is still the end of the line.
          if (b === LF) throw new DocumentSyntaxError(start, `not valid JSON: a string is not closed at the end of line ${lineNo}`);
          at = STRING;
          i++;
          break;
        case SCALAR:
          if (b === LF || b === SPACE || b === TAB || b === CR || b === OPEN_BRACE || b === OPEN_BRACKET || b === CLOSE_BRACE || b === CLOSE_BRACKET || b === QUOTE) {
            // The scalar ends before this byte, which is looked at again between documents.
            at = BETWEEN;
            const doc = frame(buf.subarray(from, i));
            if (doc) yield doc;
          } else i++;
          break;
      }
    }
    if (at !== BETWEEN) {
      // The document goes on in the next chunk: keep what this chunk holds of it, up to the limit.
      const piece = buf.subarray(from);
      if (held + piece.length > maxBytes) throw tooLarge();
      parts.push(piece);
      held += piece.length;
    }
  }
  if (at === SCALAR) {
    const doc = frame(new Uint8Array(0));
    if (doc) yield doc;
  } else if (at !== BETWEEN) throw new DocumentSyntaxError(start, 'the input ended in the middle of a JSON document');
}

/** One line of a JSONL stream: its text, or why it has none (too long, not UTF-8). */
export type ReadLine =
  | { line: number; text: string }
  | { line: number; tooLarge: number }
  | { line: number; notUtf8: true; ids?: Record<string, string> };

const NL = 0x0a;

/**
 * Splits a byte stream into lines (LF or CRLF) and decodes each as strict UTF-8, never holding more than
 * `maxBytes` of one line: a longer line is skipped to its end and reported as `tooLarge`. A line is only
 * yielded once its newline is read (or at the end of the input), so a truncated line never joins the next one.
 * A byte-order mark at the start of a line is dropped. Blank lines are yielded too (the caller skips them).
 */
export async function* readLines(input: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<ReadLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let skipped = -1; // bytes of an over-long line being skipped, or -1
  let lineNo = 0;
  const finish = (): ReadLine => {
    lineNo++;
    if (skipped >= 0) {
      const n = skipped;
      skipped = -1;
      return { line: lineNo, tooLarge: n };
    }
    let buf = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    if (buf.length && buf[buf.length - 1] === 0x0d) buf = buf.subarray(0, buf.length - 1);
    // The input rule every transport shares (src/contracts/request-input.ts); the ids are still echoed when readable.
    const text = decodeUtf8(buf);
    if (text !== undefined) return { line: lineNo, text };
    const ids = idsFromBytes(buf);
    return ids ? { line: lineNo, notUtf8: true, ids } : { line: lineNo, notUtf8: true };
  };
  for await (const chunk of input) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (;;) {
      const nl = buf.indexOf(NL);
      const piece = nl < 0 ? buf : buf.subarray(0, nl);
      if (skipped >= 0) skipped += piece.length;
      else if (size + piece.length > maxBytes) {
        skipped = size + piece.length;
        parts = [];
        size = 0;
      } else if (piece.length) {
        parts.push(piece);
        size += piece.length;
      }
      if (nl < 0) break;
      yield finish();
      buf = buf.subarray(nl + 1);
    }
  }
  if (size > 0 || skipped >= 0) yield finish();
}
