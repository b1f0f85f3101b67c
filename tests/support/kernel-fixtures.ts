import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EscalationOpenError, type FlowInput, type RouteRequest } from '../../src/contracts/index.js';
import { createKernel, defineFlows, MemoryStore, type Kernel, type KernelOptions, type RouteOptions } from '../../src/kernel/index.js';
import { resolveEscalation } from '../../src/runs/index.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHARTERS = path.join(ROOT, 'charters');

/** A small flow with every kind of step, for rule tests. */
export const TEST_FLOWS: FlowInput[] = [
  {
    flow: 'build',
    charter: { goal: 'Implement the plan', non_goals: ['refactor unrelated code'], key_question: 'Does it work?' },
    steps: [
      { id: 'write', agent: 'implementer', next: 'check' },
      { id: 'check', agent: 'critic', next: 'review', loop: { to: 'write', max_iterations: 3, exit_when: ['VERIFIED'] } },
      { id: 'review', agent: 'reviewer', branches: { APPROVED: 'done', BOUNCE: 'write', TRIAGE: 'triage' }, next: 'done' },
      { id: 'triage', agent: 'reviewer', branches: { SHIP: 'linear', WRAP: 'wrap-up', POLISH: 'polish' } },
      { id: 'wrap-up', agent: 'reporter' },
      { id: 'polish', agent: 'implementer', loop: { max_iterations: 2, exit_when: ['SHINY'] } },
      { id: 'linear', agent: 'implementer', next: 'done' },
      { id: 'auto-linter', agent: 'auto-linter', returns: true },
      { id: 'done', agent: 'reporter', terminal: true },
    ],
    detours: { lint_errors: 'auto-linter', upstream_diverged: { flow: 'rebase', max_attempts: 1 } },
    inject_flows: ['rebase'],
    inject_nodes: { allowed: true, max_nodes: 2 },
  },
  {
    flow: 'rebase',
    charter: { goal: 'Sync with upstream', key_question: 'Is the branch current?' },
    steps: [
      { id: 'rebase-apply', agent: 'operator', next: 'rebase-done' },
      { id: 'rebase-done', agent: 'reporter', terminal: true },
    ],
  },
];

export const testFlows = () => defineFlows(TEST_FLOWS);

/** A request for the test flows with sensible defaults. */
export function req(step: string, status: string, extra: Partial<RouteRequest> = {}): RouteRequest {
  return { run_id: 'run-1', flow: 'build', step_completed: step, status, ...extra };
}

/** examples/first-flow/fixbug.yaml without the statuses it declares (for tests about transports and messages, not flows). */
export const FIXBUG_FLOW: FlowInput = {
  flow: 'fixbug',
  charter: { goal: 'Fix the reported bug', key_question: 'Does the bug still reproduce?' },
  steps: [
    { id: 'reproduce', agent: 'reproducer', next: 'implement' },
    { id: 'implement', agent: 'coder', loop: { max_iterations: 3, exit_when: ['VERIFIED'] }, next: 'review' },
    { id: 'review', agent: 'reviewer', branches: { APPROVED: 'done', BOUNCE: 'implement' }, next: 'done' },
    { id: 'fix-lint', agent: 'linter', returns: true },
    { id: 'done', agent: 'none', terminal: true },
  ],
  detours: { lint_errors: 'fix-lint' },
};

/**
 * A kernel for rule tests whose runner reports steps in whatever order a rule needs: each request says the runner
 * restarts from its step (`restart`), and a person lets an escalated run go on from the step it reports next
 * (the escalation is resolved CONTINUE to it, as `navkernel resolve` would). The run-time holds themselves are
 * tested in tests/kernel/run-states.test.ts.
 */
export function ruleKernel(options: Omit<KernelOptions, 'store'> & { store?: MemoryStore }): Kernel {
  const store = options.store ?? new MemoryStore();
  const k = createKernel({ ...options, store });
  const route = async (request: unknown, o?: RouteOptions) => {
    const r = { restart: { reason: 'the rule test reports steps out of order' }, ...(request as RouteRequest) };
    try {
      return await k.route(r, o);
    } catch (e) {
      if (!(e instanceof EscalationOpenError)) throw e;
      await resolveEscalation(store, options.flows, { escalation_id: e.escalation_id, decision: 'CONTINUE', next: r.step_completed, by: 'test', reason: 'a person lets the run go on' });
      return k.route(r, o);
    }
  };
  return {
    route,
    candidates: (r) => k.candidates(r),
    runState: (id) => k.runState(id),
    get flows() {
      return k.flows;
    },
    setFlows: (f) => k.setFlows(f),
    get liveRuns() {
      return k.liveRuns;
    },
    close: () => k.close(),
  };
}
