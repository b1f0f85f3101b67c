import type { NavigationOutcome } from './create-navigator.js';
import { staleContextLines } from './context-lines.js';
import { compareRuns } from './write-artifacts.js';

export { staleContextLines };

/**
 * RUNG_65537, navkernel's definition (seed 002 names the rung in its frontmatter but never defines it):
 * rung 274177 (two runs, byte-identical artifacts) plus adversarial stability —
 * 1. a paraphrased task (the same words in another order, with a polite preamble; or the caller's own
 *    paraphrases) loads the same files;
 * 2. the repository's files visited in a shuffled order load the same files;
 * 3. every line in context.md is still, byte for byte, that line of that file in the repository.
 */
export const RUNG_65537 = 65537;

export interface RungCheckEntry {
  rung: number;
  check: string;
  passed: boolean;
  detail: string;
}

export interface Rung65537Result {
  rung: 65537;
  passed: boolean;
  checks: RungCheckEntry[];
}

/**
 * A deterministic paraphrase: the task's words in reverse order after "Please look into:". Code written
 * in backticks or as a call stays one token. A ranker over the task's words must not care.
 */
export function paraphrase(task: string): string {
  const tokens = task.match(/`[^`]*`|\S+/g) ?? [];
  return `Please look into: ${tokens.map((t) => t.replace(/^[,;:!?]+|[,.;:!?]+$/g, '')).filter(Boolean).reverse().join(' ')}`;
}

const files = (o: NavigationOutcome) => o.artifacts.context_load_receipt.files_loaded.map((f) => f.path).sort();

/**
 * Runs the rung-65537 checks for a capsule already navigated once (`first`): `run(capsule, seed?)`
 * navigates again, with the files in a shuffled order when `seed` is given.
 */
export async function checkRung65537(
  first: NavigationOutcome,
  capsule: Record<string, unknown>,
  root: string,
  run: (capsule: Record<string, unknown>, fileOrderSeed?: number) => Promise<NavigationOutcome>,
  paraphrases?: string[],
): Promise<Rung65537Result> {
  const checks: RungCheckEntry[] = [];
  const add = (check: string, passed: boolean, detail: string) => checks.push({ rung: RUNG_65537, check, passed, detail });
  const again = await run(capsule);
  const stable = compareRuns(first, again);
  add('rung_274177', stable.passed, stable.passed ? 'two runs gave byte-identical artifacts' : stable.problems.join('; '));
  const want = files(first).join(', ');
  const task = String(capsule.task ?? '');
  for (const p of paraphrases?.length ? paraphrases : [paraphrase(task)]) {
    const got = files(await run({ ...capsule, task: p }));
    add('paraphrase', got.join(', ') === want, got.join(', ') === want ? `"${p}" loads the same ${got.length} files` : `"${p}" loads [${got.join(', ')}], not [${want}]`);
  }
  for (const seed of [1, 2]) {
    const got = files(await run(capsule, seed));
    add('shuffled_file_order', got.join(', ') === want, got.join(', ') === want ? `files visited in shuffled order (seed ${seed}) load the same ${got.length} files` : `shuffled order (seed ${seed}) loads [${got.join(', ')}], not [${want}]`);
  }
  const stale = staleContextLines(root, first.artifacts.context_md);
  add('lines_present', stale.length === 0, stale.length ? stale.slice(0, 5).join('; ') : 'every line in context.md is still in the repository');
  return { rung: RUNG_65537, passed: checks.every((c) => c.passed), checks };
}
