export {
  runExplorer,
  resumeExplorer,
  pricingFor,
  exitCodeFor,
  estimateCallUsd as estimateExplorerCallUsd,
  affordable as explorerCanAfford,
  type ExplorerEnv,
  type ExplorerRunOptions,
  type ExplorerStartOptions,
  type ExplorerResult,
} from './explorer.js';
export { startingFlightPlan, type StartingPoint, type StartingPlanOptions } from './starting-plan.js';
export { applyFlightPlanDiff, checkFlightPlanDiff, type DiffCheck, type DiffContext } from './plan-diff.js';
export { explorerTools, readToolCall, UPDATE_TOOL, FINALIZE_TOOL, type ReadToolCall } from './tools.js';
export { buildExplorerMessages, stateView, mapExcerpt, EXPLORER_SYSTEM_PROMPT, DEFAULT_VIEW_LIMITS, type ViewLimits, type StateView } from './prompt.js';
export { buildTurnReport, formatTurnReport, progressLine, excludedAreas } from './turn-report.js';
export { buildNavigatorOutput, contextMarkdown, flightPlanFile, flightPlanYaml } from './output.js';
export { parseUserLine, createLineAsker, INTERACTIVE_HELP, type UserCommand, type ParsedLine, type AskUser, type BreakpointView } from './interactive.js';
export { copyToClipboard, clipboardCandidates, type ClipboardTool, type CopyResult } from './clipboard.js';
export { verboseStepDetails } from './turn-report.js';
