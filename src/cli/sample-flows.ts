import { existsSync } from 'node:fs';
import { sampleChartersDir } from '../package-root.js';

/**
 * `serve`, `report` and `diagram` read runs that `demo` may have routed on the sample flows: with the default
 * `--flows charters` and no ./charters folder here, they use the sample flows shipped with navkernel (and say so).
 */
export function flowsOrSample(flows: string): string {
  if (flows !== 'charters' || existsSync('charters')) return flows;
  process.stderr.write(`navkernel: no ./charters folder here: using the sample flows (${sampleChartersDir()}); pass --flows DIR for yours\n`);
  return sampleChartersDir();
}
