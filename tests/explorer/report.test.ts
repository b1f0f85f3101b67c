import { describe, expect, it } from 'vitest';
import { excludedAreas, formatTurnReport, parseUserLine, progressLine } from '../../src/explorer/index.js';
import type { MapFile } from '../../src/repomap/index.js';
import type { TurnReport } from '../../src/contracts/index.js';

const file = (path: string, level: 0 | 1 | 2 | 3 | 4, tokens = 10): MapFile => ({ path, level, wanted_level: level, tokens, lines_read: 0, rank: 1, score: 1, matched_tokens: 0, captures: 0 });

const report: TurnReport = {
  step_number: 3,
  timestamp: '2025-12-31T10:35:00.000Z',
  cost_this_turn: 0.0012,
  total_cost: 0.0036,
  budget_remaining: 1.9964,
  budget_percentage: 0.18,
  map_size_tokens: 15200,
  token_budget: 20000,
  token_utilization: 76,
  file_count: 47,
  focus_areas: [{ path: 'src/auth/login.ts', verbosity_level: 4, token_contribution: 8500 }],
  excluded_areas: ['tests/'],
  last_action: 'Updated flight plan: src/auth/** to L4',
  reasoning: 'The user wants to understand authentication. '.repeat(4),
  is_complete: false,
  completion_reason: null,
};

describe('turn report rendering', () => {
  it('the compact box: cost, size, focus, action, reasoning wrapped inside the frame', () => {
    const text = formatTurnReport(report);
    const lines = text.trimEnd().split('\n');
    expect(new Set(lines.map((l) => [...l].length))).toEqual(new Set([75]));
    expect(text).toContain('TURN REPORT - Step 3');
    expect(text).toContain('Cost:  $0.0012 this turn | $0.0036 total (0.2% of $2.0000)');
    expect(text).toContain('Size:  15,200 tokens (76% of 20,000) | 47 files');
    expect(text).toContain('Focus: src/auth/login.ts (L4)');
    expect(text).toContain('Excluded: tests/');
    expect(lines.filter((l) => l.includes('authentication')).length).toBeGreaterThan(1);
  });

  it('a progress line per step', () => {
    expect(progressLine(report)).toBe('Step 3: Updated flight plan: src/auth/** to L4\n  → 15,200 tokens (76% of 20,000) | 47 files | $0.0036 spent\n');
  });

  it('excluded areas collapse to the highest fully excluded directory', () => {
    const files = [file('src/a.ts', 2), file('src/gen/x.ts', 0), file('src/gen/y.ts', 0), file('tests/a.test.ts', 0), file('tests/b.test.ts', 0), file('README.md', 0)];
    expect(excludedAreas(files)).toEqual(['README.md', 'src/gen/', 'tests/']);
  });
});

describe('interactive answers', () => {
  it.each([
    ['y', { kind: 'continue' }],
    ['continue', { kind: 'continue' }],
    ['', { kind: 'finalize' }],
    ['N', { kind: 'finalize' }],
    ['q', { kind: 'abort' }],
    ['tokens 30000', { kind: 'set_tokens', tokens: 30000 }],
    ['t 12,000', { kind: 'set_tokens', tokens: 12000 }],
    ['usd 0.5', { kind: 'set_usd', usd: 0.5 }],
    ['$1.25', { kind: 'set_usd', usd: 1.25 }],
    ['show', { kind: 'show' }],
    ['plan', { kind: 'plan' }],
  ])('%j → %j', (line, cmd) => {
    expect(parseUserLine(line)).toEqual(cmd);
  });

  it.each(['tokens 0', 'usd 0', 'maybe'])('%j is refused with a message', (line) => {
    expect(parseUserLine(line).kind).toBe('invalid');
  });
});
