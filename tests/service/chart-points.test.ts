// The ledger page's cost chart data (src/service/ui/chart-points.ts) and the run page's overlay of resolved
// escalations (src/service/diagram.ts), as pure functions (issue 37.7); the browser test checks the drawn pages.
import { describe, expect, it } from 'vitest';
import { flowDiagram, runOverlay } from '../../src/service/diagram.js';
import { bucketWords, timeLabels, withEmptyBuckets } from '../../src/service/ui/chart-points.js';

describe('the cost chart', () => {
  it('puts zeros at both ends of a quiet stretch, so no line crosses it diagonally; the cumulative line stays flat', () => {
    const at = (s: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, s)).toISOString();
    const points = withEmptyBuckets(
      [
        { bucket: at(0), usd: 0.01, routes: 5 },
        { bucket: at(10), usd: 0.02, routes: 3 },
        { bucket: at(50), usd: 0.04, routes: 2 },
      ],
      10,
    );
    const t0 = Date.parse(at(0)) / 1000;
    expect(points.map((p) => [p.t - t0, p.usd, Number(p.cumulative.toFixed(2)), p.routes])).toEqual([
      [0, 0.01, 0.01, 5],
      [10, 0.02, 0.03, 3],
      [20, 0, 0.03, 0],
      [40, 0, 0.03, 0],
      [50, 0.04, 0.07, 2],
    ]);
    // A gap of exactly one empty bucket gets one zero.
    expect(withEmptyBuckets([{ bucket: at(0), usd: 1, routes: 1 }, { bucket: at(20), usd: 1, routes: 1 }], 10).map((p) => p.usd)).toEqual([1, 0, 1]);
  });

  it('names the bucket the same way for the title and the legend, and labels time ticks with the date once', () => {
    expect(bucketWords(10)).toBe('10 seconds');
    expect(bucketWords(120)).toBe('120 seconds');
    const t = Date.UTC(2026, 10, 27, 23, 59, 0) / 1000;
    expect(timeLabels([t, t + 30, t + 60])).toEqual(['2026-11-27\n23:59', '23:59:30', '2026-11-28\n00:00']);
  });
});

describe('the run overlay', () => {
  const flow = {
    flow: 'f',
    steps: [
      { id: 'a', agent: 'x', next: 'b' },
      { id: 'b', agent: 'x', branches: { OK: 'done', NO: 'other' } },
      { id: 'other', agent: 'x', terminal: true },
      { id: 'done', agent: 'x', terminal: true },
    ],
  } as Parameters<typeof flowDiagram>[0];
  const decisions = [
    { seq: 1, flow: 'f', step: 'a', decision: { decision: 'CONTINUE', next_step_id: 'b' } },
    { seq: 2, flow: 'f', step: 'b', decision: { decision: 'ESCALATE', next_step_id: null } },
    { seq: 3, flow: 'f', step: 'done', decision: { decision: 'TERMINATE', next_step_id: null } },
  ];

  it('an open escalation is red and where the run is', () => {
    const o = runOverlay('f', decisions.slice(0, 2), [{ seq: 2, flow: 'f', step: 'b' }]);
    expect(o).toMatchObject({ escalated: ['b'], resolved: [], current: 'b' });
  });

  it('a resolved one is drawn resolved, and the move the person chose is a taken edge', () => {
    const o = runOverlay('f', decisions, [{ seq: 2, flow: 'f', step: 'b', resolution: { decision: 'CONTINUE', next_step_id: 'done' } }]);
    expect(o.escalated).toEqual([]);
    expect(o.resolved).toEqual(['b']);
    expect(o.taken).toContainEqual({ from: 'b', to: 'done', kind: 'resolved: continue' });
    const d = flowDiagram(flow, o);
    const i = d.edges.findIndex((e) => e.from === 'b' && e.to === 'done');
    expect(d.edges[i]!.taken).toBe(true);
    expect(d.text).toContain(`linkStyle ${i} stroke:#d9480f`);
    expect(d.text).toContain(`class ${d.nodes.b} resolved`);
    expect(d.text).not.toContain(`class ${d.nodes.b} escalated`);
  });
});
