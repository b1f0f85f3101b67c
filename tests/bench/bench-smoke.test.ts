// The bench's quick run as a smoke test: every section runs and every figure is a well-formed number.
// Never a speed threshold. It runs the compiled bench (`npm test` builds dist/ first), because some sections
// time work in fresh child processes of their own compiled files.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECTIONS } from '../../bench/run.js';
import { lineChartSvg, niceTicks, stackedChartSvg, tickLabel } from '../../bench/svg-chart.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const runJs = path.join(root, 'dist', 'bench', 'run.js');

interface FiguresFile {
  quick: boolean;
  sections: { name: string; title: string; figures: Record<string, unknown> }[];
}

describe('npm run bench -- --quick', () => {
  let dir: string;
  let results: string;
  let figures: FiguresFile;

  beforeAll(async () => {
    if (!existsSync(runJs)) throw new Error(`${runJs} is missing: build first (npx tsc -p tsconfig.json)`);
    dir = mkdtempSync(path.join(tmpdir(), 'navkernel-bench-smoke-'));
    const out = path.join(dir, 'RESULTS.md');
    const json = path.join(dir, 'figures.json');
    await promisify(execFile)(process.execPath, [runJs, '--quick', '--out', out, '--json', json], { cwd: dir, maxBuffer: 64 * 2 ** 20 });
    results = readFileSync(out, 'utf8');
    figures = JSON.parse(readFileSync(json, 'utf8')) as FiguresFile;
  }, 2_400_000); // a safety net: at load 11 on 2 cores the quick bench took over 15 min

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ran every section, in order, and wrote each into the results file', () => {
    expect(figures.quick).toBe(true);
    expect(figures.sections.map((s) => s.name)).toEqual(SECTIONS.map((s) => s.name));
    expect(results).toMatch(/^# navkernel benchmark results\n/);
    expect(results).toMatch(/- Node v\d+\.\d+\.\d+/);
    for (const s of figures.sections) expect(results).toContain(`## ${s.title}\n`);
  });

  it('reports only finite, non-negative numbers, and at least one per section', () => {
    for (const s of figures.sections) {
      const entries = Object.entries(s.figures);
      expect(entries.length, s.name).toBeGreaterThan(0);
      for (const [k, v] of entries) {
        expect(typeof v, `${s.name}.${k}`).toBe('number');
        expect(Number.isFinite(v as number) && (v as number) >= 0, `${s.name}.${k} = ${String(v)}`).toBe(true);
      }
    }
  });

  it('draws the scaling charts beside the results file, not over the committed ones', () => {
    for (const c of ['ledger', 'concurrency', 'replay', 'memory', 'navigator']) {
      const svg = readFileSync(path.join(dir, `scaling-${c}.svg`), 'utf8');
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
      expect(svg).toContain('<circle');
      expect(svg).not.toMatch(/NaN|Infinity/);
    }
    // Two panels each: routes/s over latency, and heap over RSS, with one marker per measured point.
    const scaling = figures.sections.find((s) => s.name === 'scaling')!.figures;
    const conc = readFileSync(path.join(dir, 'scaling-concurrency.svg'), 'utf8');
    expect(conc.match(/<g transform=/g)).toHaveLength(2);
    expect(conc.match(/<circle/g)).toHaveLength(2 * Object.keys(scaling).filter((k) => /^conc_\d+_jsonl_(on|off)_per_s$/.test(k)).length);
    expect(conc).toContain('>routes/s</text>');
    const mem = readFileSync(path.join(dir, 'scaling-memory.svg'), 'utf8');
    expect(mem).toContain('Heap after GC against live runs');
    expect(mem).toContain('Resident set against live runs');
    // Runs 0 (the baseline) is in the table but not on the log axis.
    expect(mem.match(/<circle/g)).toHaveLength(2 * Object.keys(scaling).filter((k) => /^live_.+_[1-9]\d*_heap_mb$/.test(k)).length);
  });

  it('measures routes/s beside latency, concurrency 1…64 with decisions.jsonl off and on, and live runs counted by the kernel', () => {
    const f = figures.sections.find((s) => s.name === 'scaling')!.figures as Record<string, number>;
    for (const c of [1, 4, 16, 64]) for (const j of ['on', 'off']) expect(f[`conc_${c}_jsonl_${j}_per_s`], `${c} ${j}`).toBeGreaterThan(0);
    expect(Object.keys(f).filter((k) => /^growth_\d+_per_s$/.test(k))).toHaveLength(3);
    // The quick run stays under maxLiveRuns: every run started is still live.
    for (const setup of ['sqlite_default', 'sqlite_unbounded', 'memory_default']) expect(f[`live_${setup}_1000_live_runs`], setup).toBe(1000);
    expect(f.live_run_heap_bytes).toBeGreaterThan(0);
    expect(results).toContain('Kernels per database');
  });
});

describe('svg-chart', () => {
  const chart = {
    title: 'Route latency & growth',
    xLabel: 'routes',
    yLabel: 'µs',
    logX: true,
    series: [
      { name: 'p50', points: [[10_000, 12.5], [100_000, 13.25], [1_000_000, 14]] as [number, number][] },
      { name: 'p99 <tail>', points: [[10_000, 80], [100_000, 95.5], [1_000_000, 101]] as [number, number][] },
    ],
  };

  it('gives the same bytes for the same data, and different bytes for different data', () => {
    expect(lineChartSvg(chart)).toBe(lineChartSvg(structuredClone(chart)));
    const moved = { ...chart, series: [chart.series[0]!, { ...chart.series[1]!, points: [[10_000, 80], [100_000, 96], [1_000_000, 101]] as [number, number][] }] };
    expect(lineChartSvg(moved)).not.toBe(lineChartSvg(chart));
  });

  it('escapes text, draws one line and one marker per point, and puts log ticks on powers of ten', () => {
    const svg = lineChartSvg(chart);
    expect(svg).toContain('Route latency &amp; growth');
    expect(svg).toContain('p99 &lt;tail&gt;');
    expect(svg.match(/<polyline/g)).toHaveLength(2);
    expect(svg.match(/<circle/g)).toHaveLength(6);
    for (const t of ['10k', '100k', '1M']) expect(svg).toContain(`>${t}</text>`);
    expect(svg).toContain('(log scale)');
  });

  it('skips points it cannot place instead of writing NaN', () => {
    const svg = lineChartSvg({ title: 't', xLabel: 'x', yLabel: 'y', logX: true, series: [{ name: 's', points: [[0, 1], [10, NaN], [100, 2], [1000, 3]] }] });
    expect(svg).not.toMatch(/NaN|Infinity/);
    expect(svg.match(/<circle/g)).toHaveLength(2);
  });

  it('stacks panels in one SVG, each with its own title, axes and points', () => {
    const routesPerSecond = { title: 'Routes/s', xLabel: 'runs in flight', yLabel: 'routes/s', logX: true, legend: 'top-left' as const, series: [{ name: 'jsonl off', points: [[1, 5000], [16, 12000], [256, 15000]] as [number, number][] }] };
    const svg = stackedChartSvg([routesPerSecond, chart], { width: 600, panelHeight: 250 });
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="600" height="500" viewBox="0 0 600 500"/);
    expect(svg.match(/<svg/g)).toHaveLength(1);
    expect(svg.match(/<g transform="translate\(0 (0|250)\)">/g)).toEqual(['<g transform="translate(0 0)">', '<g transform="translate(0 250)">']);
    expect(svg.match(/<circle/g)).toHaveLength(3 + 6);
    expect(svg.match(/<polyline/g)).toHaveLength(3);
    for (const label of ['>Routes/s</text>', '>Route latency &amp; growth</text>', '>routes/s</text>', '>µs</text>', '>15k</text>', '>100</text>']) expect(svg, label).toContain(label);
    // The top-left legend starts at the plot's left edge; the default one ends at its right edge.
    expect(svg).toContain('text-anchor="start">jsonl off</text>');
    expect(svg).toContain('text-anchor="end">p50</text>');
    expect(stackedChartSvg([routesPerSecond, chart], { width: 600, panelHeight: 250 })).toBe(svg);
  });

  it('picks round ticks and short labels', () => {
    expect(niceTicks(0, 97)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect([0, 0.5, 12.345, 1500, 2_000_000].map(tickLabel)).toEqual(['0', '0.5', '12.3', '1.5k', '2M']);
  });
});
