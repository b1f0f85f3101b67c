// Mermaid text of a flow: steps, next edges, branches, microloops, the detour table, injectable flows and
// ad-hoc nodes. Pure (no Node APIs): the CLI (`navkernel flows diagram`), the web UI and `navkernel report` share it.
import type { Flow } from '../contracts/flow.js';

/** What a run did in this flow, drawn over the graph. */
export interface DiagramOverlay {
  /** Step id -> times the step completed in the run. */
  visits?: Record<string, number>;
  /** Step id -> LOOP decisions taken from it. */
  loops?: Record<string, number>;
  /** Moves the run took, `from` step -> `to` step (both in this flow). */
  taken?: { from: string; to: string; kind?: string }[];
  /** The step the run is at now (its last decision's next step), or that escalated. */
  current?: string;
  /** Steps where the run escalated and nobody has resolved it yet. */
  escalated?: string[];
  /** Steps where the run escalated and a person resolved it. */
  resolved?: string[];
}

export interface FlowDiagram {
  /** The Mermaid text. */
  text: string;
  /** Step id -> Mermaid node id. */
  nodes: Record<string, string>;
  /** Edges in Mermaid order (index = linkStyle number). */
  edges: { from: string; to: string; kind: 'next' | 'branch' | 'loop' | 'detour' | 'inject' | 'taken'; taken: boolean }[];
}

type FlowDef = Pick<Flow, 'flow' | 'steps'> & Partial<Pick<Flow, 'detours' | 'inject_flows' | 'inject_nodes'>>;

/** A Mermaid label: quoted, with the characters Mermaid would read as syntax written as entities. */
function label(text: string): string {
  return '"' + text.replace(/&/g, '#amp;').replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;') + '"';
}

/**
 * Mermaid `flowchart TD` of a flow. With an overlay, visited steps and taken edges are highlighted (class
 * `visited`, thick edges), visit and loop counts are shown on the steps, and moves outside the drawn graph (a
 * detour and its return) are added as red dashed edges.
 */
export function flowDiagram(flow: FlowDef, overlay?: DiagramOverlay): FlowDiagram {
  const nodes: Record<string, string> = {};
  flow.steps.forEach((s, i) => (nodes[s.id] = `s${i}`));
  const lines: string[] = ['flowchart TD'];
  lines.push('  classDef terminal fill:#eef7ee,stroke:#3a7d44,color:#1d3d22');
  lines.push('  classDef utility fill:#f4f1fb,stroke:#7b61b5,color:#35275a,stroke-dasharray:4 3');
  lines.push('  classDef signature fill:#fff6e0,stroke:#c9931a,color:#5a4000');
  lines.push('  classDef injected fill:#e8f1fb,stroke:#3b6fb6,color:#1b3558');
  if (overlay) {
    lines.push('  classDef visited fill:#ffe3d6,stroke:#d9480f,stroke-width:3px,color:#4a1a00');
    lines.push('  classDef current fill:#ffd43b,stroke:#d9480f,stroke-width:4px,color:#3d2c00');
    lines.push('  classDef escalated fill:#ffc9c9,stroke:#c92a2a,stroke-width:4px,color:#5c0000');
    lines.push('  classDef resolved fill:#ffe3d6,stroke:#2b8a3e,stroke-width:4px,stroke-dasharray:6 3,color:#4a1a00');
  }
  const visits = overlay?.visits ?? {};
  const loops = overlay?.loops ?? {};
  for (const s of flow.steps) {
    let text = `${s.id}\n${s.agent}`;
    if (s.loop) text += `\n↻ max ${s.loop.max_iterations}`;
    if (overlay && visits[s.id]) text += `\n✔ ${visits[s.id]}×${loops[s.id] ? ` · ${loops[s.id]} loop${loops[s.id] === 1 ? '' : 's'}` : ''}`;
    const body = label(text).replace(/\n/g, '<br/>');
    const shape = s.terminal ? `(["${body.slice(1, -1)}"])` : s.returns ? `[/"${body.slice(1, -1)}"/]` : `["${body.slice(1, -1)}"]`;
    lines.push(`  ${nodes[s.id]}${shape}`);
  }
  const edges: FlowDiagram['edges'] = [];
  const takenKeys = new Set((overlay?.taken ?? []).map((t) => `${t.from}\u0000${t.to}`));
  const drawn = new Set<string>();
  const edge = (from: string, to: string, kind: FlowDiagram['edges'][number]['kind'], text: string | undefined, dotted: boolean) => {
    const key = `${from}\u0000${to}`;
    const taken = takenKeys.has(key);
    if (nodes[from] !== undefined && nodes[to] !== undefined) drawn.add(key);
    const a = nodes[from] ?? from;
    const b = nodes[to] ?? to;
    const arrow = dotted ? '-.->' : '-->';
    lines.push(`  ${a} ${arrow}${text ? `|${label(text)}|` : ''} ${b}`);
    edges.push({ from, to, kind, taken });
  };
  for (const s of flow.steps) {
    for (const [status, target] of Object.entries(s.branches ?? {})) edge(s.id, target, 'branch', status, false);
    if (s.next) edge(s.id, s.next, 'next', s.branches ? 'otherwise' : undefined, false);
    if (s.loop) edge(s.id, s.loop.to ?? s.id, 'loop', `loop ≤${s.loop.max_iterations}`, true);
  }
  // The detour table: a failure signature seen at any step sends the run to a fix. One hub node, one labelled
  // edge per signature, so the table does not spread the drawing.
  const detours = Object.entries(flow.detours ?? {});
  if (detours.length) lines.push(`  fail{{${label('failure signature at any step')}}}`, '  class fail signature');
  for (const [sig, target] of detours) {
    const step = typeof target === 'string' ? target : target.step;
    const injected = typeof target === 'string' ? undefined : target.flow;
    if (step && nodes[step]) edge('fail', step, 'detour', sig, true);
    else if (injected) {
      const fid = `f_${injected.replace(/[^A-Za-z0-9_]/g, '_')}`;
      if (!lines.some((l) => l.startsWith(`  ${fid}[[`))) lines.push(`  ${fid}[[${label(`flow ${injected}`)}]]`, `  class ${fid} injected`);
      edges.push({ from: 'fail', to: fid, kind: 'inject', taken: false });
      lines.push(`  fail -.->|${label(`${sig}: inject`)}| ${fid}`);
    }
  }
  for (const f of flow.inject_flows ?? []) {
    const fid = `f_${f.replace(/[^A-Za-z0-9_]/g, '_')}`;
    if (!lines.some((l) => l.startsWith(`  ${fid}[[`))) lines.push(`  ${fid}[[${label(`flow ${f} (injectable)`)}]]`, `  class ${fid} injected`);
  }
  if (flow.inject_nodes?.allowed) {
    lines.push(`  nodes_note>${label(`tier 3 may inject up to ${flow.inject_nodes.max_nodes} ad-hoc steps`)}]`);
  }
  // Moves the run took that the static graph has no edge for (a detour to a utility step and back).
  for (const t of overlay?.taken ?? []) {
    const key = `${t.from}\u0000${t.to}`;
    if (drawn.has(key) || nodes[t.from] === undefined || nodes[t.to] === undefined) continue;
    drawn.add(key);
    lines.push(`  ${nodes[t.from]} -.->|${label(t.kind ?? 'taken')}| ${nodes[t.to]}`);
    edges.push({ from: t.from, to: t.to, kind: 'taken', taken: true });
  }
  for (const s of flow.steps) {
    const cls = s.terminal ? 'terminal' : s.returns ? 'utility' : undefined;
    if (cls) lines.push(`  class ${nodes[s.id]} ${cls}`);
  }
  if (overlay) {
    for (const s of flow.steps) if (visits[s.id]) lines.push(`  class ${nodes[s.id]} visited`);
    if (overlay.current && nodes[overlay.current]) lines.push(`  class ${nodes[overlay.current]} current`);
    for (const e of overlay.resolved ?? []) if (nodes[e]) lines.push(`  class ${nodes[e]} resolved`);
    for (const e of overlay.escalated ?? []) if (nodes[e]) lines.push(`  class ${nodes[e]} escalated`);
    edges.forEach((e, i) => {
      if (e.taken) lines.push(`  linkStyle ${i} stroke:#d9480f,stroke-width:4px`);
    });
  }
  return { text: lines.join('\n') + '\n', nodes, edges };
}

/** A recorded decision, as much of it as the overlay needs. */
export interface OverlayDecision {
  /** The route's seq: matches an escalation to the decision that opened it. */
  seq?: number;
  flow: string;
  step: string;
  decision: { decision: string; next_step_id: string | null; next_flow?: string; detour_target?: string; return_to?: string };
}

/** An escalation of the run, as much of it as the overlay needs (a person's resolution moves the run on). */
export interface OverlayEscalation {
  seq: number;
  flow: string;
  step: string;
  resolution?: { decision: string; next_step_id: string | null; inject_flow?: string | undefined } | null | undefined;
}

/**
 * The overlay of one flow from a run's decisions in order: visits, loops, taken moves, where it is now. With the
 * run's escalations, a resolved one is drawn as resolved (not red) and the move the person chose as taken.
 */
export function runOverlay(flow: string, decisions: OverlayDecision[], escalations: OverlayEscalation[] = []): DiagramOverlay {
  const visits: Record<string, number> = {};
  const loops: Record<string, number> = {};
  const taken: NonNullable<DiagramOverlay['taken']> = [];
  const seen = new Set<string>();
  const escalated: string[] = [];
  const resolved: string[] = [];
  const resolutionAt = new Map(escalations.filter((e) => e.flow === flow && e.resolution).map((e) => [e.seq, e.resolution!]));
  let current: string | undefined;
  for (const d of decisions) {
    if (d.flow !== flow) continue;
    visits[d.step] = (visits[d.step] ?? 0) + 1;
    const kind = d.decision.decision;
    if (kind === 'LOOP') loops[d.step] = (loops[d.step] ?? 0) + 1;
    const resolution = kind === 'ESCALATE' && d.seq !== undefined ? resolutionAt.get(d.seq) : undefined;
    if (kind === 'ESCALATE') (resolution ? resolved : escalated).push(d.step);
    // A resolved escalation moved the run where the person said (another flow's first step for INJECT_FLOW).
    const next = resolution ? (resolution.inject_flow ? null : resolution.next_step_id) : d.decision.next_step_id;
    const to = d.decision.next_flow && d.decision.next_flow !== flow ? undefined : (next ?? undefined);
    if (to) {
      const key = `${d.step}\u0000${to}`;
      if (!seen.has(key)) {
        seen.add(key);
        taken.push({ from: d.step, to, kind: resolution ? `resolved: ${resolution.decision.toLowerCase()}` : kind.toLowerCase() });
      }
    }
    current = to ?? (kind === 'ESCALATE' && !resolution ? d.step : undefined);
  }
  return { visits, loops, taken, ...(current ? { current } : {}), escalated, resolved };
}
