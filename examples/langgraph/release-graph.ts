// A LangGraph.js graph routed by navkernel: the release flow of examples/custom-flow (a microloop, a branch, a
// detour to a utility step) as a StateGraph whose conditional edges are kernel.route(). Its agents are simulated;
// the packager fails once more late in the run, the kernel escalates, the graph stops with interrupt(), and a person's
// answer resumes it. The checkpointer and the ledger are SQLite files, so `navkernel runs audit`, `replay` and the web UI
// (`navkernel serve --ledger FILE`) show the run.
//
//   npx tsc -p examples/tsconfig.json && node dist-examples/langgraph/release-graph.js [FOLDER]
//
// In your project: npm install navkernel @langchain/langgraph @langchain/langgraph-checkpoint-sqlite
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Annotation, Command } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { createKernel, loadFlows, openLedger } from 'navkernel';
import { kernelGraph, NavkernelAnnotation, type StepReport } from 'navkernel/langgraph';

const flows = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'custom-flow');
const folder = process.argv[2] ?? mkdtempSync(path.join(tmpdir(), 'navkernel-langgraph-'));

// Your state: navkernel's part (the step's report, where the run is) plus your own channels.
const State = Annotation.Root({
  ...NavkernelAnnotation.spec,
  notes: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

// Simulated agents: each returns what it measured (`report`), never where to go next.
const runs = new Map<string, number>();
const agent = (step: string, reports: StepReport[]) => async () => {
  const n = (runs.get(step) ?? 0) + 1;
  runs.set(step, n);
  const report = reports[Math.min(n, reports.length) - 1]!;
  return { report, notes: [`${step}: ${report.status}`] };
};
const lint = { lint: { errors: 3, output: 'eslint: 3 errors' } };

const ledger = openLedger(path.join(folder, 'ledger.sqlite'), { runBase: path.join(folder, 'runs') });
const kernel = createKernel({ flows: await loadFlows(flows), store: ledger });
const checkpointer = SqliteSaver.fromConnString(path.join(folder, 'checkpoints.sqlite'));
try {
  const graph = kernelGraph({
    kernel,
    ledger,
    flow: 'release',
    state: State,
    nodes: {
      package: agent('package', [{ status: 'VERIFIED' }, { status: 'FAILED' }]),
      check: agent('check', [{ status: 'FAILED', forensics: lint }, { status: 'FAILED', forensics: lint }, { status: 'PASSED' }]),
      'fix-lint': agent('fix-lint', [{ status: 'DONE' }]),
      review: agent('review', [{ status: 'CHANGES' }, { status: 'APPROVED' }]),
      publish: agent('publish', [{ status: 'DONE' }]),
    },
  }).compile({ checkpointer });

  const config = { configurable: { thread_id: 'release-1' } };
  let result: typeof State.State & { __interrupt__?: { value: unknown }[] } = await graph.invoke({}, config);
  for (const note of result.notes) console.log(note);
  const asked = result.__interrupt__?.[0]?.value as { escalation_id: string; step: string; reason: string } | undefined;
  if (asked) {
    console.log(`escalated at ${asked.step}: ${asked.reason}`);
    // A person answers (in an app: a form, a Slack message…); the graph records it as `navkernel runs resolve` does.
    result = await graph.invoke(new Command({ resume: { decision: 'CONTINUE', next: 'review', by: 'ana', reason: 'packaging flake, checked by hand' } }), config);
    for (const note of result.notes.slice(-2)) console.log(note);
  }
  console.log(`run release-1 routed by navkernel; ledger ${path.join(folder, 'ledger.sqlite')}`);
} finally {
  await kernel.close();
  checkpointer.db.close();
}
