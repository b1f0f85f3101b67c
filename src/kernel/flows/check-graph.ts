import type { Flow, IssueData, IssuePath, ValidationIssue } from '../../contracts/index.js';
import type { IssueCode } from '../../contracts/issue-codes.js';
import { didYouMean, suggest } from '../../contracts/nearest-name.js';
import { canonicalSignature } from '../signatures.js';

/** A graph problem, located by file and JSON path. */
export type GraphIssue = ValidationIssue & { file: string };

/**
 * Every structural problem of a set of flows at once: unknown targets, unknown injected flows, duplicate ids,
 * no terminal step, steps unreachable from the first step, detour targets that do not return, blank statuses and
 * cycles of injection. `files` maps flow id -> the file it came from. `partial` flows are the readable part of
 * documents that failed their schema (lenientFlow): checked too, so one run reports every problem, but a step
 * without a usable id is left out of them, so reachability is not judged there.
 */
export function checkFlowGraphs(flows: readonly Flow[], files: ReadonlyMap<Flow, string>, partial: ReadonlySet<Flow> = new Set()): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const flowIds = new Map<string, string>();
  for (const f of flows) {
    const file = files.get(f) ?? `<flow ${f.flow}>`;
    const prev = flowIds.get(f.flow);
    if (prev) issues.push({ file, path: ['flow'], code: 'duplicate_flow', message: `flow id "${f.flow}" is also defined in ${prev}`, flow: f.flow, defined_in: prev });
    else flowIds.set(f.flow, file);
  }
  for (const f of flows) issues.push(...checkOne(f, files.get(f) ?? `<flow ${f.flow}>`, flowIds, partial.has(f)));
  issues.push(...injectionCycles(flows, files));
  return issues;
}

/** A status that is only blank: nothing a runner reports can mean it (statuses are matched trimmed). */
const blank = (s: unknown) => typeof s === 'string' && s.trim() === '';

function checkOne(f: Flow, file: string, flowIds: ReadonlyMap<string, string>, partial: boolean): GraphIssue[] {
  const issues: GraphIssue[] = [];
  // Each code with data gets it typed (IssueData); the others are plain.
  function add<C extends IssueCode>(path: IssuePath, code: C, message: string, ...data: C extends keyof IssueData ? [IssueData[C]] : []): void {
    issues.push({ file, path, code, message, ...data[0] } as GraphIssue);
  }
  const ids = new Set<string>();
  f.steps.forEach((s, i) => {
    if (ids.has(s.id)) add(['steps', i, 'id'], 'duplicate_step', `step id "${s.id}" is used twice`, { step: s.id });
    ids.add(s.id);
  });
  const known = (t: string) => ids.has(t);
  const unknownStep = (at: IssuePath, what: string, t: string) => add(at, 'unknown_step', `${what} "${t}" does not exist in flow ${f.flow}${didYouMean(t, ids)}`, { step: t, ...suggest(t, ids) });
  f.steps.forEach((s, i) => {
    const at: IssuePath = ['steps', i];
    if (s.next && !known(s.next)) unknownStep([...at, 'next'], 'next step', s.next);
    for (const [status, t] of Object.entries(s.branches ?? {})) {
      if (!known(t)) unknownStep([...at, 'branches', status], 'branch target', t);
      if (blank(status)) add([...at, 'branches'], 'blank_status', 'a branch on a blank status: no runner status can take it; name the status');
    }
    if (s.loop?.to && !known(s.loop.to)) unknownStep([...at, 'loop', 'to'], 'loop target', s.loop.to);
    if (s.terminal && (s.next || s.branches || s.loop)) add(at, 'terminal_with_edges', `terminal step "${s.id}" must not have next, branches or loop`, { step: s.id });
    for (const field of ['success', 'failure', 'statuses'] as const)
      (s[field] ?? []).forEach((v, j) => {
        if (blank(v)) add([...at, field, j], 'blank_status', 'a blank status: no runner status can mean it; name the status (VERIFIED, …)');
      });
    (s.loop?.exit_when ?? []).forEach((v, j) => {
      if (blank(v)) add([...at, 'loop', 'exit_when', j], 'blank_status', 'a blank status: no runner status can mean it; name the status (VERIFIED, …)');
    });
  });
  if (!f.steps.some((s) => s.terminal)) add(['steps'], 'no_terminal', `flow ${f.flow} has no terminal step (terminal: true)`);
  const detourIds = new Map<string, string>();
  for (const [sig, t] of Object.entries(f.detours)) {
    const at: IssuePath = ['detours', sig];
    const id = canonicalSignature(sig);
    const twin = detourIds.get(id);
    if (twin !== undefined) add(at, 'duplicate_detour', `"${sig}" and "${twin}" name the same signature (${id}); keep one`, { signature: sig, same_as: twin });
    detourIds.set(id, sig);
    const target = typeof t === 'string' ? t : t.step;
    const targetPath: IssuePath = typeof t === 'string' ? at : [...at, 'step'];
    if (typeof t !== 'string') {
      if (!t.step === !t.flow) add(at, 'detour_target', 'give exactly one of step or flow');
      if (t.flow && !flowIds.has(t.flow)) add([...at, 'flow'], 'unknown_flow', `detour flow "${t.flow}" is not a loaded flow${didYouMean(t.flow, flowIds.keys())}`, { flow: t.flow, ...suggest(t.flow, flowIds.keys()) });
      if (t.flow && !f.inject_flows.includes(t.flow)) add([...at, 'flow'], 'not_injectable', `flow "${t.flow}" must be listed in inject_flows`, { flow: t.flow });
    }
    if (target !== undefined && !known(target)) unknownStep(targetPath, 'detour target', target);
    else if (target !== undefined) {
      // One rule for return points (docs/bounds.md): a detour comes back to the step that took it, so its target
      // must be a utility step; an injected flow returns when it ends.
      const step = f.steps.find((s) => s.id === target);
      if (step && !step.returns)
        add(targetPath, 'detour_not_returning', `detour ${sig} goes to step "${target}", which does not return (returns: true); a detour comes back to the step that took it: mark ${target} returns: true, or make the detour inject a flow`, { step: target });
    }
  }
  f.inject_flows.forEach((id, i) => {
    if (!flowIds.has(id)) add(['inject_flows', i], 'unknown_flow', `injectable flow "${id}" is not a loaded flow${didYouMean(id, flowIds.keys())}`, { flow: id, ...suggest(id, flowIds.keys()) });
    if (id === f.flow) add(['inject_flows', i], 'self_injection', 'a flow cannot inject itself', { flow: id });
  });
  // Reachability from the first step over next, branches, loop and detour edges.
  const first = f.steps[0]?.id;
  if (first && issues.length === 0 && !partial) {
    const byId = new Map(f.steps.map((s) => [s.id, s] as const));
    const detourSteps = Object.values(f.detours).map((t) => (typeof t === 'string' ? t : t.step)).filter((t): t is string => !!t);
    const seen = new Set<string>([first]);
    const queue = [first];
    while (queue.length) {
      const s = byId.get(queue.shift()!)!;
      const out = [s.next, ...Object.values(s.branches ?? {}), s.loop ? (s.loop.to ?? s.id) : undefined, ...(s.terminal || s.returns ? [] : detourSteps)];
      for (const t of out) if (t && !seen.has(t)) (seen.add(t), queue.push(t));
    }
    f.steps.forEach((s, i) => {
      if (!seen.has(s.id)) add(['steps', i], 'unreachable', `step "${s.id}" cannot be reached from the first step "${first}"`, { step: s.id, from: first });
    });
  }
  return issues;
}

/**
 * Flows that inject each other, directly or through a longer ring (a -> b -> a, a -> b -> c -> a): a run could nest
 * side trips without end. One issue per ring, on each flow's inject_flows entry that closes it, naming the ring.
 * (A flow injecting itself has its own issue, self_injection.)
 */
function injectionCycles(flows: readonly Flow[], files: ReadonlyMap<Flow, string>): GraphIssue[] {
  const byId = new Map<string, Flow>();
  for (const f of flows) if (!byId.has(f.flow)) byId.set(f.flow, f);
  const targets = (f: Flow) => [...new Set(f.inject_flows)].filter((g) => g !== f.flow && byId.has(g));
  const issues: GraphIssue[] = [];
  const reported = new Set<string>();
  for (const f of [...byId.values()].sort((a, b) => (a.flow < b.flow ? -1 : a.flow > b.flow ? 1 : 0))) {
    // The shortest ring back to f (BFS), if any; each ring reported once, from its smallest flow id.
    const via = new Map<string, string>();
    const queue = [f.flow];
    let closing: string | undefined;
    for (let i = 0; i < queue.length && closing === undefined; i++)
      for (const g of targets(byId.get(queue[i]!)!)) {
        if (g === f.flow) {
          closing = queue[i]!;
          break;
        }
        if (!via.has(g)) via.set(g, queue[i]!), queue.push(g);
      }
    if (closing === undefined) continue;
    const ring = [closing];
    while (ring[0] !== f.flow) ring.unshift(via.get(ring[0]!)!);
    const id = [...ring].sort().join(' ');
    if (reported.has(id)) continue;
    reported.add(id);
    const text = [...ring, f.flow].join(' -> ');
    ring.forEach((member, k) => {
      const from = byId.get(member)!;
      const to = ring[(k + 1) % ring.length]!;
      issues.push({
        file: files.get(from) ?? `<flow ${member}>`,
        path: ['inject_flows', from.inject_flows.indexOf(to)],
        code: 'injection_cycle',
        message: `flows inject each other in a ring (${text}): a run could nest side trips without end; remove one injection`,
        cycle: [...ring, f.flow],
      });
    });
  }
  return issues;
}

/**
 * The part of a flow document that can be graph-checked although it failed its schema: its id, and the steps,
 * detours and injected flows whose fields have the right types (a wrong field is left out; the schema reports it).
 */
export function lenientFlow(value: unknown): Flow | undefined {
  if (!isObject(value) || !Array.isArray(value.steps)) return undefined;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
  const steps = value.steps.filter(isObject).filter((s) => typeof s.id === 'string').map((s) => {
    const loop = isObject(s.loop) ? { to: str(s.loop.to), max_iterations: 1, exit_when: strings(s.loop.exit_when) ?? ['VERIFIED'] } : undefined;
    const branches = isObject(s.branches) ? Object.fromEntries(Object.entries(s.branches).filter(([, t]) => typeof t === 'string')) : undefined;
    return {
      id: s.id as string,
      agent: str(s.agent) ?? '',
      ...(str(s.next) !== undefined ? { next: str(s.next) } : {}),
      ...(branches ? { branches: branches as Record<string, string> } : {}),
      ...(loop ? { loop } : {}),
      ...(s.returns === true ? { returns: true } : {}),
      ...(s.terminal === true ? { terminal: true } : {}),
      ...(strings(s.success) ? { success: strings(s.success) } : {}),
      ...(strings(s.failure) ? { failure: strings(s.failure) } : {}),
      ...(strings(s.statuses) ? { statuses: strings(s.statuses) } : {}),
    };
  });
  // A step left out shifts the indexes of JSON paths: judge no such document's steps at all.
  if (steps.length !== value.steps.length) return undefined;
  const detours = isObject(value.detours)
    ? Object.fromEntries(Object.entries(value.detours).filter(([, t]) => typeof t === 'string' || (isObject(t) && (t.step === undefined || typeof t.step === 'string') && (t.flow === undefined || typeof t.flow === 'string'))))
    : {};
  return {
    flow: str(value.flow) ?? '',
    charter: { goal: '', non_goals: [], key_question: '' },
    steps: steps as Flow['steps'],
    detours: detours as Flow['detours'],
    inject_flows: strings(value.inject_flows) ?? [],
    signatures: [],
    inject_nodes: { allowed: false, max_nodes: 3 },
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
