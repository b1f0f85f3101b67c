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
import { lineChartSvg, niceTicks, tickLabel } from '../../bench/svg-chart.js';

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
  }, 900_000);

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
    for (const c of ['ledger', 'replay', 'navigator']) {
      const svg = readFileSync(path.join(dir, `scaling-${c}.svg`), 'utf8');
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
      expect(svg).toContain('<circle');
      expect(svg).not.toMatch(/NaN|Infinity/);
    }
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

  it('picks round ticks and short labels', () => {
    expect(niceTicks(0, 97)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect([0, 0.5, 12.345, 1500, 2_000_000].map(tickLabel)).toEqual(['0', '0.5', '12.3', '1.5k', '2M']);
  });
});
