import { Transform, type Readable } from 'node:stream';

/**
 * Passes stdin on to the MCP transport line by line, dropping any line longer than `maxBytes` (and calling
 * `onOversize` with its size) instead of handing it over: the SDK's stdio transport closes itself, and so stops
 * the server, when one message outgrows its buffer. Each complete line is offered to `keep` (when given), which
 * may answer it itself and drop it by returning false. Every other byte passes unchanged, in order.
 */
export function guardLines(input: Readable, maxBytes: number, onOversize: (bytes: number) => void, keep: (line: Buffer) => boolean = () => true): Readable {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let dropping = false;
  const guard = new Transform({
    transform(chunk: Buffer, _enc, done) {
      let start = 0;
      for (let nl = chunk.indexOf(10, start); start < chunk.length; nl = chunk.indexOf(10, start)) {
        const end = nl === -1 ? chunk.length : nl + 1;
        const part = chunk.subarray(start, end);
        heldBytes += part.length;
        if (!dropping && heldBytes > maxBytes) {
          dropping = true;
          held = [];
        }
        if (!dropping) held.push(part);
        if (nl !== -1) {
          if (dropping) onOversize(heldBytes);
          else {
            const line = Buffer.concat(held);
            if (keep(line)) this.push(line);
          }
          held = [];
          heldBytes = 0;
          dropping = false;
        }
        start = end;
      }
      done();
    },
    flush(done) {
      if (!dropping && held.length) {
        const line = Buffer.concat(held);
        if (keep(line)) this.push(line);
      }
      done();
    },
  });
  return input.pipe(guard);
}
