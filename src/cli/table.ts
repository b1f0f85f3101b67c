import { inLine } from './terminal-text.js';

/**
 * Rows as aligned text columns: each column as wide as its widest cell (so long step ids never break the
 * alignment), numbers right-aligned by naming their columns in `right`, two spaces between columns.
 */
export function alignColumns(raw: readonly (readonly string[])[], { right = [], indent = '' }: { right?: readonly number[]; indent?: string } = {}): string[] {
  // A cell is one line: its control characters (a line break in a reason, an escape sequence in a run id) shown escaped.
  const rows = raw.map((row) => row.map(inLine));
  const widths: number[] = [];
  for (const row of rows) row.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, [...c].length)));
  // padStart/padEnd count UTF-16 units; widths count characters: pad by the difference.
  const pad = (c: string, i: number) => ' '.repeat(widths[i]! - [...c].length);
  return rows.map((row) => indent + row.map((c, i) => (right.includes(i) ? pad(c, i) + c : i === row.length - 1 ? c : c + pad(c, i))).join('  ').trimEnd());
}
