import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** One JSON document read from a stream, with the line it started on. */
export interface ReadDocument {
  line: number;
  value: unknown;
}

/** A line that is not JSON, or a document cut off at the end of the input. */
export class DocumentSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'DocumentSyntaxError';
  }
}

/**
 * Reads JSONL, or pretty-printed JSON documents one after another, yielding each document as soon as its last
 * line is read (so a co-process gets an answer per line). A document is only yielded once complete, so nothing
 * is acted on from a half-read document.
 */
export async function* readJsonDocuments(input: Readable, maxBytes = 1024 * 1024): AsyncGenerator<ReadDocument> {
  const rl = createInterface({ input, crlfDelay: Infinity });
  let buffer = '';
  let start = 0;
  let lineNo = 0;
  for await (const line of rl) {
    lineNo++;
    if (buffer === '' && line.trim() === '') continue;
    if (buffer === '') start = lineNo;
    buffer += (buffer ? '\n' : '') + line;
    if (buffer.length > maxBytes) throw new DocumentSyntaxError(start, `the document is larger than the limit of ${maxBytes} bytes`);
    try {
      const value: unknown = JSON.parse(buffer);
      buffer = '';
      yield { line: start, value };
    } catch (e) {
      const msg = (e as Error).message;
      // V8 quotes an excerpt of the input in its message: dropped (it may hold a secret).
      if (!stillOpen(buffer, msg)) throw new DocumentSyntaxError(start, `not valid JSON: ${msg.replace(/, .* is not valid JSON$/s, '')}`);
    }
  }
  if (buffer.trim() !== '') throw new DocumentSyntaxError(start, 'the input ended in the middle of a JSON document');
}

/**
 * Whether a parse failure only means the document goes on in the next line: the parser stopped at the very end
 * of the text. JSON strings cannot hold raw newlines, so an unterminated string is always an error.
 */
function stillOpen(text: string, message: string): boolean {
  if (/Unterminated string/.test(message)) return false;
  if (/end of JSON input/.test(message)) return true;
  const at = /at position (\d+)/.exec(message);
  return at !== null && Number(at[1]) >= text.trimEnd().length;
}

/** One line of a JSONL stream: its text, or why it has none (too long, not UTF-8). */
export type ReadLine =
  | { line: number; text: string }
  | { line: number; tooLarge: number }
  | { line: number; notUtf8: true };

const NL = 0x0a;

/**
 * Splits a byte stream into lines (LF or CRLF) and decodes each as strict UTF-8, never holding more than
 * `maxBytes` of one line: a longer line is skipped to its end and reported as `tooLarge`. A line is only
 * yielded once its newline is read (or at the end of the input), so a truncated line never joins the next one.
 * A byte-order mark at the start of a line is dropped. Blank lines are yielded too (the caller skips them).
 */
export async function* readLines(input: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<ReadLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
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
    try {
      return { line: lineNo, text: decoder.decode(buf) };
    } catch {
      return { line: lineNo, notUtf8: true };
    }
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
