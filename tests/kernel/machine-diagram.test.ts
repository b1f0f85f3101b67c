import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MACHINES } from '../../machines/index.js';
import { machineMermaid } from '../../src/machine-diagram.js';
import { ROOT } from '../support/kernel-fixtures.js';

describe('machine diagrams', () => {
  for (const [name, machine] of Object.entries(MACHINES)) {
    it(`machines/${name}.machine.mmd matches the machine (run \`npm run diagrams\` after changing it)`, () => {
      expect(readFileSync(path.join(ROOT, 'machines', `${name}.machine.mmd`), 'utf8')).toBe(machineMermaid(machine));
    });
  }

  it('draws the kernel tiers as guarded transitions in order', () => {
    const lines = machineMermaid(MACHINES.kernel!).split('\n');
    expect(lines.filter((l) => l.startsWith('  idle -->'))).toEqual([
      '  idle --> idle: ROUTE [fastPathDecides]',
      '  idle --> idle: ROUTE [deterministicDecides]',
      '  idle --> arbitrating: ROUTE [arbiterAvailable]',
      '  idle --> idle: ROUTE [envelopeDecides]',
      '  idle --> idle: ROUTE',
    ]);
  });
});
