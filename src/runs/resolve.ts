import type { DecisionKind } from '../contracts/decision.js';
import { didYouMean } from '../contracts/nearest-name.js';
import type { Escalation, EscalationResolution } from '../contracts/ledger.js';
import type { EscalationStore, KernelStore, RunReader, VersionStore } from '../contracts/ports.js';
import { flowSetFromDefinition } from '../kernel/flows/flow-version.js';
import type { FlowSet } from '../kernel/index.js';
import { createRedactor, type Redactor } from '../redact.js';
import { escalationAlreadyResolved, invalidResolution, unknownEscalation, recordResolution } from '../ledger/index.js';

/** A person's resolution of an escalation: the decision, where the run goes, who and why. */
export interface ResolveInput {
  escalation_id: string;
  decision: string;
  /** The step to go on with (CONTINUE, LOOP, DETOUR), or the flow to inject (INJECT_FLOW). */
  next?: string;
  by: string;
  reason: string;
  /** True only when `by` was proven (a principal's token); recorded in the hashed resolution. Default false. */
  authenticated?: boolean;
  /** Where the resolution came from, recorded with it. */
  via?: EscalationResolution['via'];
}

/** The flow version a run is pinned to, read back from the ledger; `flows` when it is that one, or none is kept. */
export async function pinnedFlows(ledger: object, run_id: string, flows: FlowSet): Promise<FlowSet> {
  const store = ledger as Partial<KernelStore & VersionStore>;
  if (!store.loadRun || !store.flowVersion) return flows;
  const pin = (await store.loadRun.call(ledger, run_id))?.flows;
  if (pin === undefined || pin === flows.hash) return flows;
  const definition = await store.flowVersion.call(ledger, pin);
  return definition === undefined ? flows : flowSetFromDefinition(pin, definition);
}

let shared: Redactor | undefined;
const redactor = () => (shared ??= createRedactor());

const ALLOWED: readonly DecisionKind[] = ['CONTINUE', 'LOOP', 'DETOUR', 'INJECT_FLOW', 'TERMINATE'];

/**
 * Records how a person resolved an open escalation, after checking the move against the escalated flow's
 * graph: the step exists (CONTINUE / DETOUR), is the step's loop target (LOOP), the flow is injectable
 * (INJECT_FLOW). The ledger binds the resolution to the ESCALATE row's hash (`recordResolution`).
 */
export async function resolveEscalation(ledger: Pick<EscalationStore, 'escalation' | 'resolveEscalation'> & Pick<RunReader, 'routeHash'>, flows: FlowSet, input: ResolveInput, clock: () => Date = () => new Date()): Promise<Escalation> {
  const row = await ledger.escalation(input.escalation_id);
  if (!row) throw unknownEscalation(input.escalation_id);
  if (row.status === 'resolved') throw escalationAlreadyResolved(row.escalation_id, row.resolved_by ?? '?', row.resolved_ts ?? '?');
  // What a person writes is redacted before it is stored or returned (SECURITY.md): a token pasted into a reason
  // never reaches the ledger, an export or a model.
  const by = redactor().text(input.by.trim());
  const reason = redactor().text(input.reason.trim());
  if (by === '') throw invalidResolution('--by must name who resolves the escalation');
  if (reason === '') throw invalidResolution('--reason must say why');
  const kind = input.decision.trim().toUpperCase() as DecisionKind;
  if (!ALLOWED.includes(kind)) throw invalidResolution(`--decision must be one of ${ALLOWED.join(', ')} (got ${JSON.stringify(input.decision)})`);
  // The run's own flow version: a run pinned to an older version is resolved against that version's graph.
  const version = await pinnedFlows(ledger, row.run_id, flows);
  const flow = version.get(row.flow);
  if (!flow) throw invalidResolution(`flow ${row.flow} of escalation ${row.escalation_id} is not among the loaded flows (--flows)`);
  const step = flow.steps.get(row.step);
  const steps = () => [...flow.steps.keys()].join(', ');
  const resolution: Omit<EscalationResolution, 'ts'> & { ts?: string } = {
    decision: kind as EscalationResolution['decision'],
    next_step_id: null,
    by,
    reason,
    authenticated: input.authenticated ?? false,
    ...(input.via ? { via: input.via } : {}),
  };
  const next = input.next?.trim() || undefined;
  switch (kind) {
    case 'TERMINATE':
      if (next) throw invalidResolution('TERMINATE takes no --next');
      break;
    case 'CONTINUE':
    case 'DETOUR': {
      const target = next ?? (kind === 'CONTINUE' ? step?.def.next : undefined);
      if (!target) throw invalidResolution(`${kind} needs --next STEP (a step of flow ${flow.id}: ${steps()})`);
      if (!flow.steps.has(target)) throw invalidResolution(`step ${target} is not in flow ${flow.id}${didYouMean(target, flow.steps.keys())} (steps: ${steps()})`);
      resolution.next_step_id = target;
      break;
    }
    case 'LOOP': {
      const legal = step ? (step.loopTo ?? step.id) : undefined;
      if (!legal) throw invalidResolution(`step ${row.step} is not a step of flow ${flow.id}; it cannot loop`);
      if (next && next !== legal) throw invalidResolution(`LOOP from ${row.step} goes back to ${legal}, not ${next}`);
      resolution.next_step_id = legal;
      break;
    }
    case 'INJECT_FLOW': {
      if (!next) throw invalidResolution(`INJECT_FLOW needs --next FLOW (one of: ${flow.injectFlows.join(', ') || 'none'})`);
      if (!flow.injectFlows.includes(next)) throw invalidResolution(`flow ${next} is not injectable from ${flow.id}${didYouMean(next, flow.injectFlows)} (inject_flows: ${flow.injectFlows.join(', ') || 'none'})`);
      resolution.inject_flow = next;
      resolution.next_step_id = version.get(next)!.firstStep;
      break;
    }
  }
  resolution.ts = clock().toISOString();
  return recordResolution(ledger, row, resolution as EscalationResolution);
}
