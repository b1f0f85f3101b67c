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
export async function* readJsonDocuments(input: Readable): AsyncGenerator<ReadDocument> {
  const rl = createInterface({ input, crlfDelay: Infinity });
  let buffer = '';
  let start = 0;
  let lineNo = 0;
  for await (const line of rl) {
    lineNo++;
    if (buffer === '' && line.trim() === '') continue;
    if (buffer === '') start = lineNo;
    buffer += (buffer ? '\n' : '') + line;
    try {
      const value: unknown = JSON.parse(buffer);
      buffer = '';
      yield { line: start, value };
    } catch (e) {
      const msg = (e as Error).message;
      if (!stillOpen(buffer, msg)) throw new DocumentSyntaxError(start, `not valid JSON: ${msg}`);
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
