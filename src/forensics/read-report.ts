import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { ReportError } from './report-error.js';

/** How much of a report is read at once (and what format detection looks at). */
export const CHUNK_BYTES = 64 * 1024;
/** The longest line kept whole by {@link reportLines}; the rest of a longer line is skipped, not held. */
export const MAX_LINE_CHARS = 64 * 1024;

/** Size and existence checked before anything is read: a report larger than `maxBytes` is refused unread. */
export async function checkReportFile(file: string, maxBytes: number): Promise<number> {
  const st = await stat(file).catch((e: NodeJS.ErrnoException) => {
    throw new ReportError(file, e.code === 'ENOENT' ? 'not_found' : 'unreadable', e.code === 'ENOENT' ? 'no such file' : `cannot read: ${e.code ?? e.message}`);
  });
  if (!st.isFile()) throw new ReportError(file, 'not_a_file', 'not a regular file');
  if (st.size > maxBytes) throw new ReportError(file, 'too_large', `the report is ${st.size} bytes, larger than the limit of ${maxBytes} bytes`);
  return st.size;
}

/** The first bytes of a report as text (a leading BOM dropped), for format detection. */
export async function readHead(file: string, bytes = 4096): Promise<string> {
  const fh = await open(file, 'r').catch((e: NodeJS.ErrnoException) => {
    throw new ReportError(file, 'unreadable', `cannot open: ${e.code ?? e.message}`);
  });
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return stripBom(new StringDecoder('utf8').write(buf.subarray(0, bytesRead)));
  } finally {
    await fh.close();
  }
}

const stripBom = (s: string) => (s.charCodeAt(0) === 0xfeff ? s.slice(1) : s);

/** The report as decoded text chunks, streamed (never held whole), a leading BOM dropped. */
export async function* reportChunks(file: string, signal?: AbortSignal): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let first = true;
  const stream = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  try {
    for await (const buf of stream as AsyncIterable<Buffer>) {
      // Aborted (the request timed out): stop reading; the reason propagates, not an `unreadable` report.
      if (signal?.aborted) break;
      let text = decoder.write(buf);
      if (first && text) (text = stripBom(text)), (first = false);
      if (text) yield text;
    }
  } catch (e) {
    throw new ReportError(file, 'unreadable', `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  } finally {
    stream.destroy();
  }
  signal?.throwIfAborted();
  const rest = decoder.end();
  if (rest) yield rest;
}

/**
 * Lines of text chunks (LF or CRLF), in batches (one per chunk: an await per line would cost more than the
 * reading), each line cut to {@link MAX_LINE_CHARS}: memory stays bounded by a chunk and the longest kept line.
 */
export async function* linesOf(chunks: AsyncIterable<string>): AsyncGenerator<string[]> {
  let pending = '';
  let skipping = false;
  const end = (l: string) => (l.endsWith('\r') ? l.slice(0, -1) : l);
  for await (const chunk of chunks) {
    const batch: string[] = [];
    let at = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', at);
      if (nl < 0) {
        if (!skipping) {
          pending += chunk.slice(at);
          if (pending.length > MAX_LINE_CHARS) (pending = pending.slice(0, MAX_LINE_CHARS)), (skipping = true);
        }
        break;
      }
      if (pending || skipping) {
        if (!skipping) pending += chunk.slice(at, nl);
        batch.push(end(pending.slice(0, MAX_LINE_CHARS)));
        pending = '';
        skipping = false;
      } else batch.push(end(nl - at > MAX_LINE_CHARS ? chunk.slice(at, at + MAX_LINE_CHARS) : chunk.slice(at, nl)));
      at = nl + 1;
    }
    if (batch.length) yield batch;
  }
  if (pending) yield [end(pending)];
}

/** A whole (JSON) report as text: only for formats that cannot be streamed, and within their own smaller limit. */
export async function readWhole(file: string, signal?: AbortSignal): Promise<string> {
  let out = '';
  for await (const c of reportChunks(file, signal)) out += c;
  return out;
}
