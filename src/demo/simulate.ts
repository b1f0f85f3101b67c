import type { Decision, Forensics, RouteRequest } from '../contracts/index.js';
import { isOffroad } from '../contracts/decision-kinds.js';
import type { Kernel } from '../kernel/index.js';
import type { CompiledStep, FlowSet } from '../kernel/index.js';
import { seededRandom } from './prng.js';
import type { Scenario } from './scenario.js';

/** One routed step of a simulated run. */
export interface SimulatedStep {
  request: RouteRequest;
  decision: Decision;
}

/** What a simulated run produced, by tier and rule. */
export interface SimulationSummary {
  scenario: string;
  routes: number;
  byTier: Record<1 | 2 | 3 | 4 | 5, number>;
  byDecision: Record<string, number>;
  byRule: Record<string, number>;
  offRoad: number;
  escalations: number;
  /** USD spent on tier 3 over every run (the runs' own spend, as the kernel recorded it). */
  llmCostUsd: number;
  elapsedMs: number;
  /** The run ids routed, in order. */
  runIds: string[];
}

const SIGNATURE_FORENSICS: Record<string, () => Forensics> = {
  lint_errors: () => ({ lint: { errors: 5, fixable: 5, output: 'eslint: 5 errors found' }, tests: { passed: 40, failed: 0 } }),
  missing_import: () => ({ tests: { passed: 12, failed: 3 }, error_output: "Error: Cannot find module './session-store' imported from src/auth/login.ts" }),
  type_mismatch: () => ({ tests: { passed: 30, failed: 1 }, error_output: "src/api/user.ts(14,7): error TS2322: Type 'string' is not assignable to type 'number'." }),
  test_fixture_error: () => ({ tests: { passed: 20, failed: 4, failures: [{ type: 'FixtureNotFoundError', message: "fixture 'db_session' not found" }] } }),
};

/**
 * A deterministic flow runner: for each run it walks the scenario's flow sequence, makes up forensics for each
 * step from a seeded PRNG (failures, repeated signatures, divergence, envelopes) and follows the kernel's
 * decisions. It is what `navkernel demo` and the routing-economics bench drive.
 */
/**
 * A simulated person resolving an escalation (CONTINUE to `next`, or TERMINATE), as `navkernel runs resolve` would: callers
 * with a ledger or MemoryStore pass `resolveEscalation` of navkernel over it.
 */
export type SimulatedResolver = (resolution: { escalation_id: string; decision: 'CONTINUE' | 'TERMINATE'; next?: string }) => Promise<void | false>;

export interface SimulateOptions {
  runPrefix?: string;
  onStep?: (s: SimulatedStep) => void;
  maxStepsPerRun?: number;
  /**
   * A person who resolves each escalation (the run goes on to the step's next, or ends); one that answers false leaves
   * it open. Without one, a run stops at its first escalation.
   */
  resolve?: SimulatedResolver;
}

export async function simulate(kernel: Kernel, scenario: Scenario, options: SimulateOptions = {}): Promise<SimulationSummary> {
  const rand = seededRandom(scenario.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const summary: SimulationSummary = { scenario: scenario.name, routes: 0, byTier: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 }, byDecision: {}, byRule: {}, offRoad: 0, escalations: 0, llmCostUsd: 0, elapsedMs: 0, runIds: [] };
  const t0 = performance.now();
  const maxSteps = options.maxStepsPerRun ?? 400;

  const sequence = flowSequence(scenario, kernel.flows);
  for (let r = 0; r < scenario.runs; r++) {
    const firstRunId = `${options.runPrefix ?? scenario.name}-run-${r + 1}`;
    // Each flow of the sequence is a run of its own (a run that ended takes no more routes): -f2, -f3, … after the first.
    let run_id = firstRunId;
    const visits = new Map<string, number>();
    const lastSignature = new Map<string, string>();
    let divergedLeft = scenario.divergedRuns.includes(r) ? 2 : 0;
    let seqIndex = 0;
    let flowId = sequence[0]!;
    let stepId: string | null = kernel.flows.get(flowId)!.firstStep;
    let steps = 0;

    while (stepId !== null && steps++ < maxSteps) {
      const flow = kernel.flows.get(flowId)!;
      const step = flow.steps.get(stepId);
      const key = `${flowId}/${stepId}`;
      const visit = (visits.get(key) ?? 0) + 1;
      visits.set(key, visit);
      const request = makeRequest(run_id, flowId, stepId, step, visit);
      const decision = await kernel.route(request);
      record(summary, decision);
      options.onStep?.({ request, decision });
      ({ flowId, stepId } = follow(decision, flowId, stepId, step));
      if (decision.decision === 'ESCALATE') {
        // A (simulated) person settles it: on to the step's next, or the run ends.
        // A resolver that answers false leaves the escalation open: the run stops there.
        const next = step?.def.next;
        const resolved = options.resolve ? await options.resolve({ escalation_id: decision.escalation_id!, ...(next ? { decision: 'CONTINUE', next } : { decision: 'TERMINATE' }) }) : false;
        stepId = resolved === false ? null : (next ?? null);
      }
      if (stepId === null && ++seqIndex < sequence.length) {
        summary.runIds.push(run_id);
        summary.llmCostUsd += (await kernel.runState(run_id))?.spent_usd ?? 0;
        run_id = `${firstRunId}-f${seqIndex + 1}`;
        visits.clear();
        flowId = sequence[seqIndex]!;
        stepId = kernel.flows.get(flowId)!.firstStep;
      }
      if (decision.decision === 'CONTINUE' || decision.decision === 'TERMINATE') visits.delete(key);
      // The known fix works: the step that detoured passes its signature next time.
      if (decision.decision === 'DETOUR' || decision.decision === 'INJECT_FLOW') lastSignature.delete(key);
    }
    summary.runIds.push(run_id);
    summary.llmCostUsd += (await kernel.runState(run_id))?.spent_usd ?? 0;

    function makeRequest(run: string, flow: string, id: string, step: CompiledStep | undefined, visit: number): RouteRequest {
      const base = { run_id: run, flow, step_completed: id, agent: step?.def.agent ?? 'ad-hoc', iteration: { current: visit, max: 3 } };
      if (!step || step.def.terminal || step.def.returns) return { ...base, status: 'DONE' };
      if (step.branches.size) {
        const keys = [...step.branches.keys()];
        const status = rand() < scenario.strayStatus ? 'UNCLEAR' : rand() < 0.75 ? keys[0]! : pick(keys);
        return { ...base, status: status.toUpperCase() };
      }
      const key = `${flow}/${id}`;
      const isBuildStep = flow === 'build' && id === 'build-step-3';
      if (isBuildStep && divergedLeft > 0) {
        divergedLeft--;
        return { ...base, status: 'UNVERIFIED', forensics: { git_status: { behind_upstream: 4, output: 'Your branch is behind origin/main by 4 commits' }, tests: { passed: 40, failed: 0 } } };
      }
      // A failure with a signature tends to come back until its fix runs (that is what detours are for).
      const repeat = lastSignature.get(key);
      const failP = repeat ? 0.85 : step.loopTo ? (visit === 1 ? scenario.loopFailureFirst : scenario.loopFailureLater) : scenario.linearFailure;
      if (rand() >= failP) {
        lastSignature.delete(key);
        return { ...base, status: step.loopTo ? [...step.exitWhen][0]!.toUpperCase() : 'VERIFIED', forensics: { tests: { passed: 40 + Math.floor(rand() * 20), failed: 0 }, lint: { errors: 0 } } };
      }
      const sig = repeat ?? (rand() < scenario.signatureShare ? pick(Object.keys(SIGNATURE_FORENSICS)) : undefined);
      if (sig) lastSignature.set(key, sig);
      const forensics: Forensics = sig
        ? SIGNATURE_FORENSICS[sig]!()
        : { tests: { passed: 30, failed: 1 + Math.floor(rand() * 4) }, concerns: [{ severity: rand() < 0.3 ? 'HIGH' : 'MEDIUM', description: 'Edge case not covered by tests' }] };
      const req: RouteRequest = { ...base, status: 'UNVERIFIED', forensics };
      if (rand() < scenario.envelopeShare) req.envelope = { next_step_id: null, recommendation: rand() < 0.1 ? 'RETRY_HARDER' : step.loopTo || visit < 3 ? 'LOOP' : 'CONTINUE' };
      return req;
    }
  }
  summary.elapsedMs = performance.now() - t0;
  return summary;
}

/**
 * The flows each simulated run goes through: the scenario's sequence, keeping the flows the kernel has. With flows
 * of your own (none of the sequence's), every flow that no other flow injects or detours to, in id order, so that
 * `navkernel demo --flows DIR` simulates runs of any flow set.
 */
export function flowSequence(scenario: Pick<Scenario, 'sequence'>, flows: FlowSet): string[] {
  const known = scenario.sequence.filter((id) => flows.get(id) !== undefined);
  if (known.length > 0) return known;
  const reached = new Set<string>();
  for (const f of flows.flows.values()) {
    for (const id of f.injectFlows) reached.add(id);
    for (const d of f.detours.values()) if (d.kind === 'flow') reached.add(d.flow);
  }
  const ids = [...flows.flows.keys()].sort();
  const entry = ids.filter((id) => !reached.has(id));
  return entry.length > 0 ? entry : ids;
}

function record(s: SimulationSummary, d: Decision): void {
  s.routes++;
  s.byTier[d.tier]++;
  s.byDecision[d.decision] = (s.byDecision[d.decision] ?? 0) + 1;
  s.byRule[d.rule] = (s.byRule[d.rule] ?? 0) + 1;
  if (isOffroad(d)) s.offRoad++;
  if (d.decision === 'ESCALATE') s.escalations++;
}

/** Where a runner goes after a decision (an escalation waits for a person: see simulate). */
function follow(d: Decision, flowId: string, stepId: string, step: CompiledStep | undefined): { flowId: string; stepId: string | null } {
  switch (d.decision) {
    case 'CONTINUE':
      return { flowId: d.next_flow ?? flowId, stepId: d.next_step_id };
    case 'LOOP':
    case 'DETOUR':
    case 'INJECT_NODES':
      return { flowId, stepId: d.next_step_id };
    case 'INJECT_FLOW':
      return { flowId: d.inject_flow!, stepId: d.next_step_id };
    case 'ESCALATE':
      return { flowId, stepId: null };
    case 'TERMINATE':
      return { flowId, stepId: null };
  }
}
