import { createHash } from 'node:crypto';

/** A file's lines as the navigator numbers them: split at `\n`, a final newline ends the last line. */
export function fileLines(content: string): string[] {
  const lines = content.split('\n');
  if (content.endsWith('\n')) lines.pop();
  return lines;
}

/** Ascending 1-based line numbers as runs of consecutive lines, `[first, last]` inclusive. */
export function lineRanges(sorted: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const l of sorted) {
    const last = out[out.length - 1];
    if (last && l === last[1] + 1) last[1] = l;
    else out.push([l, l]);
  }
  return out;
}

/**
 * sha256 of the lines `first..last` (1-based, inclusive) of `lines`, joined with `\n`: the file's own
 * text of the range, unclipped. `navigate --check` recomputes it from the file to prove the range still
 * reads the same. Undefined when the range is not inside the file.
 */
export function rangeSha256(lines: readonly string[], [first, last]: readonly [number, number]): string | undefined {
  if (!Number.isInteger(first) || !Number.isInteger(last) || first < 1 || last < first || last > lines.length) return undefined;
  return createHash('sha256').update(lines.slice(first - 1, last).join('\n')).digest('hex');
}
