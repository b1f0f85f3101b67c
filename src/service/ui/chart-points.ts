// The ledger page's cost chart, its data and words: pure functions (no DOM, no uPlot), tested on their own.

/** A bucket's length in words, the same in the chart's title and its legend. */
export function bucketWords(seconds: number): string {
  return ({ 1: 'second', 10: '10 seconds', 60: 'minute', 300: '5 minutes', 3600: 'hour', 86400: 'day' } as Record<number, string>)[seconds] ?? `${seconds} seconds`;
}

/**
 * The chart's points: the server lists only buckets with routes, so a quiet stretch would be drawn as a diagonal
 * from one busy bucket to the next. Each gap gets a zero at its first and last empty bucket (the cumulative line
 * stays flat across it).
 */
export function withEmptyBuckets(buckets: { bucket: string; usd: number; routes: number }[], step: number): { t: number; usd: number; cumulative: number; routes: number }[] {
  const out: { t: number; usd: number; cumulative: number; routes: number }[] = [];
  let cumulative = 0;
  for (const b of buckets) {
    const t = Date.parse(b.bucket) / 1000;
    const prev = out[out.length - 1];
    if (prev && t - prev.t > step) {
      out.push({ t: prev.t + step, usd: 0, cumulative, routes: 0 });
      if (t - step > prev.t + step) out.push({ t: t - step, usd: 0, cumulative, routes: 0 });
    }
    cumulative += b.usd;
    out.push({ t, usd: b.usd, cumulative, routes: b.routes });
  }
  return out;
}

/** Time-axis labels: the time of day (UTC), with the date where it changes. */
export function timeLabels(ticks: number[]): string[] {
  let lastDay = '';
  return ticks.map((t) => {
    const iso = new Date(t * 1000).toISOString();
    const day = iso.slice(0, 10);
    const time = iso.slice(11, 19).replace(/:00$/, '');
    const label = day !== lastDay ? `${day}\n${time}` : time;
    lastDay = day;
    return label;
  });
}
