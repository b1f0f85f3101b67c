// Moving a run to another flow version (`navkernel runs upgrade`, docs/changing-flows.md): every place the run's state
// names a step is carried over (by the same name, or by the mapping given), and the move is refused when one would be
// left at a step the new version does not have. The move is recorded in the ledger like a resolution (who, when, from,
// to), chained to the run's last route; the kernel routes the run's next report from the upgraded state.
import { canonicalJson } from '../contracts/canonical-json.js';
import { NavkernelError } from '../contracts/errors.js';
import { didYouMean } from '../contracts/nearest-name.js';
import type { ReturnPoint, RunPosition, RunState, StoredUpgrade, VersionStore, KernelStore, RunReader } from '../contracts/ports.js';
import type { FlowSet } from '../kernel/index.js';
import { flowsDefinition } from '../kernel/flows/flow-version.js';
import { requireRun } from '../ledger/stored-rows.js';
import { createRedactor } from '../redact.js';

/** An upgrade refused: the mapping leaves the run (or a return point) at a step the new version lacks (code UPGRADE_REFUSED). */
export class UpgradeRefusedError extends NavkernelError {
  constructor(
    readonly run_id: string,
    readonly unmapped: string[],
    why: string,
  ) {
    super('UPGRADE_REFUSED', `run ${JSON.stringify(run_id)} cannot be upgraded: ${why}; nothing was recorded`);
    this.name = 'UpgradeRefusedError';
  }
}

/** `old=new` pairs: `flow/step=flow/step2`, or bare `step=step2` for a step of any flow. */
export type StepMap = Record<string, string>;

/** Parses `--map old=new` values. */
export function parseStepMap(pairs: readonly string[]): StepMap {
  const map: StepMap = {};
  for (const p of pairs) {
    const i = p.indexOf('=');
    const from = p.slice(0, i).trim();
    const to = p.slice(i + 1).trim();
    if (i <= 0 || from === '' || to === '') throw new NavkernelError('INVALID_OPTION', `--map takes old=new (a step, or flow/step), got ${JSON.stringify(p)}`);
    map[from] = to;
  }
  return map;
}

export interface UpgradePlan {
  run_id: string;
  from_flows: string;
  to_flows: string;
  /** The mapping entries the run used (`flow/old` → `flow/new`). */
  used: Record<string, string>;
  state: RunState;
}

/**
 * Where a run's state stands in `to`: each step it names carried over by name or through `map`. Refused when the step
 * the run was sent to, or a return point, has no place in `to`; counters of steps `to` lacks are dropped (nothing
 * routes to them any more).
 */
export function planUpgrade(run_id: string, state: RunState, from_flows: string, to: FlowSet, map: StepMap = {}): UpgradePlan {
  if (state.lifecycle === 'ended') throw new UpgradeRefusedError(run_id, [], 'the run ended (TERMINATE): there is nothing left to route');
  const used: Record<string, string> = {};
  const missing: string[] = [];
  /** The step `flow/step` becomes in `to`, or undefined when it has none. */
  const carry = (flow: string, step: string): string | undefined => {
    const key = `${flow}/${step}`;
    const target = map[key] ?? map[step];
    const next = target === undefined ? step : target.includes('/') ? target.slice(target.indexOf('/') + 1) : target;
    if (target !== undefined) used[key] = `${flow}/${next}`;
    return to.get(flow)?.steps.has(next) ? next : undefined;
  };
  const need = (flow: string, step: string, what: string): string => {
    const next = carry(flow, step);
    if (next === undefined) {
      const f = to.get(flow);
      missing.push(`${what} ${flow}/${step}${f ? didYouMean(step, f.steps.keys()) : ` (flow ${flow} is not in the new version)`}`);
      return step;
    }
    return next;
  };
  const next: RunState = { ...state, flows: to.hash };
  if (state.at) {
    const at: RunPosition = { flow: state.at.flow, step: need(state.at.flow, state.at.step, 'the step the run was sent to,') };
    if (state.at.loop !== undefined) {
      const loop = carry(state.at.flow, state.at.loop);
      if (loop !== undefined) at.loop = loop;
    }
    next.at = at;
  }
  next.returns = state.returns.map((r): ReturnPoint => {
    const point: ReturnPoint = { ...r, step: need(r.flow, r.step, 'a return point,') };
    if (r.via === 'step') point.target = need(r.flow, r.target, 'a detour in progress to');
    else if (r.via === 'flow' && !to.get(r.target)) missing.push(`the injected flow ${r.target} the run is inside`);
    return point;
  });
  if (missing.length) throw new UpgradeRefusedError(run_id, missing, `${missing.join('; ')} — name where each goes with --map old=new`);
  // Counters keyed `flow/step` (or `flow/step:signature`) follow their step; those of steps gone are dropped.
  const rekey = <T>(rec: Record<string, T> | undefined, sep: '/' | ':'): Record<string, T> | undefined => {
    if (!rec) return rec;
    const out: Record<string, T> = {};
    for (const [k, v] of Object.entries(rec)) {
      const slash = k.indexOf('/');
      const rest = k.slice(slash + 1);
      const cut = sep === ':' ? rest.indexOf(':') : -1;
      const step = cut >= 0 ? rest.slice(0, cut) : rest;
      const flow = k.slice(0, slash);
      const moved = carry(flow, step);
      if (moved !== undefined) out[`${flow}/${moved}${cut >= 0 ? rest.slice(cut) : ''}`] = v;
    }
    return out;
  };
  next.loops = rekey(state.loops, '/')!;
  next.signatures = rekey(state.signatures, ':')!;
  const visits = rekey(state.visits, '/');
  if (visits) next.visits = visits;
  if (state.trail) next.trail = state.trail.map((k) => {
    const slash = k.indexOf('/');
    const moved = carry(k.slice(0, slash), k.slice(slash + 1));
    return moved === undefined ? k : `${k.slice(0, slash)}/${moved}`;
  });
  return { run_id, from_flows, to_flows: to.hash, used, state: next };
}

export interface UpgradeInput {
  run_id: string;
  to: FlowSet;
  map?: StepMap;
  by: string;
  reason: string;
}

type UpgradeLedger = KernelStore & RunReader & VersionStore;

/**
 * Upgrades one run (see planUpgrade) and records it: the new version is kept first, then the upgrade is written with
 * a check that the run did not move on meanwhile (LEDGER_CONFLICT: try again).
 */
export async function upgradeRun(ledger: UpgradeLedger, input: UpgradeInput, clock: () => Date = () => new Date()): Promise<StoredUpgrade> {
  await requireRun(ledger, input.run_id);
  const state = await ledger.loadRun(input.run_id);
  if (!state) throw new UpgradeRefusedError(input.run_id, [], 'it has no recorded state');
  const from = state.flows ?? (await ledger.runFlowsHashes(input.run_id)).at(-1) ?? '';
  if (from === input.to.hash) throw new UpgradeRefusedError(input.run_id, [], `it is on version ${from.slice(0, 12)} already`);
  const plan = planUpgrade(input.run_id, state, from, input.to, input.map);
  const redact = createRedactor();
  const by = redact.text(input.by.trim());
  const reason = redact.text(input.reason.trim());
  if (by === '') throw new NavkernelError('INVALID_OPTION', '--by must name who upgrades the run');
  await ledger.saveFlowVersion(input.to.hash, flowsDefinition(input.to));
  const recorded = await ledger.recordUpgrade({
    run_id: input.run_id,
    seq: state.seq,
    from_flows: plan.from_flows,
    to_flows: plan.to_flows,
    map: canonicalJson(plan.used),
    state: canonicalJson(plan.state),
    by,
    reason,
    ts: clock().toISOString(),
  });
  if (recorded === false) throw new NavkernelError('LEDGER_CONFLICT', `run ${JSON.stringify(input.run_id)} moved on while it was being upgraded; nothing was recorded: try again`);
  return recorded;
}
