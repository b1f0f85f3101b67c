// navkernel inside LangGraph.js: a StateGraph generated from a flow, whose conditional edges are kernel.route().
//
// Why the graph is generated from the flow (and not a flow from a StateGraph): a StateGraph holds nodes and edges
// only, while the kernel routes by what a flow file adds to them (the charter, each microloop's max_iterations and
// exit statuses, the detour table and failure signatures, the flows a step may inject, the roster of agents). A
// flow generated from a graph would have to invent all of that; a graph generated from the flow has a node for
// every step the kernel can name, so every decision lands on a node, and `audit`, `replay` and the web UI read the
// same flow file the graph ran.
import type { AnnotationRoot, LangGraphRunnableConfig, StateDefinition, StateGraph as StateGraphType } from '@langchain/langgraph';
import type { Decision, EscalationStore, Envelope, Forensics, ProposedNode, RunReader } from '../../contracts/index.js';
import { NavkernelError } from '../../contracts/index.js';
import type { Kernel } from '../../kernel/index.js';
import { resolveEscalation } from '../../runs/index.js';
import { langgraph } from './load-langgraph.js';

const { Annotation, StateGraph, Send, Command, END, START, interrupt } = langgraph;

/** What a step's node reports in the graph state (`return { report: { status, forensics } }`): the route request's measured part. */
export interface StepReport {
  /** Free text, matched case-insensitively by the flow (VERIFIED, FAILED, PASSED, a branch's status, …). */
  status: string;
  forensics?: Forensics;
  envelope?: Envelope;
  agent?: string;
}

/** navkernel's part of the graph state: where the run is. Written by the edges; nodes only read it. */
export interface NavkernelChannel {
  /** The ledger's run id (default: the thread_id). */
  run_id?: string;
  /** The flow of the step now running. */
  flow?: string;
  /** The step now running (an injected node's id for INJECT_NODES). */
  step?: string;
  /** Routes this thread made: the idempotency keys of its route requests. */
  routes: number;
  /** The kernel's last decision (the one that led here). */
  decision?: Decision;
  /** Nodes injected by the last INJECT_NODES, to run in order. */
  injected?: ProposedNode[];
}

/** A person's answer to an escalation, given with `new Command({ resume: answer })`: what `navkernel runs resolve` takes. */
export interface EscalationAnswer {
  decision: 'CONTINUE' | 'LOOP' | 'DETOUR' | 'INJECT_FLOW' | 'TERMINATE';
  /** The step to go on with (CONTINUE, DETOUR), or the flow to inject (INJECT_FLOW). */
  next?: string;
  by: string;
  reason: string;
}

/** What the graph shows the person when it stops at an escalation (the interrupt's value). */
export interface EscalationQuestion {
  escalation_id: string;
  run_id: string;
  flow: string;
  step: string;
  reason: string;
  /** Why the previous answer was refused (it did not fit the flow graph), when it was. */
  problem?: string;
}

/** The state navkernel needs in a graph: spread `NavkernelAnnotation.spec` into your own `Annotation.Root`. */
export const NavkernelAnnotation = Annotation.Root({
  navkernel: Annotation<NavkernelChannel>({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({ routes: 0 }) }),
  report: Annotation<StepReport | undefined>({ reducer: (_a, b) => b, default: () => undefined }),
});

/** The navkernel part every graph state built for kernelGraph has. */
export type NavkernelState = typeof NavkernelAnnotation.State;

/** A node of a step: the user's work, returning its report (and updates of the user's own channels). */
export type StepNode<S extends NavkernelState = NavkernelState> = (state: S, config: LangGraphRunnableConfig) => Promise<Partial<S> & { report: StepReport }> | (Partial<S> & { report: StepReport });

/** The channels of a state that includes `NavkernelAnnotation.spec`. */
export type NavkernelStateSpec = StateDefinition & typeof NavkernelAnnotation.spec;

/** Options of kernelGraph: the kernel, the flow, the state annotation and a node per step. */
export interface KernelGraphOptions<SD extends NavkernelStateSpec = typeof NavkernelAnnotation.spec> {
  kernel: Kernel;
  /** The kernel's ledger (its read side): escalations are read from it and resolved in it. */
  ledger: RunReader & EscalationStore;
  /** The flow the graph starts in (at its first step). */
  flow: string;
  /** One node per step id: every step the kernel may route to (the flow's, its utility steps', the injectable flows'). */
  nodes: Record<string, StepNode<AnnotationRoot<SD>['State']>>;
  /** INJECT_NODES: the node that runs an injected node of each agent (default: the node named after the agent). */
  agents?: Record<string, string>;
  /** Your state (`Annotation.Root({ ...NavkernelAnnotation.spec, ...yours })`); default NavkernelAnnotation. */
  state?: AnnotationRoot<SD>;
  /** Name of the node that asks a person on ESCALATE (default `navkernel_escalation`). */
  escalationNode?: string;
}

/** Every step id the kernel may name from `flow`: its steps and those of the flows it may inject, transitively. */
function reachableSteps(kernel: Kernel, flow: string): Set<string> {
  const steps = new Set<string>();
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    const f = kernel.flows.get(id);
    if (!f) throw new NavkernelError('UNKNOWN_FLOW', `no flow ${JSON.stringify(id)} among the kernel's flows (${[...kernel.flows.flows.keys()].join(', ')})`);
    for (const s of f.steps.keys()) steps.add(s);
    for (const d of f.detours.values()) if (d.kind === 'flow') visit(d.flow);
    for (const i of f.injectFlows) visit(i);
  };
  visit(flow);
  return steps;
}

const runIdOf = (nk: NavkernelChannel, config: LangGraphRunnableConfig): string => {
  const id = nk.run_id ?? (config.configurable?.thread_id as string | undefined);
  if (!id) throw new NavkernelError('INVALID_REQUEST', 'no run id: invoke the graph with a thread_id (configurable.thread_id) or with { navkernel: { run_id } }');
  return id;
};

/**
 * A StateGraph generated from a flow: a node per step (yours), a conditional edge after each that reports the step
 * to `kernel.route()` and goes where the decision says (LOOP, DETOUR and INJECT_* land on nodes; TERMINATE on END),
 * and an escalation node that stops the graph with LangGraph's `interrupt()` on ESCALATE and, resumed with
 * `new Command({ resume: { decision, next?, by, reason } })`, records the answer as `navkernel runs resolve` does and goes
 * on where the person said. Add your own nodes or edges if you like, then `.compile({ checkpointer })`.
 */
export function kernelGraph<SD extends NavkernelStateSpec = typeof NavkernelAnnotation.spec>(options: KernelGraphOptions<SD>): StateGraphType<SD, AnnotationRoot<SD>['State'], AnnotationRoot<SD>['Update'], string> {
  type S = AnnotationRoot<SD>['State'];
  const { kernel, ledger } = options;
  const escalationNode = options.escalationNode ?? 'navkernel_escalation';
  const start = kernel.flows.get(options.flow);
  if (!start) throw new NavkernelError('UNKNOWN_FLOW', `no flow ${JSON.stringify(options.flow)} among the kernel's flows (${[...kernel.flows.flows.keys()].join(', ')})`);
  const missing = [...reachableSteps(kernel, options.flow)].filter((s) => !options.nodes[s]);
  if (missing.length) throw new NavkernelError('MISSING_NODE', `kernelGraph: no node for step(s) ${missing.join(', ')} of flow ${options.flow} (or a flow it may inject): give one in nodes`);
  const names = Object.keys(options.nodes);
  if (names.includes(escalationNode)) throw new NavkernelError('INVALID_REQUEST', `kernelGraph: a step may not be called ${escalationNode} (the escalation node); pass escalationNode`);
  const targets = [...names, escalationNode, END];

  /** Where a decision goes: a graph node, and the step and flow it runs as. */
  const destination = (d: Decision, nk: NavkernelChannel, flow: string): { node: string; step?: string; flow: string; injected?: ProposedNode[] } => {
    if (d.decision === 'TERMINATE') return { node: END, flow };
    if (d.decision === 'ESCALATE') return { node: escalationNode, flow };
    const step = d.next_step_id!;
    const nextFlow = d.next_flow ?? d.inject_flow ?? flow;
    const injected = d.decision === 'INJECT_NODES' ? d.inject_nodes : nk.injected;
    const node = injected?.find((n) => n.id === step);
    if (node && !options.nodes[step]) {
      const runner = options.agents?.[node.agent] ?? node.agent;
      if (!options.nodes[runner]) throw new NavkernelError('MISSING_NODE', `injected node ${step} is run by agent ${node.agent}, which has no node: map it in agents`);
      return { node: runner, step, flow: nextFlow, ...(injected ? { injected } : {}) };
    }
    if (!options.nodes[step]) throw new NavkernelError('MISSING_NODE', `the kernel routed to ${step}, which has no node in this graph`);
    return { node: step, step, flow: nextFlow, ...(injected ? { injected } : {}) };
  };

  // The state the next node starts from: the graph's, with navkernel's part saying which step it runs as.
  const handOver = (state: S, nk: NavkernelChannel, d: Decision, to: ReturnType<typeof destination>) =>
    new Send(to.node, { ...state, navkernel: { ...nk, decision: d, flow: to.flow, step: to.step, injected: to.injected } });

  const graph = new StateGraph((options.state ?? NavkernelAnnotation) as AnnotationRoot<SD>);
  const g = graph as unknown as {
    addNode(name: string, fn: (s: S, c: LangGraphRunnableConfig) => unknown, opts?: { ends: string[] }): void;
    addEdge(a: string, b: string): void;
    addConditionalEdges(source: string, path: (s: S, c: LangGraphRunnableConfig) => unknown, pathMap: string[]): void;
  };

  for (const [name, fn] of Object.entries(options.nodes)) {
    g.addNode(name, async (state, config) => {
      const out = await fn(state, config);
      if (!out || typeof out !== 'object' || !out.report || typeof out.report.status !== 'string') {
        throw new NavkernelError('INVALID_REQUEST', `node ${name} returned no report: return { report: { status, forensics? } } for the kernel to route`);
      }
      // Keep navkernel's part as the edge handed it over (a node reached by Send gets it as its input only).
      return { ...out, navkernel: { ...state.navkernel, step: state.navkernel.step ?? name } };
    });
    g.addConditionalEdges(
      name,
      async (state, config) => {
        const nk = state.navkernel;
        const run_id = runIdOf(nk, config);
        const flow = nk.flow ?? options.flow;
        const routes = (nk.routes ?? 0) + 1;
        const report = state.report!;
        const thread = (config.configurable?.thread_id as string | undefined) ?? run_id;
        const d = await kernel.route({
          run_id,
          flow,
          step_completed: nk.step ?? name,
          status: report.status,
          ...(report.agent ? { agent: report.agent } : {}),
          ...(report.forensics ? { forensics: report.forensics } : {}),
          ...(report.envelope ? { envelope: report.envelope } : {}),
          // A task re-run after a crash routes again with the same key: the kernel answers with the recorded decision.
          request_id: `langgraph:${thread}:${routes}`,
        });
        const to = destination(d, nk, flow);
        if (to.node === END) return END;
        return handOver(state, { ...nk, run_id, routes }, d, to);
      },
      targets,
    );
  }

  g.addNode(
    escalationNode,
    async (state) => {
      const nk = state.navkernel;
      const d = nk.decision!;
      const id = d.escalation_id!;
      let row = await ledger.escalation(id);
      if (!row) throw new NavkernelError('UNKNOWN_ESCALATION', `no escalation ${id} in ${ledger.location}`);
      let problem: string | undefined;
      // Each refused answer asks again (a second interrupt), saying why; a resolution recorded elsewhere
      // (navkernel runs resolve, the web UI) before the graph resumes is taken as it is.
      while (row.status === 'open') {
        const question: EscalationQuestion = { escalation_id: id, run_id: row.run_id, flow: row.flow, step: row.step, reason: row.reason, ...(problem ? { problem } : {}) };
        const answer = interrupt<EscalationQuestion, EscalationAnswer>(question);
        try {
          if (!answer || typeof answer !== 'object' || typeof answer.decision !== 'string' || typeof answer.by !== 'string' || typeof answer.reason !== 'string') {
            throw new NavkernelError('INVALID_RESOLUTION', 'resume with { decision, next?, by, reason }');
          }
          await resolveEscalation(ledger, kernel.flows, { escalation_id: id, decision: answer.decision, by: answer.by, reason: answer.reason, ...(answer.next ? { next: answer.next } : {}) });
        } catch (err) {
          if (!(err instanceof NavkernelError) || (err.code !== 'INVALID_RESOLUTION' && err.code !== 'ESCALATION_ALREADY_RESOLVED')) throw err;
          problem = err.message;
        }
        row = (await ledger.escalation(id))!;
      }
      const r = JSON.parse(row.resolution!) as { decision: string; next_step_id: string | null; inject_flow?: string };
      const resolved: Decision = { ...d, decision: r.decision as Decision['decision'], next_step_id: r.next_step_id, ...(r.inject_flow ? { inject_flow: r.inject_flow, next_flow: r.inject_flow } : {}) };
      const to = destination(resolved, nk, row.flow);
      return new Command({ goto: to.node, update: { navkernel: { ...nk, decision: resolved, flow: to.flow, step: to.step } } });
    },
    { ends: [...names, END] },
  );
  g.addEdge(START, start.firstStep);
  return graph as unknown as StateGraphType<SD, AnnotationRoot<SD>['State'], AnnotationRoot<SD>['Update'], string>;
}
