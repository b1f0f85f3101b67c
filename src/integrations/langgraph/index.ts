// navkernel/langgraph: a LangGraph.js StateGraph generated from a flow, routed by the kernel (docs/integrations.md).
// Needs the optional peer dependency @langchain/langgraph.
export {
  kernelGraph,
  NavkernelAnnotation,
  type KernelGraphOptions,
  type NavkernelChannel,
  type NavkernelState,
  type NavkernelStateSpec,
  type StepNode,
  type StepReport,
  type EscalationAnswer,
  type EscalationQuestion,
} from './kernel-graph.js';
