/** A file of the navigator's context and the 1-based, inclusive line ranges of it that the context shows. */
export interface ContextFileRanges {
  path: string;
  ranges: [start: number, end: number][];
}

/**
 * The line ranges each file's section of context.md shows: a section headed `==> PATH [Ln, N lines; M shown] <==`
 * lists its lines as `12│text` (runs of numbered lines make a range); a section without "shown" is the whole file.
 */
export function contextRanges(contextMd: string): ContextFileRanges[] {
  const out: ContextFileRanges[] = [];
  for (const block of contextMd.split(/^==> /m).slice(1)) {
    const head = /^(.+?) \[L\d, (\d+) lines(; \d+ shown)?[^\]]*\] <==\n/.exec(block);
    if (!head) continue;
    const total = Number(head[2]);
    if (!head[3]) {
      out.push({ path: head[1]!, ranges: total > 0 ? [[1, total]] : [] });
      continue;
    }
    const ranges: [number, number][] = [];
    for (const line of block.slice(head[0].length).split('\n')) {
      const m = /^(\d+)│/.exec(line);
      if (!m) continue;
      const n = Number(m[1]);
      const last = ranges.at(-1);
      if (last && n === last[1] + 1) last[1] = n;
      else ranges.push([n, n]);
    }
    out.push({ path: head[1]!, ranges });
  }
  return out;
}
