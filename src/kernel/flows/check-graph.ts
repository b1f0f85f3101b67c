import type { Flow, ValidationIssue } from '../../contracts/index.js';
import { canonicalSignature } from '../signatures.js';

/** A graph problem, located by file and JSON path. */
export interface GraphIssue extends ValidationIssue {
  file: string;
}

/**
 * Every structural problem of a set of flows at once: unknown targets, unknown injected flows, duplicate ids,
 * no terminal step, steps unreachable from the first step. `files` maps flow id -> the file it came from.
 */
export function checkFlowGraphs(flows: readonly Flow[], files: ReadonlyMap<Flow, string>): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const flowIds = new Map<string, string>();
  for (const f of flows) {
    const file = files.get(f) ?? `<flow ${f.flow}>`;
    const prev = flowIds.get(f.flow);
    if (prev) issues.push({ file, path: '$.flow', code: 'duplicate_flow', message: `flow id "${f.flow}" is also defined in ${prev}` });
    else flowIds.set(f.flow, file);
  }
  for (const f of flows) issues.push(...checkOne(f, files.get(f) ?? `<flow ${f.flow}>`, flowIds));
  return issues;
}

function checkOne(f: Flow, file: string, flowIds: ReadonlyMap<string, string>): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const add = (path: string, code: string, message: string) => issues.push({ file, path, code, message });
  const ids = new Set<string>();
  f.steps.forEach((s, i) => {
    if (ids.has(s.id)) add(`$.steps[${i}].id`, 'duplicate_step', `step id "${s.id}" is used twice`);
    ids.add(s.id);
  });
  const known = (t: string) => ids.has(t);
  f.steps.forEach((s, i) => {
    const at = `$.steps[${i}]`;
    if (s.next && !known(s.next)) add(`${at}.next`, 'unknown_step', `next step "${s.next}" does not exist in flow ${f.flow}`);
    for (const [status, t] of Object.entries(s.branches ?? {}))
      if (!known(t)) add(`${at}.branches.${status}`, 'unknown_step', `branch target "${t}" does not exist in flow ${f.flow}`);
    if (s.loop?.to && !known(s.loop.to)) add(`${at}.loop.to`, 'unknown_step', `loop target "${s.loop.to}" does not exist in flow ${f.flow}`);
    if (s.terminal && (s.next || s.branches || s.loop)) add(at, 'terminal_with_edges', `terminal step "${s.id}" must not have next, branches or loop`);
  });
  if (!f.steps.some((s) => s.terminal)) add('$.steps', 'no_terminal', `flow ${f.flow} has no terminal step (terminal: true)`);
  const detourIds = new Map<string, string>();
  for (const [sig, t] of Object.entries(f.detours)) {
    const at = `$.detours.${sig}`;
    const id = canonicalSignature(sig);
    const twin = detourIds.get(id);
    if (twin !== undefined) add(at, 'duplicate_detour', `"${sig}" and "${twin}" name the same signature (${id}); keep one`);
    detourIds.set(id, sig);
    if (typeof t === 'string') {
      if (!known(t)) add(at, 'unknown_step', `detour target "${t}" does not exist in flow ${f.flow}`);
    } else {
      if (!t.step === !t.flow) add(at, 'detour_target', 'give exactly one of step or flow');
      if (t.step && !known(t.step)) add(`${at}.step`, 'unknown_step', `detour target "${t.step}" does not exist in flow ${f.flow}`);
      if (t.flow && !flowIds.has(t.flow)) add(`${at}.flow`, 'unknown_flow', `detour flow "${t.flow}" is not a loaded flow`);
      if (t.flow && !f.inject_flows.includes(t.flow)) add(`${at}.flow`, 'not_injectable', `flow "${t.flow}" must be listed in inject_flows`);
    }
  }
  f.inject_flows.forEach((id, i) => {
    if (!flowIds.has(id)) add(`$.inject_flows[${i}]`, 'unknown_flow', `injectable flow "${id}" is not a loaded flow`);
    if (id === f.flow) add(`$.inject_flows[${i}]`, 'self_injection', 'a flow cannot inject itself');
  });
  // Reachability from the first step over next, branches, loop and detour edges.
  const first = f.steps[0]?.id;
  if (first && issues.length === 0) {
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
      if (!seen.has(s.id)) add(`$.steps[${i}]`, 'unreachable', `step "${s.id}" cannot be reached from the first step "${first}"`);
    });
  }
  return issues;
}
