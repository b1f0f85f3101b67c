// Regenerates machines/*.mmd from the machine definitions.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { MACHINES } from '../machines/index.js';
import { machineMermaid } from '../src/machine-diagram.js';

for (const [name, machine] of Object.entries(MACHINES)) writeFileSync(path.resolve('machines', `${name}.machine.mmd`), machineMermaid(machine));
console.log(`wrote ${Object.keys(MACHINES).length} diagrams to machines/`);
