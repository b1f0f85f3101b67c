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

  it('draws the refusal, then the kernel tiers, as guarded transitions in order, each going on, to a person or to the end', () => {
    const lines = machineMermaid(MACHINES.kernel!).split('\n');
    expect(lines.filter((l) => l.startsWith('    idle -->'))).toEqual([
      '    idle --> idle: ROUTE [reportsAnotherStep]',
      '    idle --> idle: ROUTE [fastPathGoesOn]',
      '    idle --> ended: ROUTE [fastPathEnds]',
      '    idle --> awaitingPerson: ROUTE [fastPathEscalates]',
      '    idle --> idle: ROUTE [deterministicGoesOn]',
      '    idle --> ended: ROUTE [deterministicEnds]',
      '    idle --> awaitingPerson: ROUTE [deterministicEscalates]',
      '    idle --> arbitrating: ROUTE [arbiterAvailable]',
      '    idle --> idle: ROUTE [envelopeGoesOn]',
      '    idle --> ended: ROUTE [envelopeEnds]',
      '    idle --> awaitingPerson: ROUTE [envelopeEscalates]',
      '    idle --> awaitingPerson: ROUTE',
    ]);
  });

  it('draws what a run is: routing, awaiting a person, ended, and the refusals of the last two', () => {
    const lines = machineMermaid(MACHINES.kernel!).split('\n');
    expect(lines).toContain('  state routing {');
    expect(lines).toContain('  awaitingPerson --> routing: RESOLVED');
    expect(lines).toContain('  awaitingPerson --> ended: RESOLVED [resolutionEnds]');
    expect(lines).toContain('  awaitingPerson --> awaitingPerson: ROUTE');
    expect(lines).toContain('  ended --> ended: ROUTE');
  });
});
