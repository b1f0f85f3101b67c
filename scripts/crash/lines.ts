import type { Readable } from 'node:stream';

/**
 * Calls `fn` with each complete line a child writes to `stream` (newline not included). A line cut off by the
 * child's death is never delivered: for a co-process, only a finished line is an answer.
 */
export function onLines(stream: Readable, fn: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      fn(line);
    }
  });
}
