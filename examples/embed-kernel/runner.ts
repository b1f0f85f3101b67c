// A flow runner in TypeScript that embeds the kernel: it runs the sample `build` flow with simulated agents and
// lets navkernel decide every move, recording each decision in a SQLite ledger.
//
//   npx tsc -p examples/tsconfig.json && node dist-examples/embed-kernel/runner.js [LEDGER_FILE]
//
// In your own project the imports are the same: `npm install navkernel`, then import from 'navkernel' (the kernel,
// the ledgers, audit/replay/resolve: docs/api.md), or from 'navkernel/kernel' for the kernel alone.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditRun, createKernel, loadFlows, openLedger, type Decision, type RouteRequest } from 'navkernel';

const charters = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'charters');
const ledgerFile = process.argv[2] ?? path.join(mkdtempSync(path.join(tmpdir(), 'navkernel-example-')), 'ledger.sqlite');

/** Pretends to run the agent of a step: what a runner reports is measurements, not prose. */
function runAgent(step: string, attempt: number): Pick<RouteRequest, 'status' | 'forensics'> {
  if (step === 'build-step-3') {
    const failed = Math.max(0, 2 - (attempt - 1)); // the implementer's tests pass on the third try
    return { status: failed ? 'UNVERIFIED' : 'VERIFIED', forensics: { tests: { passed: 40 + 2 - failed, failed } } };
  }
  if (step === 'build-review') return { status: 'APPROVED' };
  return { status: 'VERIFIED' };
}

const ledger = openLedger(ledgerFile);
const kernel = createKernel({ flows: await loadFlows(charters), store: ledger });
const run_id = 'example-run-1';
const attempts = new Map<string, number>();
let step: string | null = kernel.flows.get('build')!.firstStep;
let last: Decision | undefined;
try {
  while (step !== null) {
    const attempt = (attempts.get(step) ?? 0) + 1;
    attempts.set(step, attempt);
    last = await kernel.route({ run_id, flow: 'build', step_completed: step, agent: 'example', ...runAgent(step, attempt) });
    console.log(`${step.padEnd(16)} → ${last.decision.padEnd(9)} ${last.next_step_id ?? ''} (tier ${last.tier} ${last.rule})`);
    step = last.decision === 'TERMINATE' ? null : last.next_step_id;
  }
  const audit = await auditRun(ledger, run_id);
  console.log(`run ${run_id}: ${audit.run.steps} decisions recorded in ${ledgerFile}`);
} finally {
  await kernel.close();
}
