// A tiny dependency-free SVG line chart. Same data → same bytes: fixed number formatting, no ids, no dates.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface ChartSeries {
  name: string;
  /** [x, y] points, drawn in the given order. */
  points: readonly (readonly [number, number])[];
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly ChartSeries[];
  /** Logarithmic x axis (base 10); every x must be > 0. */
  logX?: boolean;
  /** Where the legend goes, inside the plot (default top right; top left suits curves that rise to the right). */
  legend?: 'top-right' | 'top-left';
  width?: number;
  height?: number;
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];
const M = { left: 72, right: 24, top: 40, bottom: 56 };

const num = (n: number): string => (Math.round(n * 100) / 100).toFixed(2).replace(/\.?0+$/, '');

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Tick label: 1,000 → 1k, 1,000,000 → 1M, small numbers with up to 3 significant digits. */
export function tickLabel(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (a >= 1e3) return `${+(v / 1e3).toPrecision(3)}k`;
  if (a === 0) return '0';
  return `${+v.toPrecision(3)}`;
}

/** About `count` round ticks from the first multiple of the step at or below `lo` to the first at or above `hi` (1, 2, 5 × 10^k steps). */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw * (1 - 1e-12)) ?? 10 * mag;
  const out: number[] = [];
  for (let k = Math.floor(lo / step + 1e-9), end = Math.ceil(hi / step - 1e-9); k <= end; k++) out.push(+(k * step).toPrecision(12));
  return out;
}

/** The SVG text of a line chart. y starts at 0; x is linear or log10. */
export function lineChartSvg(c: LineChart): string {
  const W = c.width ?? 640;
  const H = c.height ?? 360;
  return [svgOpen(W, H), ...chartElements(c, W, H), '</svg>'].join('\n') + '\n';
}

/**
 * Several line charts stacked in one SVG, one under the other, each with its own y axis (e.g. routes/s above and
 * p99 below, against the same x). Each panel is `width` × `panelHeight`.
 */
export function stackedChartSvg(panels: readonly LineChart[], opts: { width?: number; panelHeight?: number } = {}): string {
  const W = opts.width ?? 640;
  const PH = opts.panelHeight ?? 300;
  const out = [svgOpen(W, PH * panels.length)];
  panels.forEach((c, i) => out.push(`<g transform="translate(0 ${i * PH})">`, ...chartElements(c, W, PH), '</g>'));
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function svgOpen(W: number, H: number): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`;
}

/** A chart's elements in a W × H box at the origin. */
function chartElements(c: LineChart, W: number, H: number): string[] {
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const pts = c.series.flatMap((s) => s.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!c.logX || x > 0));
  const xs = pts.map(([x]) => (c.logX ? Math.log10(x) : x));
  let x0 = xs.length ? Math.min(...xs) : 0;
  let x1 = xs.length ? Math.max(...xs) : 1;
  if (x1 === x0) (x0 -= 0.5), (x1 += 0.5);
  const yMax = Math.max(0, ...pts.map(([, y]) => y));
  const yTicks = niceTicks(0, yMax > 0 ? yMax : 1);
  const y1 = Math.max(yTicks[yTicks.length - 1]!, yMax > 0 ? yMax : 1);
  const sx = (x: number) => M.left + ((((c.logX ? Math.log10(x) : x) - x0) / (x1 - x0)) * pw);
  const sy = (y: number) => M.top + ph - (y / y1) * ph;
  const xTicks = c.logX
    ? Array.from({ length: Math.floor(x1) - Math.ceil(x0) + 1 }, (_, i) => 10 ** (Math.ceil(x0) + i))
    : niceTicks(x0, x1).filter((t) => t >= x0 && t <= x1);

  const out: string[] = [
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${num(W / 2)}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(c.title)}</text>`,
  ];
  for (const t of yTicks) {
    out.push(`<line x1="${M.left}" y1="${num(sy(t))}" x2="${W - M.right}" y2="${num(sy(t))}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${M.left - 6}" y="${num(sy(t) + 4)}" text-anchor="end">${esc(tickLabel(t))}</text>`);
  }
  for (const t of xTicks) {
    out.push(`<line x1="${num(sx(t))}" y1="${M.top + ph}" x2="${num(sx(t))}" y2="${M.top + ph + 5}" stroke="#333"/>`);
    out.push(`<text x="${num(sx(t))}" y="${M.top + ph + 18}" text-anchor="middle">${esc(tickLabel(t))}</text>`);
  }
  out.push(`<line x1="${M.left}" y1="${M.top + ph}" x2="${W - M.right}" y2="${M.top + ph}" stroke="#333"/>`);
  out.push(`<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${M.top + ph}" stroke="#333"/>`);
  out.push(`<text x="${num(M.left + pw / 2)}" y="${H - 12}" text-anchor="middle">${esc(c.xLabel)}${c.logX ? ' (log scale)' : ''}</text>`);
  out.push(`<text x="16" y="${num(M.top + ph / 2)}" text-anchor="middle" transform="rotate(-90 16 ${num(M.top + ph / 2)})">${esc(c.yLabel)}</text>`);
  c.series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const p = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!c.logX || x > 0));
    if (p.length > 1) out.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${p.map(([x, y]) => `${num(sx(x))},${num(sy(y))}`).join(' ')}"/>`);
    for (const [x, y] of p) out.push(`<circle cx="${num(sx(x))}" cy="${num(sy(y))}" r="3" fill="${colour}"/>`);
    const ly = M.top + 6 + i * 16;
    if (c.legend === 'top-left') {
      out.push(`<line x1="${M.left + 10}" y1="${ly}" x2="${M.left + 28}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`);
      out.push(`<text x="${M.left + 34}" y="${ly + 4}" text-anchor="start">${esc(s.name)}</text>`);
    } else {
      out.push(`<line x1="${W - M.right - 24}" y1="${ly}" x2="${W - M.right - 6}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`);
      out.push(`<text x="${W - M.right - 30}" y="${ly + 4}" text-anchor="end">${esc(s.name)}</text>`);
    }
  });
  return out;
}

/** Writes the chart to `file`. */
export function writeLineChart(file: string, chart: LineChart): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, lineChartSvg(chart));
}

/** Writes stacked charts (stackedChartSvg) to `file`. */
export function writeStackedChart(file: string, panels: readonly LineChart[], opts?: { width?: number; panelHeight?: number }): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, stackedChartSvg(panels, opts));
}
