// `npm run fuzz [-- --runs N] [--seed S]`: every fuzz surface of issue 12 at 10,000 cases (default), then 10,000
// hostile lines through a real `navkernel route` child, then URL paths and headers against a real `navkernel serve`
// (issue 35; at most 2 minutes). Prints the figures; exits 1 when a property fails.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../../src/package-root.js';
import { fuzzServe } from './http.js';
import { expectedAnswers, fuzzCoProcess, fuzzFlowFiles, fuzzRoute, sampleCoProcessLines, type FuzzFigures } from './surfaces.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : undefined;
};
const runs = arg('--runs') ?? 10_000;
const seed = arg('--seed') ?? Date.now() % 2 ** 31;

function print(f: FuzzFigures): void {
  const outcomes = Object.entries(f.outcomes).map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(`${f.surface}: ${f.cases} cases in ${(f.ms / 1000).toFixed(1)} s; untyped errors ${f.untyped}, hangs ${f.hangs}; ${outcomes}`);
}

console.log(`navkernel fuzz: ${runs} cases per surface, seed ${seed}`);
let failed = false;
for (const surface of [fuzzRoute, fuzzCoProcess, fuzzFlowFiles, fuzzServe]) {
  try {
    print(await surface(runs, seed));
  } catch (e) {
    failed = true;
    console.error(`FAILED ${surface.name}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

// The real child: every line answered, still serving at the end.
const t0 = performance.now();
const lines = sampleCoProcessLines(runs, seed, 4096);
const last = Buffer.from(JSON.stringify({ run_id: 'alive', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' }));
const all = [...lines, last];
const root = packageRoot();
const r = spawnSync(process.execPath, [path.join(root, 'bin', 'navkernel.js'), 'route', '--no-ledger', '--max-bytes', '4096'], { cwd: root, input: Buffer.concat(all.flatMap((l) => [l, Buffer.from('\n')])), maxBuffer: 1024 * 1024 * 1024, timeout: 300_000 });
const answers = r.stdout.toString().trim().split('\n');
const expected = expectedAnswers(all, 4096).length;
const alive = answers.length > 0 && (JSON.parse(answers[answers.length - 1]!) as { run_id?: string }).run_id === 'alive';
console.log(`co-process child: ${all.length} lines, ${answers.length} answers (expected ${expected}), still serving at the end: ${alive}, exit ${r.status}, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
if (answers.length !== expected || !alive || r.signal) failed = true;
process.exitCode = failed ? 1 : 0;
