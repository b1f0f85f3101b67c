/** Percentile (0-100) of sorted-or-not samples, nearest-rank. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** A markdown table from a header row and body rows. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)));
  return [`| ${header.join(' | ')} |`, `| ${header.map((h, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`, ...cells.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** Numbers printed with sensible precision: integers grouped, small numbers to 2-3 significant digits. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US');
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 10) return n.toFixed(1);
  if (Math.abs(n) >= 1) return n.toFixed(2);
  return n.toPrecision(2);
}

/** Per-call latencies (µs) and overall throughput of an async operation run `n` times. */
export async function measure(n: number, op: (i: number) => Promise<unknown> | unknown): Promise<{ perSecond: number; p50: number; p99: number; totalMs: number }> {
  const lat = new Float64Array(n);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const s = process.hrtime.bigint();
    await op(i);
    lat[i] = Number(process.hrtime.bigint() - s) / 1000;
  }
  const totalMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const samples = Array.from(lat);
  return { perSecond: (n / totalMs) * 1000, p50: percentile(samples, 50), p99: percentile(samples, 99), totalMs };
}

/** A bench section: a title and its markdown body. */
export interface BenchSection {
  title: string;
  body: string;
  /** Machine-readable figures, checked for well-formedness by the smoke test. */
  figures: Record<string, number>;
}
