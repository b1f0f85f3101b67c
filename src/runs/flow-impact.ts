// What a flow change does to the runs in flight (`navkernel flows diff OLD NEW --ledger`, docs/changing-flows.md): each
// run pinned to OLD that is not over, and what upgrading it to NEW would meet.
import type { EscalationReader, KernelStore, RunReader, RunState, StatsReader } from '../contracts/ports.js';
import { resolutionOf, resolvedRunState, type FlowSet } from '../kernel/index.js';
import { renamesOf, type FlowDiff } from './flow-diff.js';

export interface RunImpact {
  run_id: string;
  /** Where the run stands: `flow/step` it was sent to, or the escalated step, or null. */
  at: string | null;
  lifecycle: string;
  /** What the change does to this run; empty when nothing it uses changed (it can be upgraded as it is). */
  effects: RunEffect[];
}

export type RunEffect =
  | { kind: 'step_gone'; flow: string; step: string; renamed_to?: string; message: string }
  | { kind: 'over_bound'; flow: string; step: string; bound: 'max_iterations' | 'max_visits'; count: number; new_bound: number; message: string }
  | { kind: 'escalation_target_moved'; flow: string; step: string; escalation_id: string; renamed_to?: string; message: string }
  | { kind: 'in_injected_flow'; flow: string; changed: boolean; removed: boolean; message: string }
  | { kind: 'flow_changed'; flow: string; message: string };

export interface ImpactReport {
  /** Runs not over that are pinned to the old version. */
  runs_in_flight: number;
  touched: number;
  runs: RunImpact[];
}

type ImpactLedger = KernelStore & RunReader & StatsReader & EscalationReader;

/** The effects of `diff` (from `a` to `b`) on one run in state `state`. */
export function runEffects(state: RunState, a: FlowSet, b: FlowSet, diff: FlowDiff, escalation?: { escalation_id: string; flow: string; step: string }): RunEffect[] {
  const renames = renamesOf(diff);
  const effects: RunEffect[] = [];
  const gone = (flow: string, step: string) => !b.get(flow)?.steps.has(step);
  const where = (flow: string, step: string, what: string): void => {
    if (!gone(flow, step)) return;
    const to = renames.get(`${flow}/${step}`);
    effects.push({ kind: 'step_gone', flow, step, ...(to ? { renamed_to: to } : {}), message: `${what} ${flow}/${step} ${to ? `is renamed ${to} (upgrade with --map ${step}=${to})` : 'is gone (upgrade with --map, or let the run finish on its version)'}` });
  };
  if (state.at) where(state.at.flow, state.at.step, 'the step the run was sent to,');
  for (const r of state.returns) {
    where(r.flow, r.step, 'its return point');
    if (r.via === 'flow') {
      const removed = !b.get(r.target);
      const changed = removed || diff.flows_changed.includes(r.target);
      if (changed) effects.push({ kind: 'in_injected_flow', flow: r.target, changed, removed, message: `the run is inside injected flow ${r.target}, which ${removed ? 'is gone' : 'changed'}` });
    }
  }
  // Counters over the new bound: the next LOOP (or visit) of that step decides differently at once.
  for (const [key, count] of Object.entries(state.loops)) {
    const [flow, step] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
    const now = b.get(flow)?.steps.get(renames.get(key) ?? step)?.def.loop?.max_iterations;
    const before = a.get(flow)?.steps.get(step)?.def.loop?.max_iterations;
    if (now !== undefined && now !== before && count + 1 >= now) effects.push({ kind: 'over_bound', flow, step, bound: 'max_iterations', count, new_bound: now, message: `${key} has looped ${count} time(s); the new cap is ${now} (was ${before ?? 'none'}): its next report meets the cap` });
  }
  for (const [key, count] of Object.entries(state.visits ?? {})) {
    const [flow, step] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
    const now = b.get(flow)?.steps.get(renames.get(key) ?? step)?.maxVisits;
    const before = a.get(flow)?.steps.get(step)?.maxVisits;
    if (now !== undefined && now !== before && count >= now) effects.push({ kind: 'over_bound', flow, step, bound: 'max_visits', count, new_bound: now, message: `${key} was visited ${count} time(s); the new max_visits is ${now} (was ${before})` });
  }
  if (escalation && gone(escalation.flow, escalation.step)) {
    const to = renames.get(`${escalation.flow}/${escalation.step}`);
    effects.push({ kind: 'escalation_target_moved', flow: escalation.flow, step: escalation.step, escalation_id: escalation.escalation_id, ...(to ? { renamed_to: to } : {}), message: `escalation ${escalation.escalation_id} is open at ${escalation.flow}/${escalation.step}, which ${to ? `is renamed ${to}` : 'is gone'}: its resolution must name a step of the version the run is on` });
  }
  // Anything else the run uses: its flow (or a flow it is inside) changed in ways above none of the checks name.
  if (effects.length === 0) {
    const uses = new Set<string>([...(state.at ? [state.at.flow] : []), ...state.returns.map((r) => r.flow), ...(state.started_in ? [state.started_in] : []), ...(escalation ? [escalation.flow] : [])]);
    for (const f of uses) if (diff.flows_changed.includes(f) || diff.flows_removed.includes(f)) effects.push({ kind: 'flow_changed', flow: f, message: `flow ${f}, which the run uses, changed (no step it stands on moved)` });
  }
  return effects;
}

/** Every run not over pinned to `a`, and what the change to `b` does to it. */
export async function impactOnRuns(ledger: ImpactLedger, a: FlowSet, b: FlowSet, diff: FlowDiff): Promise<ImpactReport> {
  const report: ImpactReport = { runs_in_flight: 0, touched: 0, runs: [] };
  for (const run of await ledger.runs()) {
    if (run.last_decision === 'TERMINATE') continue;
    let state = await ledger.loadRun(run.run_id);
    // A person resolved its escalation, and the kernel applies that at the run's next route: the run is where it says.
    if (state?.lifecycle === 'awaiting_person' && state.escalation_id) {
      const resolved = resolutionOf(await ledger.escalation(state.escalation_id));
      if (resolved) state = resolvedRunState(state, resolved.escalated, resolved.resolution);
    }
    if (!state || state.lifecycle === 'ended') continue;
    const pin = state.flows ?? (await ledger.runFlowsHashes(run.run_id)).at(-1);
    if (pin !== a.hash) continue;
    report.runs_in_flight++;
    const open = state.lifecycle === 'awaiting_person' && state.escalation_id ? await ledger.escalation(state.escalation_id) : undefined;
    const effects = runEffects(state, a, b, diff, open && open.status === 'open' ? open : undefined);
    if (effects.length) report.touched++;
    report.runs.push({
      run_id: run.run_id,
      at: state.at ? `${state.at.flow}/${state.at.step}` : open ? `${open.flow}/${open.step} (escalated)` : null,
      lifecycle: state.lifecycle ?? 'routing',
      effects,
    });
  }
  return report;
}
